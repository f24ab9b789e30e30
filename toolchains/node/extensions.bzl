"""The `node` module extension: the Node a TypeScript client's conformance test runs on.

    node = use_extension("@chobo//toolchains/node:extensions.bzl", "node")
    node.local()                          # the first node on PATH
    node.local(path = "/opt/node/bin/node")

Each Node gets the npm packages chobo's TypeScript runtime pins
(runtime/typescript/package-lock.json: TypeScript, pg, tigerbeetle-node),
installed with `npm ci`. The root module's tags win; when it has none,
chobo's own `local()` is used. `@node_toolchains` holds the toolchain()
targets, which chobo registers. Without Node, only a conformance test of a
TypeScript client fails, and says why.
"""

load(":repositories.bzl", "node_local_repository", "node_toolchains_repo")

_local = tag_class(
    doc = "Node installed on the machine.",
    attrs = {
        "path": attr.string(doc = "The node program; empty: the first node on PATH."),
    },
)

def _node_impl(mctx):
    chosen = None
    for mod in mctx.modules:
        if mod.tags.local:
            if mod.is_root or chosen == None:
                chosen = mod
            if mod.is_root:
                break
    tags = chosen.tags.local if chosen else [struct(path = "")]
    names = []
    for i, tag in enumerate(tags):
        repo = "node_%d_local" % i
        node_local_repository(name = repo, path = tag.path)
        names.append(repo)
    node_toolchains_repo(name = "node_toolchains", names = names, repos = names)

node = module_extension(
    implementation = _node_impl,
    tag_classes = {"local": _local},
)
