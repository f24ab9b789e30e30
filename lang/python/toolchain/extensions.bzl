"""The `python` module extension: the Python a Python client's conformance test runs on.

    python = use_extension("@chobo//lang/python/toolchain:extensions.bzl", "python")
    python.local()                                   # $CHOBO_PYTHON, else the first python3 on PATH
    python.local(path = "/opt/venv/bin/python")      # an interpreter of your own
    python.local(path = ".venv/bin/python")          # relative: the root module's directory

The interpreter must be Python 3.11 or newer and import psycopg 3,
psycopg2 and the official tigerbeetle package at the version of chobo's
TigerBeetle server (0.17.9): what chobo's Python driver uses to reach
PostgreSQL and TigerBeetle. The extension installs nothing; a virtual
environment that holds them is the usual interpreter to name. It is
checked when its repository is made, and one that is not there or lacks a
package leaves the toolchain `missing`, with the reason: only a
conformance test of a Python client fails then, and says it.

The root module's tags win; when it has none, chobo's `local()` is used.
`@python_toolchains` holds the toolchain() targets, which chobo registers.
"""

# A language's toolchain is one of chobo's toolchains, kept in the
# language's folder: it shares their private helpers.
load("//toolchains/private:local_tool.bzl", "make_installations")  # buildifier: disable=bzl-visibility
load(":repositories.bzl", "python_local_repository")

_local = tag_class(
    doc = "A Python interpreter on the machine.",
    attrs = {
        "path": attr.string(doc = "The interpreter: a path (relative: to the root module's directory) or a program's name on PATH; " +
                                  "empty: $CHOBO_PYTHON (the same), else the first python3 on PATH."),
    },
)

def _local_repository(name, tag):
    python_local_repository(name = name, path = tag.path)

def _python_impl(mctx):
    make_installations(
        mctx,
        tool = "python",
        toolchain_type = str(Label("//lang/python/toolchain:toolchain_type")),
        kinds = {"local": _local_repository},
        default = [("local", struct(path = ""))],
    )

python = module_extension(
    implementation = _python_impl,
    tag_classes = {"local": _local},
)
