// Package version holds chobo's version. It stands alone, below every
// other package, so that the command line, the generated files and the
// Bazel module can all state one number without importing each other.
package version

// Version is chobo's release. MODULE.bazel states it again for Bazel,
// which cannot read Go; a test keeps the two equal.
const Version = "0.1.0"
