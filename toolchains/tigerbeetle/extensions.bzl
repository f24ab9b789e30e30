"""The `tigerbeetle` module extension: which TigerBeetle binary tests may use.

    tigerbeetle = use_extension("@chobo//toolchains/tigerbeetle:extensions.bzl", "tigerbeetle")
    tigerbeetle.local()                                  # $CHOBO_TIGERBEETLE, else none
    tigerbeetle.local(path = "/opt/tigerbeetle")         # a binary of your own
    tigerbeetle.release(version = "0.17.9")              # the official release, for machines with network access
    tigerbeetle.release(version = "0.17.9", urls = [...], sha256 = "...")   # an archive of your own

The extension also makes @tigerbeetle_go, the official Go client built
with cgo over its static library, which //runtime/go/chobotb/tbgo uses.

The root module's tags win; when it has none, the tags of other modules
(chobo itself asks for `local()`) are used. Releases come first, then
local binaries, each in the order written. With no binary, the toolchain
says so, and the part of chobo_conformance_test that runs TigerBeetle
clients on a real replica (<name>_tigerbeetle) is incompatible: Bazel
reports it SKIPPED, while the clients still run on chobo's model of
TigerBeetle (<name>_tigerbeetle_model).
"""

load("//toolchains/private:local_tool.bzl", "make_installations")
load(
    ":repositories.bzl",
    "tigerbeetle_go_repository",
    "tigerbeetle_local_repository",
    "tigerbeetle_release_repository",
)

_local = tag_class(
    doc = "A binary on the machine.",
    attrs = {"path": attr.string(doc = "The tigerbeetle binary; empty: $CHOBO_TIGERBEETLE.")},
)

_release = tag_class(
    doc = "A release archive, downloaded and checked by sha256: with only a version, the official " +
          "archive of the host platform, its sha256 pinned in chobo's table (repositories.bzl, RELEASES).",
    attrs = {
        "version": attr.string(mandatory = True),
        "urls": attr.string_list(),
        "sha256": attr.string(),
        "mirrors": attr.string_list(),
    },
)

def _local_repository(name, tag):
    tigerbeetle_local_repository(name = name, path = tag.path)

def _release_repository(name, tag):
    tigerbeetle_release_repository(name = name, version = tag.version, urls = tag.urls, sha256 = tag.sha256, mirrors = tag.mirrors)

def _tigerbeetle_impl(mctx):
    make_installations(
        mctx,
        tool = "tigerbeetle",
        toolchain_type = str(Label("//toolchains/tigerbeetle:toolchain_type")),
        kinds = {"release": _release_repository, "local": _local_repository},
        default = [("local", struct(path = ""))],
        # What the real-replica part of a conformance test is compatible
        # with (repositories.bzl): the preferred installation's.
        aliases = ["replica"],
    )

    # The official Go client, for the conformance runner and for programs
    # that dial TigerBeetle through //runtime/go/chobotb/tbgo.
    tigerbeetle_go_repository(name = "tigerbeetle_go")

tigerbeetle = module_extension(
    implementation = _tigerbeetle_impl,
    tag_classes = {"local": _local, "release": _release},
)
