"""What the Bazel rules know of Python clients: LANGUAGE, which the registry in rules/private/targets.bzl lists.

Its fields are the ones every language gives (targets.bzl says what each
means); nothing outside lang/python names them.
"""

load("@rules_python//python:defs.bzl", "py_library")

# A language's folder is part of chobo's rules: it makes its drivers with
# the rules' own chobo_driver.
load("//rules/private:driver.bzl", "chobo_driver")  # buildifier: disable=bzl-visibility

def _library(name, srcs, importpath, deps, visibility, tags):  # buildifier: disable=unused-variable
    # A Python client is one self-contained module named after the book;
    # chobo_client_srcs writes it under a directory named after itself
    # (<name>_srcs), which `imports` puts on sys.path so that a py_binary
    # or py_test that depends on the library imports it by the book's name
    # (import stock). What it imports besides the standard library
    # (psycopg, or the tigerbeetle package) is the user's to provide.
    py_library(
        name = name,
        srcs = srcs,
        imports = [name + "_srcs"],
        deps = deps,
        visibility = visibility,
        tags = tags,
    )

_TOOLCHAIN = Label("//lang/python/toolchain:toolchain_type")

def _driver(name, client, srcs, visibility, tags):  # buildifier: disable=unused-variable
    # chobo's Python driver, laid out beside the client by the runner and
    # run on the Python toolchain: the driver of a client is its source.
    chobo_driver(
        name = name,
        srcs = srcs,
        toolchain = _TOOLCHAIN,
        testonly = True,
        tags = tags,
        visibility = visibility,
    )

def _toolchain_env(label, python, rlocation):
    # The interpreter, with psycopg and tigerbeetle, for the runner's
    # Python row. The packages are not among the test's inputs (they live
    # where the interpreter is installed); their versions are handed over
    # with it, so that a test whose packages change runs again.
    if python == None or python.python.missing:
        fail("%s drives a Python client and needs Python: %s" % (label, python.python.missing if python else "no Python toolchain is registered (lang/python/toolchain)"))
    return struct(
        env = {
            "CHOBO_CONFORMANCE_PYTHON": rlocation(python.python.interpreter),
            "CHOBO_CONFORMANCE_PYTHON_VERSION": python.python.version,
        },
        files = python.python.files,
    )

# The client targets of the language, as TARGETS in targets.bzl has them.
# One module named after the book (stock.book -> stock.py, imported as
# `stock`), which carries chobo's Python runtime: nothing of chobo to
# depend on. It imports psycopg or psycopg2 (PostgreSQL) or the official
# tigerbeetle package (TigerBeetle), which the user's Python environment
# provides.
TARGETS = {
    "postgres-python": struct(
        backend = "postgres",
        language = "python",
        files = ["<book>.py"],
        deps = [],
    ),
    "tigerbeetle-python": struct(
        backend = "tigerbeetle",
        language = "python",
        files = ["<book>.py"],
        deps = [],
    ),
}

LANGUAGE = struct(
    name = "python",
    defs = Label(":defs"),
    library = _library,
    importpath = False,
    driver = _driver,
    toolchain = _TOOLCHAIN,
    toolchain_env = _toolchain_env,
    model = False,
    targets = TARGETS,
)
