"""chobo_conformance_test: a book's scenarios on a real server, against the interpreter."""

load("@rules_go//go:def.bzl", "GoInfo", "go_test")
load(":providers.bzl", "BookInfo")

_POSTGRES = Label("//toolchains/postgres:toolchain_type")

def _rlocation(ctx, f):
    # The runfiles path of a file: "<repo>/<path>", as RUNFILES_DIR holds it.
    if f.short_path.startswith("../"):
        return f.short_path[3:]
    return ctx.workspace_name + "/" + f.short_path

def _chobo_conformance_test_impl(ctx):
    book = ctx.attr.book[BookInfo]
    pg = ctx.toolchains[_POSTGRES].postgres
    if pg.missing:
        fail("%s needs a PostgreSQL server: %s" % (ctx.label, pg.missing))

    # The test is the shared runner itself; what it runs on comes in
    # through the environment (see rules/private/runner/runner_test.go).
    runner = ctx.executable.runner
    exe = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.symlink(output = exe, target_file = runner, is_executable = True)
    runfiles = ctx.runfiles(
        files = [book.src, book.check_output] + ctx.files.scenarios,
        transitive_files = pg.files,
    ).merge(ctx.attr.runner[DefaultInfo].default_runfiles)
    env = {
        "CHOBO_CONFORMANCE_BOOK": _rlocation(ctx, book.src),
        "CHOBO_CONFORMANCE_SCENARIOS": " ".join([_rlocation(ctx, f) for f in ctx.files.scenarios]),
        "CHOBO_CONFORMANCE_INITDB": _rlocation(ctx, pg.initdb),
    }
    return [
        DefaultInfo(executable = exe, runfiles = runfiles),
        RunEnvironmentInfo(environment = env),
    ]

_chobo_conformance_test = rule(
    implementation = _chobo_conformance_test_impl,
    doc = """Runs every scenario of a book on a throwaway PostgreSQL cluster and
compares each run with the reference interpreter.

The scenarios are the ones chobo generates for the book, plus `scenarios`
(hand-written JSON, the format of `chobo run --scenario`). The server comes
from the PostgreSQL toolchain (toolchains/postgres). Holds are shortened to
seconds on a test copy of the book, as in the project's own tests.""",
    attrs = {
        "book": attr.label(providers = [BookInfo], mandatory = True, doc = "A chobo_book target."),
        "scenarios": attr.label_list(allow_files = [".json"], doc = "Hand-written scenario files."),
        "runner": attr.label(
            default = Label("//rules/private/runner:runner_test"),
            executable = True,
            cfg = "target",
            doc = "The runner test binary; chobo_conformance_test picks it.",
        ),
    },
    toolchains = [_POSTGRES],
    test = True,
)

def _go_client_registration_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name + ".go")
    ctx.actions.write(out, """// Written by chobo_conformance_test: the book's Go client, compiled into
// this runner, is one more way to reach the book.
package runner

import client "%s"

func init() { goClient = client.Postgres }
""" % ctx.attr.client[GoInfo].importpath)
    return [DefaultInfo(files = depset([out]))]

_go_client_registration = rule(
    implementation = _go_client_registration_impl,
    attrs = {"client": attr.label(providers = [GoInfo], mandatory = True)},
)

# What the runner imports, as labels of chobo's module.
_RUNNER_DEPS = [
    Label("//chobo/book"),
    Label("//chobo/check"),
    Label("//chobo/scenario"),
    Label("//chobo/target"),
    Label("//chobo/target/postgres"),
    Label("//tests/conformance"),
    Label("//tests/pgtest"),
    Label("@com_github_jackc_pgx_v5//pgxpool"),
]

def chobo_conformance_test(name, book, scenarios = [], client = None, **kwargs):
    """Runs every scenario of a book on a throwaway PostgreSQL cluster and
    compares each run with the reference interpreter.

    The scenarios are the ones chobo generates for the book, plus
    `scenarios` (hand-written JSON, the format of `chobo run --scenario`).
    They run through the book's SQL functions and, when `client` names the
    book's postgres-go chobo_client, through that client too. The server
    comes from the PostgreSQL toolchain (toolchains/postgres). Holds are
    shortened to seconds on a test copy of the book, as in chobo's own
    tests.

    Args:
      name: the test's name.
      book: a chobo_book target.
      scenarios: hand-written scenario files.
      client: optional; a postgres-go chobo_client of the same book.
      **kwargs: passed to the test (size, tags, …).
    """
    runner = None
    if client:
        _go_client_registration(
            name = name + "_client",
            client = client,
            testonly = True,
            tags = ["manual"],
        )
        go_test(
            name = name + "_runner",
            srcs = [Label("//rules/private/runner:runner_test.go"), ":" + name + "_client"],
            deps = _RUNNER_DEPS + [client],
            tags = ["manual"],
        )
        runner = ":" + name + "_runner"
    _chobo_conformance_test(
        name = name,
        book = book,
        scenarios = scenarios,
        runner = runner,
        **kwargs
    )
