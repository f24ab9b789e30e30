"""The TigerBeetle toolchain rule and what it provides."""

load("//toolchains/private:local_tool.bzl", "TOOL_ATTRS")

TigerBeetleInfo = provider(
    doc = "A TigerBeetle server binary, or why there is none.",
    fields = {
        "binary": "File: the tigerbeetle program; None when missing.",
        "version": "string: the version, as the binary reports it or as given.",
        "missing": "string: why no binary is available (empty when one is).",
        "error": "string: why the binary that was named cannot be used (empty when it can, or when none was named).",
    },
)

def _tigerbeetle_toolchain_impl(ctx):
    return [platform_common.ToolchainInfo(tigerbeetle = TigerBeetleInfo(
        binary = ctx.file.binary,
        version = ctx.attr.version,
        missing = ctx.attr.missing,
        error = ctx.attr.error,
    ))]

tigerbeetle_toolchain = rule(
    implementation = _tigerbeetle_toolchain_impl,
    doc = "Describes one TigerBeetle binary. Made by the module extension; when " +
          "none was found, `missing` says why, a conformance test runs its " +
          "TigerBeetle clients on chobo's model of TigerBeetle only, and its part on a " +
          "real replica is reported SKIPPED (repositories.bzl, `replica`); " +
          "when one was named but cannot be used, `error` says why and the test fails.",
    attrs = dict(
        TOOL_ATTRS,
        binary = attr.label(allow_single_file = True),
        error = attr.string(),
    ),
)
