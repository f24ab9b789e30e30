"""Tests of chobo_client: what its message for a target that is not one suggests."""

load("//rules/private:targets.bzl", "FOLDERS", "target_like")

def _loading_check_impl(ctx):
    # Checked while the BUILD file was read: the test fails, listing what
    # was wrong.
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

def client_target_tests(name):
    """The target chobo_client's message suggests for a word that is not one.

    Args:
      name: the test's name.
    """
    cases = [
        ("postgres", None),  # a backend alone: no one client of it
        ("klingon", None),  # no language of chobo's, nor near one
    ]
    for language in FOLDERS:
        n = language.name
        pg, tb = "postgres-" + n, "tigerbeetle-" + n
        cases += [
            (n, pg),  # a language alone: the default backend's
            (n.capitalize(), pg),
            ("postgres_" + n, pg),
            ("tigerbeetel-" + n, tb),
            (tb[:-1], tb),
        ]
        if len(n) > 4:
            # Two letters typed the wrong way round, alone and in a target.
            slip = n[:2] + n[3] + n[2] + n[4:]
            cases += [(slip, pg), ("postgres-" + slip, pg)]
    failures = []
    for word, want in cases:
        got = target_like(word)
        if got != want:
            failures.append("target_like(%r): got %r, want %r" % (word, got, want))
    _loading_check_test(name = name, size = "small", failures = failures)
