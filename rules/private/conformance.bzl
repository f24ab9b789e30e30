"""chobo_conformance_test: a book's scenarios on a real server, against the interpreter."""

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
    runner = ctx.executable._runner
    exe = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.symlink(output = exe, target_file = runner, is_executable = True)
    runfiles = ctx.runfiles(
        files = [book.src, book.check_output] + ctx.files.scenarios,
        transitive_files = pg.files,
    ).merge(ctx.attr._runner[DefaultInfo].default_runfiles)
    env = {
        "CHOBO_CONFORMANCE_BOOK": _rlocation(ctx, book.src),
        "CHOBO_CONFORMANCE_SCENARIOS": " ".join([_rlocation(ctx, f) for f in ctx.files.scenarios]),
        "CHOBO_CONFORMANCE_INITDB": _rlocation(ctx, pg.initdb),
    }
    return [
        DefaultInfo(executable = exe, runfiles = runfiles),
        RunEnvironmentInfo(environment = env),
    ]

chobo_conformance_test = rule(
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
        "_runner": attr.label(
            default = Label("//rules/private/runner:runner_test"),
            executable = True,
            cfg = "target",
        ),
    },
    toolchains = [_POSTGRES],
    test = True,
)
