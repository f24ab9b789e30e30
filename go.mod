module github.com/chobo-lang/chobo

go 1.25.0

require (
	github.com/bazelbuild/bazel-gazelle v0.36.0
	github.com/bazelbuild/buildtools v0.0.0-20240313121412-66c605173954
	github.com/jackc/pgx/v5 v5.12.0
	github.com/tigerbeetle/tigerbeetle-go v0.17.9
	golang.org/x/text v0.41.0
)

require (
	github.com/bmatcuk/doublestar/v4 v4.6.1 // indirect
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	golang.org/x/mod v0.38.0 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/sys v0.18.0 // indirect
	golang.org/x/tools/go/vcs v0.1.0-deprecated // indirect
)
