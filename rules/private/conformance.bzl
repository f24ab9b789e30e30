"""chobo_conformance_test: a book's scenarios on a real server, against the interpreter."""

load(":providers.bzl", "BookInfo", "ChoboGeneratedInfo")

_POSTGRES = Label("//toolchains/postgres:toolchain_type")
_TIGERBEETLE = Label("//toolchains/tigerbeetle:toolchain_type")
_NODE = Label("//toolchains/node:toolchain_type")

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
    typescript = False
    for srcs, driver in zip(ctx.attr.client_srcs, ctx.attr.drivers):
        gen = srcs[ChoboGeneratedInfo]
        if gen.language == "typescript":
            # Compiled with chobo's TypeScript driver by the runner.
            typescript = True
            runfiles = runfiles.merge(ctx.runfiles(files = gen.srcs))
            drivers.append("%s=%s" % (gen.target, _rlocation(ctx, gen.srcs[0])))
            continue
        program = driver[DefaultInfo].files_to_run.executable
        if program == None:
            fail("%s: %s is not a client's driver (<client>_driver, made by chobo_client)" % (ctx.label, driver.label))
        runfiles = runfiles.merge(ctx.runfiles(files = [program])).merge(driver[DefaultInfo].default_runfiles)
        drivers.append("%s=%s" % (gen.target, _rlocation(ctx, program)))
    if typescript:
        node = ctx.toolchains[_NODE]
        if node == None or node.node.missing:
            fail("%s drives a TypeScript client and needs Node: %s" % (ctx.label, node.node.missing if node else "no Node toolchain is registered (toolchains/node)"))
        runfiles = runfiles.merge(ctx.runfiles(transitive_files = node.node.files))
        env["CHOBO_CONFORMANCE_NODE"] = _rlocation(ctx, node.node.node)
        env["CHOBO_CONFORMANCE_NODE_MODULES"] = _rlocation(ctx, node.node.modules)
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
            doc = "What drives each client: <client>_driver, made by chobo_client (a program that speaks the driver protocol, docs/formats.md, or a TypeScript client's source).",
        ),
        "client_srcs": attr.label_list(
            providers = [ChoboGeneratedInfo],
            doc = "The generated sources of each client, in the order of drivers: they say its target and language.",
        ),
        "_runner": attr.label(
            default = Label("//rules/private/runner"),
            executable = True,
            cfg = "target",
        ),
    },
    toolchains = [_POSTGRES, _TIGERBEETLE, config_common.toolchain_type(_NODE, mandatory = False)],
    test = True,
)

def _beside(client, suffix):
    # chobo_client makes <name>_srcs and <name>_driver beside the library <name>.
    if ":" in client:
        return client + suffix
    return client + ":" + client.split("/")[-1] + suffix

def chobo_conformance_test(name, book, scenarios = [], client = None, clients = [], **kwargs):
    """Checks a book on every backend and client given against the interpreter.

    Runs every scenario of a book and compares each run with the reference
    interpreter: on a throwaway PostgreSQL cluster through the book's SQL
    functions, and through each client in `clients`, driven as a process
    (`<client>_driver`, which chobo_client makes): a postgres-go or
    postgres-typescript client on the same cluster, a tigerbeetle-go client
    on chobo's model of TigerBeetle and, when the TigerBeetle toolchain has
    a binary, on a real replica (else the log says SKIP), where a
    tigerbeetle-typescript client runs too (tigerbeetle-node reaches only a
    real replica). A TypeScript client is compiled with tsc and driven by
    chobo's TypeScript driver on the Node toolchain (toolchains/node). The
    log ends with one line per pair.

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
        tigerbeetle-go, postgres-typescript, tigerbeetle-typescript).
      **kwargs: passed to the test (size, timeout, tags, …). The size is
        small by default: a book's scenarios take seconds, and a larger
        size only makes Bazel warn that it is too big.
    """
    kwargs.setdefault("size", "small")
    all_clients = ([client] if client else []) + clients
    _chobo_conformance_test(
        name = name,
        book = book,
        scenarios = scenarios,
        drivers = [_beside(c, "_driver") for c in all_clients],
        client_srcs = [_beside(c, "_srcs") for c in all_clients],
        **kwargs
    )
