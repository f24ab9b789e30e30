"""What drives a client in chobo_conformance_test: chobo_driver, which each language's driver macro makes."""

load(":providers.bzl", "ChoboDriverInfo", "ChoboGeneratedInfo")

def _chobo_driver_impl(ctx):
    gen = ctx.attr.srcs[ChoboGeneratedInfo]
    if ctx.attr.program:
        entry = ctx.attr.program[DefaultInfo].files_to_run.executable
        if entry == None:
            fail("%s: %s is not a program" % (ctx.label, ctx.attr.program.label))
        runfiles = ctx.runfiles(files = [entry]).merge(ctx.attr.program[DefaultInfo].default_runfiles)
    else:
        entry = gen.srcs[0]
        runfiles = ctx.runfiles(files = gen.srcs)
    return [
        DefaultInfo(files = depset([entry]), runfiles = runfiles),
        ChoboDriverInfo(
            target = gen.target,
            language = gen.language,
            book = gen.book,
            entry = entry,
            runfiles = runfiles,
            toolchain = ctx.attr.toolchain.label if ctx.attr.toolchain else None,
        ),
    ]

chobo_driver = rule(
    implementation = _chobo_driver_impl,
    doc = "What chobo_conformance_test drives one client with, as its language's entry in LANGUAGES (targets.bzl) makes it.",
    attrs = {
        "srcs": attr.label(providers = [ChoboGeneratedInfo], mandatory = True, doc = "The client's generated sources, which say its target and language."),
        "program": attr.label(
            cfg = "target",
            doc = "The driver program, with the client compiled in; without it, the runner is handed the client's source and compiles it with its language's driver.",
        ),
        "toolchain": attr.label(doc = "The toolchain type the language's driver runs on, if any."),
    },
    provides = [ChoboDriverInfo],
)
