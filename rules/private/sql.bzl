"""chobo_sql: the PostgreSQL schema and functions of a book."""

load(":compiler.bzl", "COMPILER_ATTRS", "run_chobo")
load(":providers.bzl", "BookInfo")

def _chobo_sql_impl(ctx):
    book = ctx.attr.book[BookInfo]
    out = ctx.actions.declare_file(ctx.label.name + ".sql")

    # chobo names the file after the book; the rule names it after the
    # target, so the output path is known before the action runs.
    run_chobo(
        ctx,
        # The check output is an input so that a book with errors stops
        # at chobo_book, with its diagnostics, before anything is built.
        inputs = [book.src, book.check_output],
        outputs = [out],
        script = 'quiet "$1" build "$2" --target postgres --out "$TMP_OUT"\ncp "$TMP_OUT"/*.sql "$3"',
        arguments = [book.src.path, out.path],
        mnemonic = "ChoboSql",
        progress_message = "Writing the PostgreSQL SQL of %{label}",
    )
    return [DefaultInfo(files = depset([out]))]

chobo_sql = rule(
    implementation = _chobo_sql_impl,
    doc = "Writes `<name>.sql` with `chobo build --target postgres`.",
    attrs = dict(COMPILER_ATTRS, book = attr.label(
        providers = [BookInfo],
        mandatory = True,
        doc = "A chobo_book target.",
    )),
)
