"""The main package of a Go client's driver, made beside the client by chobo_client."""

load("@rules_go//go:def.bzl", "GoInfo")
load(":providers.bzl", "ChoboGeneratedInfo")

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
            default = Label("//runtime/go/driver/drivermain"),
            executable = True,
            cfg = "exec",
        ),
    },
)
