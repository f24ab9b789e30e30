"""The repository rule that makes a Python interpreter visible to Bazel.

python_local_repository: the interpreter installed on the machine (by
path, else the one $CHOBO_PYTHON names, else the first python3 on PATH),
checked when the repository is made: Python 3.11 or newer, with the
packages chobo's Python driver imports (psycopg 3 and psycopg2 for a
PostgreSQL client, the official tigerbeetle package, at the version of
chobo's TigerBeetle server, for a TigerBeetle one). Nothing is installed:
the interpreter brings its packages, as a virtual environment does.
"""

# A language's toolchain is one of chobo's toolchains, kept in the
# language's folder: it shares their private helpers.
load("//toolchains/private:local_tool.bzl", "write_missing_tool_build", "write_tool_build")  # buildifier: disable=bzl-visibility

# The version of the tigerbeetle package the interpreter must have: the
# official client speaks the protocol of one server version, the one
# chobo's TigerBeetle toolchain and Go client are at
# (lang/python/runtime/requirements-dev.txt pins the same).
TIGERBEETLE_PACKAGE = "0.17.9"

# What a user installs, named in the message of an interpreter that lacks
# it.
_INSTALL = "pip install 'psycopg[binary]>=3' psycopg2-binary tigerbeetle==%s" % TIGERBEETLE_PACKAGE

_CHECK = Label("//lang/python/toolchain:check.py")
_TOOLCHAIN_BZL = str(Label("//lang/python/toolchain:toolchain.bzl"))

# What a Python client's conformance test needs, said with every reason
# the interpreter is missing.
_NEEDS = ("a Python client's conformance test needs Python 3.11 or newer with psycopg 3, psycopg2 and tigerbeetle %s " +
          "(%s), named by CHOBO_PYTHON or python.local(path = ...)") % (TIGERBEETLE_PACKAGE, _INSTALL)

def _find_python(rctx):
    """The interpreter (None when it is not there) and, for messages, what named it."""
    path = rctx.attr.path
    where = "python.local(path = %r)" % path
    if not path and rctx.os.environ.get("CHOBO_PYTHON"):
        path = rctx.os.environ["CHOBO_PYTHON"]
        where = "CHOBO_PYTHON=%s" % path
    if not path:
        return rctx.which("python3"), "no python3 on PATH"
    if "/" not in path:
        # A program's name (python3.12): the first one on PATH.
        return rctx.which(path), "%s: no %s on PATH" % (where, path)
    if not path.startswith("/"):
        # Relative to the root module's directory, where the person who
        # wrote it stands, not to this repository's.
        path = rctx.workspace_root.get_child(path)
    found = rctx.path(path)
    return (found if found.exists else None), "%s: no such file" % where

def _python_local_repository_impl(rctx):
    python, why = _find_python(rctx)
    if python == None:
        write_missing_tool_build(rctx, _TOOLCHAIN_BZL, "python", "%s; %s" % (why, _NEEDS))
        return

    # The interpreter is watched: when it appears, changes or goes, the
    # repository is made again (packages installed into it later are seen
    # when Bazel next checks local repositories, at the server's start).
    rctx.watch(python)
    res = rctx.execute(
        [python, "-s", "-B", rctx.path(_CHECK), TIGERBEETLE_PACKAGE],
        # A test runs without them: what they add here would be missing
        # there.
        environment = {"PYTHONPATH": "", "PYTHONHOME": "", "PYTHONSTARTUP": ""},
    )
    if res.return_code != 0:
        write_missing_tool_build(rctx, _TOOLCHAIN_BZL, "python", "%s does not run: %s; %s" % (python, (res.stderr.strip() or res.stdout.strip())[-2000:], _NEEDS))
        return
    found = json.decode(res.stdout.strip().split("\n")[-1])
    if found["missing"]:
        write_missing_tool_build(rctx, _TOOLCHAIN_BZL, "python", "%s (%s): %s; %s" % (python, found["version"], found["missing"], _NEEDS))
        return

    # A link to the interpreter by the path it was found at, so that a
    # test's inputs hold the interpreter's bytes and no path of the
    # machine (two checkouts share cached results). A virtual
    # environment's python finds its packages from the path it is started
    # by (its pyvenv.cfg one folder up), which a link elsewhere loses: the
    # runner follows the link back to that path (runner/python.go).
    rctx.symlink(python, "bin/python")
    write_tool_build(rctx, _TOOLCHAIN_BZL, "python", [
        ("interpreter", repr("bin/python")),
        ("version", repr(found["version"])),
    ])

python_local_repository = repository_rule(
    implementation = _python_local_repository_impl,
    doc = "A Python interpreter from the machine, checked for the packages chobo's Python driver imports.",
    attrs = {
        "path": attr.string(doc = "The interpreter: a path (relative: to the root module's directory) or a program's name on PATH; " +
                                  "empty: $CHOBO_PYTHON, else the first python3 on PATH."),
    },
    local = True,
    environ = ["CHOBO_PYTHON", "PATH"],
)
