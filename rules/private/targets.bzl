"""What each `chobo build` client target writes, and how its library is made.

A new client target is one entry in TARGETS (and, for a new language, one
entry in LANGUAGES); chobo_client itself has no branch per language.
"""

load("@rules_go//go:def.bzl", "go_library")

def _go_library(name, srcs, importpath, deps, visibility, tags):
    go_library(
        name = name,
        srcs = srcs,
        importpath = importpath,
        deps = deps,
        visibility = visibility,
        tags = tags,
    )

# language -> struct(library = macro(name, srcs, importpath, deps, visibility, tags))
LANGUAGES = {
    "go": struct(library = _go_library),
}

# chobo target -> what it writes. `files` are relative to the package
# directory chobo creates under --out; `deps` are what those files import,
# as labels resolved in chobo's own module (so users need not name them).
TARGETS = {
    "postgres-go": struct(
        language = "go",
        files = ["book.go", "runtime.go"],
        deps = [
            Label("@com_github_jackc_pgx_v5//:pgx"),
            Label("@com_github_jackc_pgx_v5//pgconn"),
        ],
    ),
    # Slots for later: "tigerbeetle-go" (deps on the official Go client),
    # and the TypeScript and Python targets with their own LANGUAGES entries.
}
