"""The `node` module extension: the Node a TypeScript client's conformance test runs on.

    node = use_extension("@chobo//lang/typescript/toolchain:extensions.bzl", "node")
    node.local()                          # the first node on PATH
    node.local(path = "/opt/node/bin/node")

Each Node gets the npm packages chobo's TypeScript runtime pins
(lang/typescript/runtime/package-lock.json: TypeScript, pg, tigerbeetle-node),
installed with `npm ci`. The root module's tags win; when it has none,
chobo's own `local()` is used. `@node_toolchains` holds the toolchain()
targets, which chobo registers. Without Node, only a conformance test of a
TypeScript client fails, and says why.
"""

load("//toolchains/private:local_tool.bzl", "make_installations")  # buildifier: disable=bzl-visibility
load(":repositories.bzl", "node_local_repository")

_local = tag_class(
    doc = "Node installed on the machine.",
    attrs = {
        "path": attr.string(doc = "The node program; empty: the first node on PATH."),
    },
)

def _local_repository(name, tag):
    node_local_repository(name = name, path = tag.path)

def _node_impl(mctx):
    make_installations(
        mctx,
        tool = "node",
        toolchain_type = str(Label("//lang/typescript/toolchain:toolchain_type")),
        kinds = {"local": _local_repository},
        default = [("local", struct(path = ""))],
    )

node = module_extension(
    implementation = _node_impl,
    tag_classes = {"local": _local},
)
