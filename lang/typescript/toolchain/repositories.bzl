"""The repository rule that makes Node and the pinned npm packages visible to Bazel.

node_local_repository: the node program installed on the machine (by path,
or the first `node` on PATH), and the npm packages of chobo's TypeScript
runtime installed beside it with the ordinary `npm ci` from
lang/typescript/runtime/package-lock.json, which pins every package by version
and integrity hash: TypeScript for tsc, pg and tigerbeetle-node for the
driver of a client, and their types.
"""

load(
    # buildifier: disable=bzl-visibility
    "//toolchains/private:local_tool.bzl",
    "find_beside",
    "find_tool",
    "install_pinned",
    "tool_version",
    "write_missing_tool_build",
    "write_tool_build",
)

_PACKAGE_JSON = Label("//lang/typescript/runtime:package.json")
_PACKAGE_LOCK = Label("//lang/typescript/runtime:package-lock.json")
_TOOLCHAIN_BZL = str(Label("//lang/typescript/toolchain:toolchain.bzl"))

def _node_local_repository_impl(rctx):
    node, where = find_tool(rctx, rctx.attr.path, "node")
    if node == None:
        write_missing_tool_build(rctx, _TOOLCHAIN_BZL, "node", "no node program in %s; install Node 20 or newer (Debian: apt-get install nodejs npm) or name one with node.local(path = ...)" % where)
        return
    version, failed = tool_version(rctx, node)
    if version == None:
        write_missing_tool_build(rctx, _TOOLCHAIN_BZL, "node", "%s --version failed: %s" % (node, failed))
        return
    rctx.symlink(node, "bin/node")

    npm = find_beside(rctx, node, "npm")
    if npm == None:
        write_missing_tool_build(rctx, _TOOLCHAIN_BZL, "node", "no npm beside %s or on PATH, to install the pinned packages (Debian: apt-get install npm)" % node)
        return

    # npm ci installs exactly what the lock file pins, checking each
    # package's integrity hash, and runs no package's scripts.
    failed = install_pinned(
        rctx,
        {_PACKAGE_JSON: "package.json", _PACKAGE_LOCK: "package-lock.json"},
        [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
        environment = {"npm_config_update_notifier": "false"},
    )
    if failed != None:
        write_missing_tool_build(rctx, _TOOLCHAIN_BZL, "node", "npm ci of the pinned TypeScript packages failed: %s" % failed)
        return
    write_tool_build(rctx, _TOOLCHAIN_BZL, "node", [
        ("node", repr("bin/node")),
        ("modules", repr("node_modules/.package-lock.json")),
        ("files", 'glob(["node_modules/**"])'),
        ("version", repr(version)),
    ])

node_local_repository = repository_rule(
    implementation = _node_local_repository_impl,
    doc = "Node from the machine, with the npm packages lang/typescript/runtime/package-lock.json pins.",
    attrs = {
        "path": attr.string(doc = "The node program; empty: the first node on PATH."),
    },
    environ = ["PATH"],
)
