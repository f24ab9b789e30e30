"""What drives a client in chobo_conformance_test: chobo_driver, and the main package of a Go client's driver."""

load("@rules_go//go:def.bzl", "GoInfo")
load(":providers.bzl", "ChoboDriverInfo", "ChoboGeneratedInfo")

def _go_driver_main_impl(ctx):
    # The text comes from driver.MainSource, through a small tool, so it
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

go_driver_main = rule(
    implementation = _go_driver_main_impl,
    doc = "The main package of a Go client's driver: the client handed to driver.Main (or MainTigerBeetle).",
    attrs = {
        "client": attr.label(providers = [GoInfo], mandatory = True),
        "srcs": attr.label(providers = [ChoboGeneratedInfo], mandatory = True, doc = "The client's generated sources, which say its target."),
        "_drivermain": attr.label(
            default = Label("//lang/go/driver/drivermain"),
            executable = True,
            cfg = "exec",
        ),
    },
)

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
