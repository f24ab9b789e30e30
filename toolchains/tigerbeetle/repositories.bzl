"""Repository rules that make a TigerBeetle binary visible to Bazel.

Two kinds:

- tigerbeetle_local_repository: a binary on the machine, by path, or the
  one $CHOBO_TIGERBEETLE names (the same variable chobo's Go tests read).
- tigerbeetle_release_repository: a release archive the user names with
  its urls and sha256. chobo pins no hash: nobody here could check one.
"""

def _build_file(rctx, binary, version, missing = ""):
    toolchain_bzl = str(Label("//toolchains/tigerbeetle:toolchain.bzl"))
    if missing:
        body = 'tigerbeetle_toolchain(\n    name = "tigerbeetle",\n    missing = %r,\n    visibility = ["//visibility:public"],\n)\n' % missing
    else:
        body = 'tigerbeetle_toolchain(\n    name = "tigerbeetle",\n    binary = %r,\n    version = %r,\n    visibility = ["//visibility:public"],\n)\n' % (binary, version)
    rctx.file("BUILD.bazel", 'load("%s", "tigerbeetle_toolchain")\n\n%s' % (toolchain_bzl, body))

def _version(rctx, binary):
    res = rctx.execute([binary, "version"])
    if res.return_code != 0:
        return ""
    return res.stdout.strip().split("\n")[0].split(" ")[-1]

def _tigerbeetle_local_repository_impl(rctx):
    path = rctx.attr.path or rctx.os.environ.get("CHOBO_TIGERBEETLE", "")
    if not path:
        _build_file(rctx, "", "", missing = "no TigerBeetle binary: give tigerbeetle.local(path = ...) " +
                                            "or set CHOBO_TIGERBEETLE, or use tigerbeetle.release(...)")
        return
    binary = rctx.path(path)
    if not binary.exists:
        _build_file(rctx, "", "", missing = "%s does not exist" % path)
        return
    rctx.symlink(binary, "bin/tigerbeetle")
    _build_file(rctx, "bin/tigerbeetle", _version(rctx, binary))

tigerbeetle_local_repository = repository_rule(
    implementation = _tigerbeetle_local_repository_impl,
    doc = "A TigerBeetle binary on the machine.",
    attrs = {
        "path": attr.string(doc = "The tigerbeetle binary; empty: $CHOBO_TIGERBEETLE, else none."),
    },
    local = True,
    environ = ["CHOBO_TIGERBEETLE"],
)

def _tigerbeetle_release_repository_impl(rctx):
    rctx.download_and_extract(url = rctx.attr.urls, sha256 = rctx.attr.sha256)
    if not rctx.path("tigerbeetle").exists:
        fail("the archive from %s holds no file named tigerbeetle at its top" % rctx.attr.urls[0])
    rctx.execute(["chmod", "a+rx", "tigerbeetle"])
    _build_file(rctx, "tigerbeetle", rctx.attr.version)

tigerbeetle_release_repository = repository_rule(
    implementation = _tigerbeetle_release_repository_impl,
    doc = "A TigerBeetle release archive (a zip with the tigerbeetle binary at its top), checked by sha256.",
    attrs = {
        "version": attr.string(mandatory = True, doc = "The version, for messages (e.g. 0.17.9)."),
        "urls": attr.string_list(mandatory = True, doc = "Where the archive for this platform is."),
        "sha256": attr.string(mandatory = True, doc = "The archive's sha256, as its publisher gives it."),
    },
)

def _tigerbeetle_toolchains_repo_impl(rctx):
    toolchain_type = str(Label("//toolchains/tigerbeetle:toolchain_type"))
    lines = []
    for repo in rctx.attr.repos:
        lines.append("""toolchain(
    name = {name},
    toolchain = "@{repo}//:tigerbeetle",
    toolchain_type = "{type}",
)
""".format(name = repr(repo), repo = repo, type = toolchain_type))
    rctx.file("BUILD.bazel", "\n".join(lines))

tigerbeetle_toolchains_repo = repository_rule(
    implementation = _tigerbeetle_toolchains_repo_impl,
    doc = "The toolchain() targets of every TigerBeetle binary, in order of preference.",
    attrs = {"repos": attr.string_list()},
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
