"""chobo_conformance_test: a book's scenarios on a real server, against the interpreter."""

load(":providers.bzl", "BookInfo", "ChoboDriverInfo")
load(":targets.bzl", "LANGUAGES", "TARGETS")

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

# A client of another book would be driven with this book's scenarios and
# fail at the first call with a message about a missing field; said here,
# at analysis, it names both books.
_OTHER_BOOK = """%s: clients = %s is a client of %s, not of %s, the book of this test: a conformance test runs its own book's scenarios, so each of its clients must be a chobo_client with book = %s (a client of the other book goes in that book's own chobo_conformance_test)"""

def _client_of(driver):
    # chobo_client names its driver <client>_driver; the message names the
    # client, which is what the BUILD file lists.
    name = driver.name
    if name.endswith("_driver"):
        name = name[:-len("_driver")]
    return str(driver.same_package_label(name))

# The parts of a conformance test, each a test target of its own (the
# runner's CHOBO_CONFORMANCE_PARTS): name suffix -> which clients it
# drives, by their target's backend and language.
_POSTGRES_PART = "postgres"
_MODEL_PART = "tigerbeetle-model"
_REPLICA_PART = "tigerbeetle"
_PARTS = {
    _POSTGRES_PART: struct(suffix = "_postgres", drives = lambda spec: spec.backend == "postgres"),
    _MODEL_PART: struct(suffix = "_tigerbeetle_model", drives = lambda spec: spec.backend == "tigerbeetle" and LANGUAGES[spec.language].model),
    _REPLICA_PART: struct(suffix = "_tigerbeetle", drives = lambda spec: spec.backend == "tigerbeetle"),
}

# What the real-replica part is compatible with: decided by the
# TigerBeetle toolchain's repositories from whether they found a binary
# (toolchains/tigerbeetle/repositories.bzl).
_REPLICA = Label("@tigerbeetle_toolchains//:replica")

def _written(ctx, part):
    # The test as its BUILD file names it: messages name the
    # chobo_conformance_test the user wrote, not the part Bazel analyses.
    label = str(ctx.label)
    return label[:len(label) - len(part.suffix)]

def _chobo_conformance_test_impl(ctx):
    part = _PARTS[ctx.attr.part]
    test = _written(ctx, part)
    if BookInfo not in ctx.attr.book:
        fail(_NOT_A_BOOK % (test, ctx.attr.book.label))
    book = ctx.attr.book[BookInfo]

    # The test is the shared runner itself; what it runs on comes in
    # through the environment (see rules/private/runner/main.go).
    runner = ctx.executable._runner
    exe = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.symlink(output = exe, target_file = runner, is_executable = True)

    # The versions a deploy step names are read from the scenario file's
    # folder, as `chobo run` reads them: in the runfiles, each file is
    # where it is in the source tree.
    runfiles = ctx.runfiles(
        files = [book.src, book.check_output] + ctx.files.scenarios + ctx.files.versions,
    ).merge(ctx.attr._runner[DefaultInfo].default_runfiles)
    env = {
        "CHOBO_CONFORMANCE_BOOK": _rlocation(ctx, book.src),
        "CHOBO_CONFORMANCE_SCENARIOS": " ".join([_rlocation(ctx, f) for f in ctx.files.scenarios]),
        "CHOBO_CONFORMANCE_PARTS": ctx.attr.part,
    }

    # Each part takes only the servers it runs on, so that a binary that
    # comes or goes runs again only the part on a real replica.
    if ctx.attr.part == _POSTGRES_PART:
        pg = ctx.toolchains[_POSTGRES].postgres
        if pg.missing:
            fail("%s needs a PostgreSQL server: %s" % (test, pg.missing))
        runfiles = runfiles.merge(ctx.runfiles(transitive_files = pg.files))
        env["CHOBO_CONFORMANCE_INITDB"] = _rlocation(ctx, pg.initdb)
    if ctx.attr.part == _REPLICA_PART:
        tb = ctx.toolchains[_TIGERBEETLE].tigerbeetle
        env["CHOBO_CONFORMANCE_TIGERBEETLE_MISSING"] = tb.missing
        env["CHOBO_CONFORMANCE_TIGERBEETLE_ERROR"] = tb.error
        if tb.binary:
            runfiles = runfiles.merge(ctx.runfiles(files = [tb.binary]))
            env["CHOBO_CONFORMANCE_TIGERBEETLE"] = _rlocation(ctx, tb.binary)
    drivers = []
    languages = {}
    for driver in ctx.attr.drivers:
        info = driver[ChoboDriverInfo]
        if info.book.path != book.src.path:
            fail(_OTHER_BOOK % (test, _client_of(driver.label), info.book.path, book.src.path, ctx.attr.book.label))
        if not part.drives(TARGETS[info.target]):
            continue
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
    doc = """Runs every scenario of a book on the backends of one part and the
clients given of that part, and compares each run with the reference
interpreter.

The scenarios are the ones chobo generates for the book, plus `scenarios`
(hand-written JSON, the format of `chobo run --scenario`). The part
`postgres` runs on PostgreSQL from its toolchain (toolchains/postgres);
`tigerbeetle-model` runs the TigerBeetle clients that reach it on chobo's
model of TigerBeetle; `tigerbeetle` runs every TigerBeetle client on a
real replica of the TigerBeetle toolchain's binary
(toolchains/tigerbeetle). Holds are shortened to seconds on a test copy of
the book, as in the project's own tests.""",
    attrs = {
        "book": attr.label(allow_files = True, mandatory = True, doc = "A chobo_book target (anything else fails with a message that says so)."),
        "part": attr.string(mandatory = True, values = sorted(_PARTS.keys()), doc = "What the test runs on; clients of another part are left out."),
        "scenarios": attr.label_list(allow_files = [".json"], doc = "Hand-written scenario files."),
        "versions": attr.label_list(allow_files = [".book"], doc = "The other versions of the book that the scenarios' deploy steps name (`{\"deploy\": \"stock.v2.book\"}`), each a path from its scenario file's folder."),
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

def _client_target(client):
    """The chobo target of a client, when the BUILD file has declared it by now.

    A client declared in this package above the test is known while the
    file is read (its <name>_srcs rule says its target); any other is
    None, and the test gets every part the client could be of.
    """
    label = native.package_relative_label(client)
    if label.package != native.package_name() or label != native.package_relative_label(":" + label.name):
        return None
    srcs = native.existing_rule(label.name + "_srcs")
    if not srcs or "target" not in srcs or srcs["target"] not in TARGETS:
        return None
    return srcs["target"]

def _parts(clients):
    """The parts a test of these clients has, each with its clients."""
    parts = {_POSTGRES_PART: []}
    for client in clients:
        target = _client_target(client)
        for name, part in _PARTS.items():
            if target == None or part.drives(TARGETS[target]):
                parts.setdefault(name, []).append(client)

    # In the order of _PARTS, which is the order of the suite.
    return {name: parts[name] for name in _PARTS if name in parts}

# The most pairs a part runs side by side within a small test's minute,
# with room to spare on a runner of two cores that runs two tests at a
# time. Measured there, busy with other work besides: a PostgreSQL
# cluster starts in under a second, a replica in 1 to 19 s; four pairs
# of about 40 scenarios each end together in 4 to 6 s, where one alone
# takes 3 to 4 s (most of a pair's time is spent waiting for holds to
# expire, which pairs do together; what they add is their calls' share
# of the cores). A part of the examples takes 25 s at worst. One client
# of each target makes at most four pairs a part; more clients than that
# (several of one target) make the test medium.
_SMALL_PAIRS = 4

def _size(part, clients):
    """The size of a part's test, from the number of pairs it runs."""
    pairs = clients + (1 if part == _POSTGRES_PART else 0)  # the SQL functions
    return "small" if pairs <= _SMALL_PAIRS else "medium"

def chobo_conformance_test(name, book, scenarios = [], versions = [], client = None, clients = [], **kwargs):
    """Checks a book on every backend and client given against the interpreter.

    Runs every scenario of a book and compares each run with the reference
    interpreter: on a throwaway PostgreSQL cluster through the book's SQL
    functions, and through each client in `clients`, driven as a process
    (`<client>_driver`, which chobo_client makes): every PostgreSQL
    client on the same cluster, a tigerbeetle-go client on chobo's model
    of TigerBeetle and, when the TigerBeetle toolchain has a binary, every
    TigerBeetle client on a real replica. Each client is driven by its
    language's driver, on the toolchain the language names, if any, which
    lives in the language's folder (lang/<language>/toolchain).
    Each log ends with one line per pair.

    The scenarios are the ones chobo generates for the book, plus
    `scenarios` (hand-written JSON, the format of `chobo run --scenario`),
    whose `expect` and `outcomes` are checked on every pair. Holds are
    shortened to seconds on a test copy of the book, as in chobo's own
    tests.

    A scenario may deploy a new version of the book: the bound-change
    families chobo generates derive it from the book, and a hand-written
    step `{"deploy": "stock.v2.book"}` names its file, which goes in
    `versions`. The SQL functions run these scenarios on a database of
    their own on the cluster, each version loaded there as its owner; a
    client is built for one version, and its pair names each of them in
    a SKIP line instead.

    Each part is a test of its own, and `name` is a test_suite of them:

    - `<name>_postgres`: the SQL functions and the PostgreSQL clients;
    - `<name>_tigerbeetle_model`: the TigerBeetle clients that reach
      chobo's model of TigerBeetle (Go ones), when there are any;
    - `<name>_tigerbeetle`: every TigerBeetle client on a real replica,
      when there are any. Without a TigerBeetle binary it is incompatible,
      and `bazel test //pkg:<name>` (or `//...`) reports it SKIPPED, with
      "1 was skipped" in the summary, rather than passing it.

    A client is sorted into its part by the chobo_client declared above
    the test in the same package; one from elsewhere, or declared below,
    goes to every part, whose test drives it only where it belongs.

    Args:
      name: the name of the test_suite; the parts' tests are named after it.
      book: a chobo_book target.
      scenarios: hand-written scenario files.
      versions: the files of the versions the scenarios' deploy steps
        name, each where the step's path from its scenario file's folder
        leads (`stock.v2.book` beside `stock.more.json`).
      client: optional; one chobo_client of the same book (the same as
        clients = [client]).
      clients: chobo_client targets of the same book, of any client
        target (TARGETS in rules/private/targets.bzl).
      **kwargs: passed to every part's test (size, timeout, tags,
        target_compatible_with, visibility, …); tags and visibility to
        the test_suite too. Without a size, a part that runs up to four
        pairs (the SQL functions and one client of each language, on one
        backend) is small: it starts its server and runs its pairs side
        by side in well under a minute, even on two busy cores; a part of
        more pairs is medium.
    """
    all_clients = ([client] if client else []) + clients
    tests = []
    for part, part_clients in _parts(all_clients).items():
        test_kwargs = dict(kwargs)
        test_kwargs.setdefault("size", _size(part, len(part_clients)))
        if part == _REPLICA_PART:
            test_kwargs["target_compatible_with"] = kwargs.get("target_compatible_with", []) + [_REPLICA]
        _chobo_conformance_test(
            name = name + _PARTS[part].suffix,
            book = book,
            scenarios = scenarios,
            versions = versions,
            part = part,
            drivers = [_beside(c, "_driver") for c in part_clients],
            **test_kwargs
        )
        tests.append(":" + name + _PARTS[part].suffix)
    native.test_suite(
        name = name,
        tests = tests,
        tags = kwargs.get("tags"),
        visibility = kwargs.get("visibility"),
    )
