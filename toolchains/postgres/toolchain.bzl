"""The PostgreSQL toolchain rule and what it provides."""

load("//toolchains/private:local_tool.bzl", "TOOL_ATTRS", "tool_files")

PostgresInfo = provider(
    doc = "A PostgreSQL server installation.",
    fields = {
        "initdb": "File: initdb. Its directory (symlinks resolved) also holds pg_ctl and postgres.",
        "pg_ctl": "File: pg_ctl.",
        "postgres": "File: the server.",
        "files": "depset of File: everything the programs need at run time.",
        "version": "string: the version, as the installation reports it or was pinned.",
        "missing": "string: why no server is available (empty when one is).",
    },
)

def _postgres_toolchain_impl(ctx):
    info = PostgresInfo(
        initdb = ctx.file.initdb,
        pg_ctl = ctx.file.pg_ctl,
        postgres = ctx.file.postgres,
        files = tool_files(ctx, [ctx.file.initdb, ctx.file.pg_ctl, ctx.file.postgres]),
        version = ctx.attr.version,
        missing = ctx.attr.missing,
    )
    return [platform_common.ToolchainInfo(postgres = info)]

postgres_toolchain = rule(
    implementation = _postgres_toolchain_impl,
    doc = "Describes one PostgreSQL installation. Made by the module extension; " +
          "when no server was found, `missing` says why and the programs are unset, " +
          "so only the targets that need a server fail, with that reason.",
    attrs = dict(
        TOOL_ATTRS,
        initdb = attr.label(allow_single_file = True),
        pg_ctl = attr.label(allow_single_file = True),
        postgres = attr.label(allow_single_file = True),
        files = attr.label_list(allow_files = True),
    ),
)
