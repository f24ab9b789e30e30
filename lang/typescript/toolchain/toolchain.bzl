"""The Node toolchain rule and what it provides."""

load("//toolchains/private:local_tool.bzl", "TOOL_ATTRS", "tool_files")  # buildifier: disable=bzl-visibility

NodeInfo = provider(
    doc = "Node and the npm packages a TypeScript client's conformance test needs.",
    fields = {
        "node": "File: the node program.",
        "modules": "File: node_modules/.package-lock.json; its directory is node_modules, with TypeScript, pg and tigerbeetle-node as lang/typescript/runtime/package-lock.json pins them.",
        "files": "depset of File: node and every file of node_modules.",
        "version": "string: what `node --version` printed.",
        "missing": "string: why there is no Node or no packages (empty when there are).",
    },
)

def _node_toolchain_impl(ctx):
    info = NodeInfo(
        node = ctx.file.node,
        modules = ctx.file.modules,
        files = tool_files(ctx, [ctx.file.node, ctx.file.modules]),
        version = ctx.attr.version,
        missing = ctx.attr.missing,
    )
    return [platform_common.ToolchainInfo(node = info)]

node_toolchain = rule(
    implementation = _node_toolchain_impl,
    doc = "Describes Node and the pinned npm packages. Made by the module extension; " +
          "when Node or the packages could not be had, `missing` says why and the files are unset, " +
          "so only the targets that need Node fail, with that reason.",
    attrs = dict(
        TOOL_ATTRS,
        node = attr.label(allow_single_file = True),
        modules = attr.label(allow_single_file = True),
        files = attr.label_list(allow_files = True),
    ),
)
