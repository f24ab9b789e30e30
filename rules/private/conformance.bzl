"""chobo_conformance_test: a book's scenarios on a real server, against the interpreter."""

load("@rules_go//go:def.bzl", "GoInfo", "go_binary")
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
    # through the environment (see rules/private/runner/main.go).
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
    if ctx.attr.driver:
        driver = ctx.executable.driver
        runfiles = runfiles.merge(ctx.runfiles(files = [driver])).merge(ctx.attr.driver[DefaultInfo].default_runfiles)
        env["CHOBO_CONFORMANCE_DRIVER"] = _rlocation(ctx, driver)
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
        "driver": attr.label(
            executable = True,
            cfg = "target",
            doc = "A program that drives the book's client through the driver protocol (docs/formats.md).",
        ),
        "_runner": attr.label(
            default = Label("//rules/private/runner"),
            executable = True,
            cfg = "target",
        ),
    },
    toolchains = [_POSTGRES],
    test = True,
)

def _go_driver_main_impl(ctx):
    # The text comes from godriver.MainSource, through a small tool, so it
    # is written in Go in one place and not again here.
    out = ctx.actions.declare_file(ctx.label.name + "/main.go")
    ctx.actions.run(
        executable = ctx.executable._drivermain,
        arguments = [ctx.attr.client[GoInfo].importpath, out.path],
        outputs = [out],
        mnemonic = "ChoboGoDriver",
        progress_message = "Writing the driver of %{label}",
    )
    return [DefaultInfo(files = depset([out]))]

_go_driver_main = rule(
    implementation = _go_driver_main_impl,
    doc = "The main package of a Go client's driver: the client handed to godriver.Main.",
    attrs = {
        "client": attr.label(providers = [GoInfo], mandatory = True),
        "_drivermain": attr.label(
            default = Label("//rules/private/runner/drivermain"),
            executable = True,
            cfg = "exec",
        ),
    },
)

def chobo_conformance_test(name, book, scenarios = [], client = None, **kwargs):
    """Checks a book's SQL (and Go client) on PostgreSQL against the interpreter.

    Runs every scenario of a book on a throwaway PostgreSQL cluster and
    compares each run with the reference interpreter.

    The scenarios are the ones chobo generates for the book, plus
    `scenarios` (hand-written JSON, the format of `chobo run --scenario`).
    They run through the book's SQL functions and, when `client` names the
    book's postgres-go chobo_client, through that client too, driven as a
    process (`<name>_driver`, built here). The server comes from the
    PostgreSQL toolchain (toolchains/postgres). Holds are shortened to
    seconds on a test copy of the book, as in chobo's own tests.

    Args:
      name: the test's name.
      book: a chobo_book target.
      scenarios: hand-written scenario files.
      client: optional; a postgres-go chobo_client of the same book.
      **kwargs: passed to the test (size, tags, …).
    """
    driver = None
    if client:
        # testonly: a test may use a testonly client, and nothing but the
        # test needs these.
        _go_driver_main(
            name = name + "_driver_main",
            client = client,
            testonly = True,
            tags = ["manual"],
        )
        go_binary(
            name = name + "_driver",
            srcs = [":" + name + "_driver_main"],
            deps = [client, Label("//chobo/conformance/godriver")],
            testonly = True,
            tags = ["manual"],
        )
        driver = ":" + name + "_driver"
    _chobo_conformance_test(
        name = name,
        book = book,
        scenarios = scenarios,
        driver = driver,
        **kwargs
    )
