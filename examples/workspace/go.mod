// The example workspace is built with Bazel only. This file makes it a
// module of its own, so that chobo's `go vet ./...` and `go test ./...`
// leave it alone (its imports resolve only through Bazel).
module example.com/warehouse

go 1.25.0
