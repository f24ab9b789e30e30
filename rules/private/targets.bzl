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

def _typescript_sources(name, srcs, importpath, deps, visibility, tags):  # buildifier: disable=unused-variable
    # A TypeScript client is one self-contained file; the user's own
    # TypeScript rules (or tsc) take it as a source, so the library is
    # the file itself. It has no import path and nothing to depend on.
    native.filegroup(
        name = name,
        srcs = srcs,
        visibility = visibility,
        tags = tags,
    )

# language -> struct(library = macro(name, srcs, importpath, deps, visibility, tags))
LANGUAGES = {
    "go": struct(library = _go_library),
    "typescript": struct(library = _typescript_sources),
}

# chobo client target -> what it writes. The registry of targets in
# chobo/target is the source of truth; a test there fails when this table
# disagrees with it. `files` are relative to the package directory chobo
# creates under --out; `deps` are what those files import, as labels
# resolved in chobo's own module (so users need not name them): the Go
# runtime, which generated clients no longer carry a copy of.
TARGETS = {
    "postgres-go": struct(
        backend = "postgres",
        language = "go",
        files = ["book.go"],
        deps = [
            Label("//runtime/go/chobo"),
            Label("//runtime/go/chobopg"),
        ],
    ),
    # The client builds its chains with the runtime and takes any
    # chobotb.Client; the official client (cgo) comes in only through
    # runtime/go/chobotb/tbgo, in the program that dials TigerBeetle.
    "tigerbeetle-go": struct(
        backend = "tigerbeetle",
        language = "go",
        files = ["book.go"],
        deps = [
            Label("//runtime/go/chobo"),
            Label("//runtime/go/chobotb"),
        ],
    ),
    # One file named after the book, which carries chobo's TypeScript
    # runtime: nothing to depend on. chobo_client names the output after
    # the .book file (stock.book -> stock.ts) unless `out` says otherwise.
    "postgres-typescript": struct(
        backend = "postgres",
        language = "typescript",
        files = ["<book>.ts"],
        deps = [],
    ),
    "tigerbeetle-typescript": struct(
        backend = "tigerbeetle",
        language = "typescript",
        files = ["<book>.ts"],
        deps = [],
    ),
}
