"""What the Bazel rules know of Go clients: LANGUAGE, which the registry in rules/private/targets.bzl lists.

Its fields are the ones every language gives (targets.bzl says what each
means); nothing outside lang/go names them. Go has no chobo toolchain: its
clients and drivers are built by rules_go, as the user's own Go is.
"""

load("@rules_go//go:def.bzl", "GoInfo", "go_binary", "go_library")

# A language's folder is part of chobo's rules: it makes its drivers with
# the rules' own chobo_driver, from the sources chobo_client wrote.
load("//rules/private:driver.bzl", "chobo_driver")  # buildifier: disable=bzl-visibility
load("//rules/private:providers.bzl", "ChoboGeneratedInfo")  # buildifier: disable=bzl-visibility

def _library(name, srcs, importpath, deps, visibility, tags):
    go_library(
        name = name,
        srcs = srcs,
        importpath = importpath,
        deps = deps,
        visibility = visibility,
        tags = tags,
    )

def _driver_main_impl(ctx):
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
    implementation = _driver_main_impl,
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

def _driver(name, client, srcs, visibility, tags):
    # A program with the client compiled in, built only when a test
    # needs it.
    go_driver_main(
        name = name + "_main",
        client = client,
        srcs = srcs,
        testonly = True,
        tags = tags,
        visibility = ["//visibility:private"],
    )
    go_binary(
        name = name + "_program",
        srcs = [":" + name + "_main"],
        deps = [client, Label("//lang/go/driver")],
        testonly = True,
        tags = tags,
        visibility = ["//visibility:private"],
    )
    chobo_driver(
        name = name,
        srcs = srcs,
        program = ":" + name + "_program",
        testonly = True,
        tags = tags,
        visibility = visibility,
    )

# The client targets of the language, as TARGETS in targets.bzl has them.
# `deps` are what the files import, as labels resolved in chobo's own
# module (so users need not name them): the Go runtime, which stays in
# runtime/go since the compiler itself imports it, and which generated
# clients do not carry a copy of.
TARGETS = {
    "postgres-go": struct(
        backend = "postgres",
        language = "go",
        files = ["book.go"],
        deps = [
            Label("//runtime/go/chobo"),
            Label("//runtime/go/chobopg"),
        ],
    ),
    # The client builds its chains with the runtime; its TigerBeetle
    # constructor takes the official client (cgo), which tbgo puts behind
    # chobotb.Client, so it imports both. Only this target brings them in.
    "tigerbeetle-go": struct(
        backend = "tigerbeetle",
        language = "go",
        files = ["book.go"],
        deps = [
            Label("//runtime/go/chobo"),
            Label("//runtime/go/chobotb"),
            Label("//runtime/go/chobotb/tbgo"),
            Label("//runtime/go/chobotb/tbgo:tigerbeetle-go"),
        ],
    ),
}

LANGUAGE = struct(
    name = "go",
    defs = Label(":defs"),
    library = _library,
    importpath = True,
    driver = _driver,
    toolchain = None,
    toolchain_env = None,
    model = True,
    targets = TARGETS,
)
