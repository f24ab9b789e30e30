"""Analysis tests: chobo_conformance_test given a book that is not a chobo_book."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("//rules:defs.bzl", "chobo_conformance_test")

def _fails_with_message_impl(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, "is not a chobo_book target. chobo_conformance_test wants the chobo_book of the book")
    asserts.expect_failure(env, "book = %s" % ctx.attr.book_label)
    return analysistest.end(env)

_fails_with_message_test = analysistest.make(
    _fails_with_message_impl,
    expect_failure = True,
    attrs = {"book_label": attr.string()},
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
        )
        tests.append(":" + name + "_" + case + "_test")
    native.test_suite(name = name, tests = tests)
