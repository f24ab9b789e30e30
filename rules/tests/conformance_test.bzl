"""Tests of chobo_conformance_test: a book that is not a chobo_book, a client of another book, and the parts the macro makes."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("//rules:defs.bzl", "chobo_book", "chobo_client", "chobo_conformance_test")
load("//rules/private:targets.bzl", "DEFAULT_TARGET", "LANGUAGES", "TARGETS")

def _fails_with_message_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "is not a chobo_book target. chobo_conformance_test wants the chobo_book of the book")
    asserts.expect_failure(env, "book = %s" % ctx.attr.book_label)

    # The message names the test as the BUILD file writes it, not the part.
    asserts.expect_failure(env, "%s: book = " % ctx.attr.test_label)
    return analysistest.end(env)

_fails_with_message_test = analysistest.make(
    _fails_with_message_impl,
    expect_failure = True,
    attrs = {"book_label": attr.string(), "test_label": attr.string()},
)

def conformance_book_tests(name):
    """The cases: a filegroup, and the .book file itself.

    Args:
      name: the prefix of the targets.
    """
    native.filegroup(name = name + "_not_a_book", srcs = [], tags = ["manual"])
    cases = {
        "filegroup": ":" + name + "_not_a_book",
        "file": "stock.book",
    }
    tests = []
    for case, book in cases.items():
        chobo_conformance_test(name = name + "_" + case, book = book, tags = ["manual"])
        _fails_with_message_test(
            name = name + "_" + case + "_test",
            # The macro's test of its PostgreSQL part: the suite named
            # after it only groups the parts.
            target_under_test = ":" + name + "_" + case + "_postgres",
            book_label = str(native.package_relative_label(book)),
            test_label = str(native.package_relative_label(":" + name + "_" + case)),
        )
        tests.append(":" + name + "_" + case + "_test")
    native.test_suite(name = name, tests = tests)

def _fails_with_impl(ctx):
    env = analysistest.begin(ctx)
    for m in ctx.attr.messages:
        asserts.expect_failure(env, m)
    return analysistest.end(env)

_fails_with_test = analysistest.make(
    _fails_with_impl,
    expect_failure = True,
    attrs = {"messages": attr.string_list(doc = "Texts the analysis failure must hold.")},
)

def conformance_other_book_tests(name):
    """A client of another book is refused at analysis, naming both books; a client of a second chobo_book of the same file is not.

    Args:
      name: the prefix of the targets.
    """
    chobo_book(name = name + "_stock", src = "stock.book", tags = ["manual"])
    chobo_book(name = name + "_stock_again", src = "stock.book", tags = ["manual"])
    chobo_book(name = name + "_other", src = "other.book", tags = ["manual"])
    for book in ["stock", "other"]:
        chobo_client(
            name = name + "_" + book + "_go",
            book = ":" + name + "_" + book,
            importpath = "example.com/books/" + book,
            tags = ["manual"],
        )
    chobo_conformance_test(
        name = name + "_mixed",
        book = ":" + name + "_stock",
        clients = [":" + name + "_stock_go", ":" + name + "_other_go"],
        tags = ["manual"],
    )
    _fails_with_test(
        name = name + "_mixed_test",
        target_under_test = ":" + name + "_mixed_postgres",
        messages = [
            "clients = %s is a client of rules/tests/other.book, not of rules/tests/stock.book, the book of this test" % native.package_relative_label(":" + name + "_other_go"),
            "book = %s" % native.package_relative_label(":" + name + "_stock"),
        ],
    )
    chobo_conformance_test(
        name = name + "_same_file",
        book = ":" + name + "_stock_again",
        clients = [":" + name + "_stock_go"],
        tags = ["manual"],
    )
    _drives_test(
        name = name + "_same_file_test",
        target_under_test = ":" + name + "_same_file_postgres",
        part = "postgres",
        drivers = ["postgres-go"],
    )
    native.test_suite(name = name, tests = [":" + name + "_mixed_test", ":" + name + "_same_file_test"])

def _drives_impl(ctx):
    env = analysistest.begin(ctx)
    got = analysistest.target_under_test(env)[RunEnvironmentInfo].environment
    asserts.equals(env, ctx.attr.part, got.get("CHOBO_CONFORMANCE_PARTS"))
    drivers = sorted([d.split("=")[0] for d in got.get("CHOBO_CONFORMANCE_DRIVERS", "").split(" ") if d])
    asserts.equals(env, sorted(ctx.attr.drivers), drivers)

    # Only the part on a real replica is handed the TigerBeetle toolchain,
    # only the PostgreSQL part the PostgreSQL one.
    asserts.equals(env, ctx.attr.part == "tigerbeetle", "CHOBO_CONFORMANCE_TIGERBEETLE_MISSING" in got)
    asserts.equals(env, ctx.attr.part == "postgres", "CHOBO_CONFORMANCE_INITDB" in got)
    return analysistest.end(env)

_drives_test = analysistest.make(
    _drives_impl,
    attrs = {
        "part": attr.string(),
        "drivers": attr.string_list(doc = "The chobo targets of the clients the part drives."),
    },
)

def _loading_check_impl(ctx):
    # What the macro declared, checked while the BUILD file was read: the
    # test fails, listing what was wrong.
    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    lines = ["#!/bin/sh"]
    for f in ctx.attr.failures:
        lines.append("echo %s" % repr("FAIL: " + f))
    lines.append("exit %d" % (1 if ctx.attr.failures else 0))
    ctx.actions.write(script, "\n".join(lines) + "\n", is_executable = True)
    return [DefaultInfo(executable = script)]

_loading_check_test = rule(
    implementation = _loading_check_impl,
    attrs = {"failures": attr.string_list()},
    test = True,
)

def conformance_part_tests(name):
    """The parts chobo_conformance_test makes, and what each drives.

    Args:
      name: the prefix of the targets.
    """
    chobo_book(name = name + "_stock", src = "stock.book", tags = ["manual"])

    # A client of each target of the registry, of one book.
    clients = {}
    for target in sorted(TARGETS.keys()):
        client = name + "_" + target.replace("-", "_")
        chobo_client(
            name = client,
            book = ":" + name + "_stock",
            target = target,
            importpath = "example.com/parts/" + target.replace("-", "_"),
            package = "stock",
            tags = ["manual"],
        )
        clients[target] = ":" + client
    pg = [t for t in sorted(TARGETS.keys()) if TARGETS[t].backend == "postgres"]
    tb = [t for t in sorted(TARGETS.keys()) if TARGETS[t].backend == "tigerbeetle"]
    model = [t for t in tb if LANGUAGES[TARGETS[t].language].model]
    every = name + "_every"
    chobo_conformance_test(name = every, book = ":" + name + "_stock", clients = clients.values(), tags = ["manual"])
    pg_only = name + "_pg_only"
    chobo_conformance_test(name = pg_only, book = ":" + name + "_stock", clients = [clients[t] for t in pg], tags = ["manual"])

    # Declared after the test: not known while the file is read, so it
    # goes to every part, and each drives it only where it belongs.
    late = name + "_late"
    chobo_conformance_test(name = late, book = ":" + name + "_stock", clients = [":" + name + "_late_pg"], tags = ["manual"])
    chobo_client(
        name = name + "_late_pg",
        book = ":" + name + "_stock",
        target = DEFAULT_TARGET,
        importpath = "example.com/parts/late",
        package = "stock",
        tags = ["manual"],
    )
    tests = []
    for test, part, drivers in [
        (every + "_postgres", "postgres", pg),
        (every + "_tigerbeetle_model", "tigerbeetle-model", model),
        (every + "_tigerbeetle", "tigerbeetle", tb),
        (pg_only + "_postgres", "postgres", pg),
        (late + "_postgres", "postgres", [DEFAULT_TARGET]),
        (late + "_tigerbeetle_model", "tigerbeetle-model", []),
    ]:
        _drives_test(name = test + "_drives_test", target_under_test = ":" + test, part = part, drivers = drivers)
        tests.append(":" + test + "_drives_test")

    failures = []

    def want(what, got, expected):
        if got != expected:
            failures.append("%s: got %r, want %r" % (what, got, expected))

    suite = native.existing_rule(every)
    want("the suite's tests", suite and sorted([str(native.package_relative_label(t)) for t in suite["tests"]]), sorted([
        str(native.package_relative_label(":" + every + s))
        for s in ["_postgres", "_tigerbeetle_model", "_tigerbeetle"]
    ]))
    replica = native.existing_rule(every + "_tigerbeetle") or {}
    want(
        "the replica part is compatible only with a TigerBeetle binary",
        [str(c) for c in replica.get("target_compatible_with", [])],
        [str(Label("@tigerbeetle_toolchains//:replica"))],
    )
    want("the model part is compatible everywhere", list((native.existing_rule(every + "_tigerbeetle_model") or {}).get("target_compatible_with", ["(no such test)"])), [])
    for s in ["_tigerbeetle_model", "_tigerbeetle"]:
        want("a test of PostgreSQL clients only has no " + s, native.existing_rule(pg_only + s), None)
        want("a test of a client not known yet has " + s, native.existing_rule(late + s) != None, True)

    # Sizes by the number of pairs: the SQL functions and three clients,
    # then four (copies of one client, whatever the registry holds).
    copies = []
    for i in range(4):
        copy = name + "_pg_copy%d" % i
        chobo_client(
            name = copy,
            book = ":" + name + "_stock",
            target = DEFAULT_TARGET,
            importpath = "example.com/parts/copy%d" % i,
            package = "stock",
            tags = ["manual"],
        )
        copies.append(":" + copy)
    four = name + "_four"
    chobo_conformance_test(name = four, book = ":" + name + "_stock", clients = copies[:3], tags = ["manual"])
    want("four pairs make a small test", (native.existing_rule(four + "_postgres") or {}).get("size"), "small")
    many = name + "_many"
    chobo_conformance_test(name = many, book = ":" + name + "_stock", clients = copies, tags = ["manual"])
    want("five pairs make a medium test", (native.existing_rule(many + "_postgres") or {}).get("size"), "medium")
    sized = name + "_sized"
    chobo_conformance_test(name = sized, book = ":" + name + "_stock", size = "large", tags = ["manual"])
    want("a size given is kept", (native.existing_rule(sized + "_postgres") or {}).get("size"), "large")
    _loading_check_test(name = name + "_declared_test", failures = failures)
    tests.append(":" + name + "_declared_test")
    native.test_suite(name = name, tests = tests)
