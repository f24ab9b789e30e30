"""Repository rules that make a TigerBeetle binary visible to Bazel.

Two kinds:

- tigerbeetle_local_repository: a binary on the machine, by path, or the
  one $CHOBO_TIGERBEETLE names (the same variable chobo's Go tests read).
- tigerbeetle_release_repository: an official release archive. With only
  a version, the archive of the host platform and its sha256 come from
  RELEASES; urls and sha256 given together replace them.
"""

load("//toolchains/private:local_tool.bzl", "tool_version", "write_missing_tool_build", "write_tool_build")

# The official release archives chobo knows, by version and platform
# (host os and cpu as Bazel names them): the file name under the release
# and its sha256 as published. Each zip holds the tigerbeetle binary at its
# top; macOS has one universal binary for both cpus.
RELEASES = {
    "0.17.9": {
        "linux-x86_64": ("tigerbeetle-x86_64-linux.zip", "af71f2c0057e3b409bf79940fa94894b738187b0d4f1e711097bca15df5d8cd4"),
        "linux-aarch64": ("tigerbeetle-aarch64-linux.zip", "413994920fe48b04f5aa86895b7a1d9d98d14803b29d4e91d2a6d0098fff4ef2"),
        "macos-x86_64": ("tigerbeetle-universal-macos.zip", "4e085eaffc66c2ed82e7f94a8137c468256d2fb0b35152ccf903cc6676c22940"),
        "macos-aarch64": ("tigerbeetle-universal-macos.zip", "4e085eaffc66c2ed82e7f94a8137c468256d2fb0b35152ccf903cc6676c22940"),
    },
}

# Where a release's archives are: the version, then the file name.
RELEASE_URL = "https://github.com/tigerbeetle/tigerbeetle/releases/download/{version}/{file}"

_TOOLCHAIN_BZL = str(Label("//toolchains/tigerbeetle:toolchain.bzl"))

# `replica`, in every installation's repository, is what the part of a
# conformance test that runs on a real replica is compatible with: a
# constraint every platform has when there is a binary, and one none has
# when there is not, so that Bazel reports that part SKIPPED instead of
# running it. A binary that was named but cannot be used leaves the part
# to run, and fail with the reason.
_REPLICA = """alias(
    name = "replica",
    actual = %r,
    visibility = ["//visibility:public"],
)
"""
_REPLICA_POSSIBLE = _REPLICA % str(Label("//toolchains/tigerbeetle:binary_present"))
_REPLICA_IMPOSSIBLE = _REPLICA % str(Label("@platforms//:incompatible"))

def _build_file(rctx, binary, version):
    write_tool_build(rctx, _TOOLCHAIN_BZL, "tigerbeetle", [("binary", repr(binary)), ("version", repr(version))], _REPLICA_POSSIBLE)

def _error_build_file(rctx, error):
    # A binary was named but cannot be used: unlike a missing one, the
    # test fails rather than skips.
    write_tool_build(rctx, _TOOLCHAIN_BZL, "tigerbeetle", [("error", repr(error))], _REPLICA_POSSIBLE)

def _version(rctx, binary):
    version, _ = tool_version(rctx, binary, ["version"])
    return version.split(" ")[-1] if version != None else ""

def _tigerbeetle_local_repository_impl(rctx):
    path = rctx.attr.path or rctx.os.environ.get("CHOBO_TIGERBEETLE", "")
    if not path:
        write_missing_tool_build(rctx, _TOOLCHAIN_BZL, "tigerbeetle", "no TigerBeetle binary: give tigerbeetle.local(path = ...) " +
                                                                      "or set CHOBO_TIGERBEETLE, or use tigerbeetle.release(...)", _REPLICA_IMPOSSIBLE)
        return
    binary = rctx.path(path)

    # The binary is watched, there or not: when it appears, changes or
    # goes, this repository is made again, and so is every test that
    # used what it said before (no result cached from a missing binary
    # outlives it).
    rctx.watch(binary)
    where = "tigerbeetle.local(path = %r)" % path if rctx.attr.path else "CHOBO_TIGERBEETLE=%s" % path
    if not binary.exists:
        _error_build_file(rctx, "%s: no such file (a binary that is named must be there)" % where)
        return
    if binary.is_dir:
        _error_build_file(rctx, "%s is a directory, not the tigerbeetle binary" % where)
        return
    version = _version(rctx, binary)
    if not version:
        _error_build_file(rctx, "%s: `%s version` does not run" % (where, path))
        return
    rctx.symlink(binary, "bin/tigerbeetle")
    _build_file(rctx, "bin/tigerbeetle", version)

tigerbeetle_local_repository = repository_rule(
    implementation = _tigerbeetle_local_repository_impl,
    doc = "A TigerBeetle binary on the machine.",
    attrs = {
        "path": attr.string(doc = "The tigerbeetle binary; empty: $CHOBO_TIGERBEETLE, else none."),
    },
    local = True,
    environ = ["CHOBO_TIGERBEETLE"],
)

def _host_platform(rctx):
    name = rctx.os.name.lower()
    if name.startswith("linux"):
        os = "linux"
    elif name.startswith("mac"):
        os = "macos"
    else:
        os = name
    arch = rctx.os.arch
    if arch in ["amd64", "x86_64"]:
        arch = "x86_64"
    elif arch in ["arm64", "aarch64"]:
        arch = "aarch64"
    return "%s-%s" % (os, arch)

def _release_archive(rctx):
    """The urls and sha256 of the archive to fetch, and a name for messages."""
    if rctx.attr.urls or rctx.attr.sha256:
        if not (rctx.attr.urls and rctx.attr.sha256):
            fail("tigerbeetle.release(version = %r): give urls and sha256 together, or neither " % rctx.attr.version +
                 "(then the archive for this platform comes from chobo's table of releases)")
        return rctx.attr.urls, rctx.attr.sha256, rctx.attr.urls[0]
    if rctx.attr.version not in RELEASES:
        fail("tigerbeetle.release(version = %r): chobo knows the archives of %s; " % (rctx.attr.version, ", ".join(sorted(RELEASES))) +
             "for another version give urls and sha256")
    platform = _host_platform(rctx)
    archives = RELEASES[rctx.attr.version]
    if platform not in archives:
        fail("tigerbeetle.release(version = %r): no official archive for %s (there are: %s)" % (
            rctx.attr.version,
            platform,
            ", ".join(sorted(archives)),
        ))
    file, sha256 = archives[platform]
    url = RELEASE_URL.format(version = rctx.attr.version, file = file)
    mirrors = [m.rstrip("/") + "/" + file for m in rctx.attr.mirrors]
    return mirrors + [url], sha256, file

def _tigerbeetle_release_repository_impl(rctx):
    urls, sha256, name = _release_archive(rctx)
    rctx.report_progress("fetching TigerBeetle %s (%s)" % (rctx.attr.version, name))
    got = rctx.download(url = urls, output = "archive.zip", sha256 = sha256, allow_fail = True)
    if not got.success:
        # Fetched again without the check, to tell a wrong archive from one
        # that cannot be had.
        again = rctx.download(url = urls, output = "archive.zip", allow_fail = True)
        if not again.success:
            fail("TigerBeetle %s: could not fetch %s from %s" % (rctx.attr.version, name, ", ".join(urls)))
        rctx.delete("archive.zip")
        fail("TigerBeetle %s: the archive %s has sha256 %s, not the expected %s; refusing it" % (
            rctx.attr.version,
            name,
            again.sha256,
            sha256,
        ))

    # Under bin/: a file named like the toolchain target beside it would
    # be the target's own input.
    rctx.extract("archive.zip", output = "bin")
    rctx.delete("archive.zip")
    if not rctx.path("bin/tigerbeetle").exists:
        fail("TigerBeetle %s: the archive %s holds no file named tigerbeetle at its top" % (rctx.attr.version, name))
    rctx.execute(["chmod", "a+rx", "bin/tigerbeetle"])
    _build_file(rctx, "bin/tigerbeetle", rctx.attr.version)

tigerbeetle_release_repository = repository_rule(
    implementation = _tigerbeetle_release_repository_impl,
    doc = "An official TigerBeetle release archive (a zip with the tigerbeetle binary at its top), checked by sha256.",
    attrs = {
        "version": attr.string(mandatory = True, doc = "The release, e.g. 0.17.9."),
        "urls": attr.string_list(doc = "Where the archive is; empty: the official one for this platform (RELEASES)."),
        "sha256": attr.string(doc = "The archive's sha256, given with urls; empty: the one pinned in RELEASES."),
        "mirrors": attr.string_list(doc = "Folders that hold the official archives by their file names, tried first."),
    },
)

# The official Go client, whose cgo needs a static library that the BUILD
# files Gazelle writes for the module do not declare. chobo makes the
# repository itself, so a module that uses chobo needs no override of its
# own: `go mod download` fetches the module (through the user's GOPROXY),
# the sum it reports must be the one chobo's go.sum pins, and the BUILD
# files below declare the header and the library.
TIGERBEETLE_GO = struct(
    path = "github.com/tigerbeetle/tigerbeetle-go",
    version = "v0.17.9",
    sum = "h1:eLnGqWmUzGcWJLs2sXoVWTrs+wd13vh8oiqd+sCKpFA=",
)

_TIGERBEETLE_GO_BUILD = """load("@rules_go//go:def.bzl", "go_library")

go_library(
    name = "tigerbeetle-go",
    srcs = [
        "bindings.go",
        "errors.go",
        "tb_client.go",
        "uint128.go",
    ],
    cgo = True,
    # The header and the static library come in through cdeps; the
    # module's own #cgo LDFLAGS name the library by a path relative to its
    # sources, which the link step cannot see.
    cdeps = ["//native:tb_client"],
    clinkopts = [
        "-ldl",
        "-lm",
    ],
    copts = ["-g -Wall"],
    importpath = "github.com/tigerbeetle/tigerbeetle-go",
    visibility = ["//visibility:public"],
    deps = ["//native"],
)
"""

_TIGERBEETLE_GO_NATIVE_BUILD = """load("@rules_go//go:def.bzl", "go_library")

go_library(
    name = "native",
    srcs = [
        "native.go",
        "tb_client.h",
    ],
    importpath = "github.com/tigerbeetle/tigerbeetle-go/native",
    visibility = ["//visibility:public"],
)

cc_import(
    name = "tb_client_x86_64_linux",
    static_library = "libtb_client_x86_64-linux.a",
)

cc_import(
    name = "tb_client_aarch64_linux",
    static_library = "libtb_client_aarch64-linux.a",
)

cc_import(
    name = "tb_client_x86_64_macos",
    static_library = "libtb_client_x86_64-macos.a",
)

cc_import(
    name = "tb_client_aarch64_macos",
    static_library = "libtb_client_aarch64-macos.a",
)

cc_library(
    name = "tb_client",
    hdrs = ["tb_client.h"],
    visibility = ["//visibility:public"],
    deps = select({
        "@rules_go//go/platform:linux_amd64": [":tb_client_x86_64_linux"],
        "@rules_go//go/platform:linux_arm64": [":tb_client_aarch64_linux"],
        "@rules_go//go/platform:darwin_amd64": [":tb_client_x86_64_macos"],
        "@rules_go//go/platform:darwin_arm64": [":tb_client_aarch64_macos"],
        "//conditions:default": [],
    }),
)
"""

_GO_ENV = ["GOPROXY", "GONOPROXY", "GOPRIVATE", "GONOSUMDB", "GONOSUMCHECK", "GOSUMDB", "GOINSECURE", "GOFLAGS", "HOME", "PATH", "http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY"]

def _tigerbeetle_go_repository_impl(rctx):
    go = rctx.which("go")
    if not go:
        fail("the go command is needed to fetch %s %s" % (TIGERBEETLE_GO.path, TIGERBEETLE_GO.version))
    env = {k: rctx.os.environ[k] for k in _GO_ENV if k in rctx.os.environ}
    env["GOPATH"] = str(rctx.path("_gopath"))
    env["GOFLAGS"] = (env.get("GOFLAGS", "") + " -modcacherw").strip()
    env["GO111MODULE"] = "on"
    res = rctx.execute([go, "mod", "download", "-json", "%s@%s" % (TIGERBEETLE_GO.path, TIGERBEETLE_GO.version)], environment = env, timeout = 600)
    if res.return_code != 0:
        fail("go mod download %s@%s failed:\n%s%s" % (TIGERBEETLE_GO.path, TIGERBEETLE_GO.version, res.stdout, res.stderr))
    info = json.decode(res.stdout)
    if info.get("Sum") != TIGERBEETLE_GO.sum:
        fail("%s %s has the sum %s; chobo pins %s" % (TIGERBEETLE_GO.path, TIGERBEETLE_GO.version, info.get("Sum"), TIGERBEETLE_GO.sum))
    src = rctx.path(info["Dir"])
    for name in ["bindings.go", "errors.go", "tb_client.go", "uint128.go", "LICENSE"]:
        rctx.file(name, rctx.read(src.get_child(name)))
    for f in src.get_child("native").readdir():
        if f.basename != "BUILD.bazel":
            rctx.symlink(f, "native/" + f.basename)
    rctx.file("BUILD.bazel", _TIGERBEETLE_GO_BUILD)
    rctx.file("native/BUILD.bazel", _TIGERBEETLE_GO_NATIVE_BUILD)

tigerbeetle_go_repository = repository_rule(
    implementation = _tigerbeetle_go_repository_impl,
    doc = "The official Go client of TigerBeetle (%s %s), built with cgo over its static library." % (TIGERBEETLE_GO.path, TIGERBEETLE_GO.version),
    environ = _GO_ENV,
)
