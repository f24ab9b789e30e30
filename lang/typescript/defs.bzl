"""What the Bazel rules know of TypeScript clients: LANGUAGE, which the registry in rules/private/targets.bzl lists.

Its fields are the ones every language gives (targets.bzl says what each
means); nothing outside lang/typescript names them.
"""

# A language's folder is part of chobo's rules: it makes its drivers with
# the rules' own chobo_driver.
load("//rules/private:driver.bzl", "chobo_driver")  # buildifier: disable=bzl-visibility

def _library(name, srcs, importpath, deps, visibility, tags):  # buildifier: disable=unused-variable
    # A TypeScript client is one self-contained file; the user's own
    # TypeScript rules (or tsc) take it as a source, so the library is
    # the file itself. It has no import path and nothing to depend on.
    native.filegroup(
        name = name,
        srcs = srcs,
        visibility = visibility,
        tags = tags,
    )

_TOOLCHAIN = Label("//lang/typescript/toolchain:toolchain_type")

def _driver(name, client, srcs, visibility, tags):  # buildifier: disable=unused-variable
    # chobo's TypeScript driver, compiled with the client by the runner:
    # the driver of a client is its source.
    chobo_driver(
        name = name,
        srcs = srcs,
        toolchain = _TOOLCHAIN,
        testonly = True,
        tags = tags,
        visibility = visibility,
    )

def _toolchain_env(label, node, rlocation):
    # Node and the pinned packages, for the runner's TypeScript row.
    if node == None or node.node.missing:
        fail("%s drives a TypeScript client and needs Node: %s" % (label, node.node.missing if node else "no Node toolchain is registered (lang/typescript/toolchain)"))
    return struct(
        env = {
            "CHOBO_CONFORMANCE_NODE": rlocation(node.node.node),
            "CHOBO_CONFORMANCE_NODE_MODULES": rlocation(node.node.modules),
        },
        files = node.node.files,
    )

# The client targets of the language, as TARGETS in targets.bzl has them.
# One file named after the book, which carries chobo's TypeScript
# runtime: nothing to depend on. chobo_client names the output after the
# .book file (stock.book -> stock.ts) unless `out` says otherwise.
TARGETS = {
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

LANGUAGE = struct(
    name = "typescript",
    defs = Label(":defs"),
    library = _library,
    importpath = False,
    driver = _driver,
    toolchain = _TOOLCHAIN,
    toolchain_env = _toolchain_env,
    model = False,
    targets = TARGETS,
)
