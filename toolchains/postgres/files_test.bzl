"""postgres_files_test: the toolchain declares what the server reads, not only its programs."""

_POSTGRES = Label("//toolchains/postgres:toolchain_type")

# A file of the share directory (initdb reads it) and one of the library
# directory (the server loads it for PL/pgSQL): each must be among the
# toolchain's files and reach a test's runfiles.
_MARKERS = ["postgres.bki", "plpgsql.so"]

def _postgres_files_test_impl(ctx):
    pg = ctx.toolchains[_POSTGRES].postgres
    lines = ["#!/bin/sh", "set -eu"]
    if pg.missing:
        lines.append("echo %s >&2; exit 1" % repr("no PostgreSQL toolchain: " + pg.missing))
    files = pg.files.to_list()
    for marker in _MARKERS:
        found = [f for f in files if f.basename == marker]
        if not found:
            lines.append("echo %s >&2; exit 1" % repr(
                "the PostgreSQL toolchain (%s) does not declare %s among its %d files" % (pg.version, marker, len(files)),
            ))
        else:
            lines.append('test -e "%s" || { echo "%s is declared but not in the runfiles" >&2; exit 1; }' % (
                found[0].short_path,
                found[0].short_path,
            ))
            lines.append('echo "declared and in the runfiles: %s"' % found[0].short_path)
    exe = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.write(exe, "\n".join(lines) + "\n", is_executable = True)
    return [DefaultInfo(executable = exe, runfiles = ctx.runfiles(transitive_files = pg.files))]

postgres_files_test = rule(
    implementation = _postgres_files_test_impl,
    doc = "Passes when the PostgreSQL toolchain's files hold the server's share and lib files.",
    test = True,
    toolchains = [_POSTGRES],
)
