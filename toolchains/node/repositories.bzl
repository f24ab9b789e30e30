"""The repository rule that makes Node and the pinned npm packages visible to Bazel.

node_local_repository: the node program installed on the machine (by path,
or the first `node` on PATH), and the npm packages of chobo's TypeScript
runtime installed beside it with the ordinary `npm ci` from
runtime/typescript/package-lock.json, which pins every package by version
and integrity hash: TypeScript for tsc, pg and tigerbeetle-node for the
driver of a client, and their types.
"""

_PACKAGE_JSON = Label("//runtime/typescript:package.json")
_PACKAGE_LOCK = Label("//runtime/typescript:package-lock.json")

def _build_file(rctx, version, missing = ""):
    toolchain_bzl = str(Label("//toolchains/node:toolchain.bzl"))
    if missing:
        body = 'node_toolchain(\n    name = "node",\n    missing = %r,\n    visibility = ["//visibility:public"],\n)\n' % missing
    else:
        body = """node_toolchain(
    name = "node",
    node = "bin/node",
    modules = "node_modules/.package-lock.json",
    files = glob(["node_modules/**"]),
    version = {version},
    visibility = ["//visibility:public"],
)
""".format(version = repr(version))
    rctx.file("BUILD.bazel", 'load("%s", "node_toolchain")\n\n%s' % (toolchain_bzl, body))

def _node_local_repository_impl(rctx):
    if rctx.attr.path:
        node = rctx.path(rctx.attr.path)
        where = rctx.attr.path
        if not node.exists:
            node = None
    else:
        node = rctx.which("node")
        where = "PATH"
    if node == None:
        _build_file(rctx, "", missing = "no node program in %s; install Node 20 or newer (Debian: apt-get install nodejs npm) or name one with node.local(path = ...)" % where)
        return
    res = rctx.execute([node, "--version"])
    if res.return_code != 0:
        _build_file(rctx, "", missing = "%s --version failed: %s" % (node, res.stderr.strip()))
        return
    version = res.stdout.strip()
    rctx.symlink(node, "bin/node")

    npm = node.dirname.get_child("npm")
    if not npm.exists:
        npm = rctx.which("npm")
    if npm == None:
        _build_file(rctx, version, missing = "no npm beside %s or on PATH, to install the pinned packages (Debian: apt-get install npm)" % node)
        return
    rctx.symlink(_PACKAGE_JSON, "package.json")
    rctx.symlink(_PACKAGE_LOCK, "package-lock.json")

    # npm ci installs exactly what the lock file pins, checking each
    # package's integrity hash, and runs no package's scripts.
    res = rctx.execute(
        [npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"],
        environment = {"npm_config_update_notifier": "false"},
        timeout = 600,
    )
    if res.return_code != 0:
        _build_file(rctx, version, missing = "npm ci of the pinned TypeScript packages failed: %s" % (res.stderr.strip()[-2000:] or res.stdout.strip()[-2000:]))
        return
    _build_file(rctx, version)

node_local_repository = repository_rule(
    implementation = _node_local_repository_impl,
    doc = "Node from the machine, with the npm packages runtime/typescript/package-lock.json pins.",
    attrs = {
        "path": attr.string(doc = "The node program; empty: the first node on PATH."),
    },
    environ = ["PATH"],
)

def _node_toolchains_repo_impl(rctx):
    toolchain_type = str(Label("//toolchains/node:toolchain_type"))
    lines = []
    for name, repo in zip(rctx.attr.names, rctx.attr.repos):
        lines.append("""toolchain(
    name = {name},
    toolchain = "@{repo}//:node",
    toolchain_type = "{type}",
)
""".format(name = repr(name), repo = repo, type = toolchain_type))
    rctx.file("BUILD.bazel", "\n".join(lines))

node_toolchains_repo = repository_rule(
    implementation = _node_toolchains_repo_impl,
    doc = "The toolchain() targets of every Node, in order of preference.",
    attrs = {
        "names": attr.string_list(),
        "repos": attr.string_list(),
    },
)
