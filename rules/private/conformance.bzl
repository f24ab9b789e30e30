"""chobo_conformance_test: a book's scenarios on a real server, against the interpreter."""

load(":providers.bzl", "BookInfo", "ChoboDriverInfo")
load(":targets.bzl", "LANGUAGES")

_POSTGRES = Label("//toolchains/postgres:toolchain_type")
_TIGERBEETLE = Label("//toolchains/tigerbeetle:toolchain_type")

# The toolchains the drivers of every language run on. Each is optional
# here: a test asks for one only when it drives a client of its language.
_DRIVER_TOOLCHAINS = {lang.toolchain: name for name, lang in LANGUAGES.items() if lang.toolchain}

def _rlocation(ctx, f):
    # The runfiles path of a file: "<repo>/<path>", as RUNFILES_DIR holds it.
    if f.short_path.startswith("../"):
        return f.short_path[3:]
    return ctx.workspace_name + "/" + f.short_path

# The attribute takes any target and a .book file, so that what is not a
# chobo_book gets this message rather than Bazel's list of missing
# providers, which does not say what to write instead.
_NOT_A_BOOK = """%s: book = %s is not a chobo_book target. chobo_conformance_test wants the chobo_book of the book, which checks it, for example:
    chobo_book(name = "stock", src = "stock.book")
    chobo_conformance_test(name = "conformance", book = ":stock", clients = [...])"""

def _chobo_conformance_test_impl(ctx):
    if BookInfo not in ctx.attr.book:
        fail(_NOT_A_BOOK % (ctx.label, ctx.attr.book.label))
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
    languages = {}
    for driver in ctx.attr.drivers:
        info = driver[ChoboDriverInfo]
        runfiles = runfiles.merge(info.runfiles)
        drivers.append("%s=%s" % (info.target, _rlocation(ctx, info.entry)))
        if info.toolchain:
            languages[info.language] = info.toolchain
    for language, toolchain in languages.items():
        handed = LANGUAGES[language].toolchain_env(ctx.label, ctx.toolchains[toolchain], lambda f: _rlocation(ctx, f))
        runfiles = runfiles.merge(ctx.runfiles(transitive_files = handed.files))
        env.update(handed.env)
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
        "book": attr.label(allow_files = True, mandatory = True, doc = "A chobo_book target (anything else fails with a message that says so)."),
        "scenarios": attr.label_list(allow_files = [".json"], doc = "Hand-written scenario files."),
        "drivers": attr.label_list(
            cfg = "target",
            providers = [ChoboDriverInfo],
            doc = "What drives each client: <client>_driver, made by chobo_client (a program that speaks the driver protocol, docs/formats.md, or a client's source its language's driver is compiled with).",
        ),
        "_runner": attr.label(
            default = Label("//rules/private/runner"),
            executable = True,
            cfg = "target",
        ),
    },
    toolchains = [_POSTGRES, _TIGERBEETLE] + [config_common.toolchain_type(t, mandatory = False) for t in _DRIVER_TOOLCHAINS],
    test = True,
)

def _beside(client, suffix):
    # chobo_client makes <name>_driver beside the library <name>.
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
      clients: chobo_client targets of the same book, of any client
        target (TARGETS in rules/private/targets.bzl).
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
        **kwargs
    )
