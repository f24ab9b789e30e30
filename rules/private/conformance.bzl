"""chobo_conformance_test: a book's scenarios on a real server, against the interpreter."""

load("@rules_go//go:def.bzl", "GoInfo", "go_binary")
load(":providers.bzl", "BookInfo", "ChoboGeneratedInfo")

_POSTGRES = Label("//toolchains/postgres:toolchain_type")
_TIGERBEETLE = Label("//toolchains/tigerbeetle:toolchain_type")

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
    tb = ctx.toolchains[_TIGERBEETLE].tigerbeetle

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
        "CHOBO_CONFORMANCE_TIGERBEETLE_MISSING": tb.missing,
        "CHOBO_CONFORMANCE_TIGERBEETLE_ERROR": tb.error,
    }
    if tb.binary:
        runfiles = runfiles.merge(ctx.runfiles(files = [tb.binary]))
        env["CHOBO_CONFORMANCE_TIGERBEETLE"] = _rlocation(ctx, tb.binary)
    drivers = []
    for srcs, driver in zip(ctx.attr.client_srcs, ctx.attr.drivers):
        target = srcs[ChoboGeneratedInfo].target
        program = driver[DefaultInfo].files_to_run.executable
        runfiles = runfiles.merge(ctx.runfiles(files = [program])).merge(driver[DefaultInfo].default_runfiles)
        drivers.append("%s=%s" % (target, _rlocation(ctx, program)))
    env["CHOBO_CONFORMANCE_DRIVERS"] = " ".join(drivers)
    return [
        DefaultInfo(executable = exe, runfiles = runfiles),
        RunEnvironmentInfo(environment = env),
    ]

_chobo_conformance_test = rule(
    implementation = _chobo_conformance_test_impl,
    doc = """Runs every scenario of a book on every backend and client given and
compares each run with the reference interpreter.

The scenarios are the ones chobo generates for the book, plus `scenarios`
(hand-written JSON, the format of `chobo run --scenario`). PostgreSQL comes
from its toolchain (toolchains/postgres); TigerBeetle clients run on
chobo's model of TigerBeetle, and on a real replica when the TigerBeetle
toolchain (toolchains/tigerbeetle) has a binary. Holds are shortened to
seconds on a test copy of the book, as in the project's own tests.""",
    attrs = {
        "book": attr.label(providers = [BookInfo], mandatory = True, doc = "A chobo_book target."),
        "scenarios": attr.label_list(allow_files = [".json"], doc = "Hand-written scenario files."),
        "drivers": attr.label_list(
            cfg = "target",
            doc = "Programs that drive the book's clients through the driver protocol (docs/formats.md).",
        ),
        "client_srcs": attr.label_list(
            providers = [ChoboGeneratedInfo],
            doc = "The generated sources of each driver's client, in the order of drivers: they say its target.",
        ),
        "_runner": attr.label(
            default = Label("//rules/private/runner"),
            executable = True,
            cfg = "target",
        ),
    },
    toolchains = [_POSTGRES, _TIGERBEETLE],
    test = True,
)

def _go_driver_main_impl(ctx):
    # The text comes from godriver.MainSource, through a small tool, so it
    # is written in Go in one place and not again here.
    out = ctx.actions.declare_file(ctx.label.name + "/main.go")
    ctx.actions.run(
        executable = ctx.executable._drivermain,
        arguments = [ctx.attr.srcs[ChoboGeneratedInfo].target, ctx.attr.client[GoInfo].importpath, out.path],
        outputs = [out],
        mnemonic = "ChoboGoDriver",
        progress_message = "Writing the driver of %{label}",
    )
    return [DefaultInfo(files = depset([out]))]

_go_driver_main = rule(
    implementation = _go_driver_main_impl,
    doc = "The main package of a Go client's driver: the client handed to godriver.Main (or MainTigerBeetle).",
    attrs = {
        "client": attr.label(providers = [GoInfo], mandatory = True),
        "srcs": attr.label(providers = [ChoboGeneratedInfo], mandatory = True, doc = "The client's generated sources, which say its target."),
        "_drivermain": attr.label(
            default = Label("//rules/private/runner/drivermain"),
            executable = True,
            cfg = "exec",
        ),
    },
)

def _srcs_of(client):
    # chobo_client makes <name>_srcs beside the library <name>.
    if ":" in client:
        return client + "_srcs"
    return client + ":" + client.split("/")[-1] + "_srcs"

def chobo_conformance_test(name, book, scenarios = [], client = None, clients = [], **kwargs):
    """Checks a book on every backend and client given against the interpreter.

    Runs every scenario of a book and compares each run with the reference
    interpreter: on a throwaway PostgreSQL cluster through the book's SQL
    functions, and through each client in `clients`, driven as a process
    (`<name>_driver_<i>`, built here): a postgres-go client on the same
    cluster, a tigerbeetle-go client on chobo's model of TigerBeetle and,
    when the TigerBeetle toolchain has a binary, on a real replica (else
    the log says SKIP). The log ends with one line per pair.

    The scenarios are the ones chobo generates for the book, plus
    `scenarios` (hand-written JSON, the format of `chobo run --scenario`),
    whose `expect` and `outcomes` are checked on every pair. Holds are
    shortened to seconds on a test copy of the book, as in chobo's own
    tests.

    Args:
      name: the test's name.
      book: a chobo_book target.
      scenarios: hand-written scenario files.
      client: optional; one chobo_client of the same book (the same as
        clients = [client]).
      clients: chobo_client targets of the same book (postgres-go,
        tigerbeetle-go).
      **kwargs: passed to the test (size, timeout, tags, …). The size is
        small by default: a book's scenarios take seconds, and a larger
        size only makes Bazel warn that it is too big.
    """
    kwargs.setdefault("size", "small")
    all_clients = ([client] if client else []) + clients
    drivers = []
    for i, c in enumerate(all_clients):
        # testonly: a test may use a testonly client, and nothing but the
        # test needs these.
        _go_driver_main(
            name = "%s_driver_main_%d" % (name, i),
            client = c,
            srcs = _srcs_of(c),
            testonly = True,
            tags = ["manual"],
        )
        go_binary(
            name = "%s_driver_%d" % (name, i),
            srcs = [":%s_driver_main_%d" % (name, i)],
            deps = [c, Label("//chobo/conformance/godriver")],
            testonly = True,
            tags = ["manual"],
        )
        drivers.append(":%s_driver_%d" % (name, i))
    _chobo_conformance_test(
        name = name,
        book = book,
        scenarios = scenarios,
        drivers = drivers,
        client_srcs = [_srcs_of(c) for c in all_clients],
        **kwargs
    )
