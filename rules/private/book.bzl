"""chobo_book: a book checked by `chobo check` at build time."""

load(":compiler.bzl", "COMPILER_ATTRS", "run_chobo")
load(":providers.bzl", "BookInfo")

def _chobo_book_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name + ".check.txt")

    # On errors the diagnostics go to stderr, so Bazel shows them with the
    # failed action; on success they are kept as the check output.
    run_chobo(
        ctx,
        inputs = [ctx.file.src],
        outputs = [out],
        script = 'if ! "$1" check "$2" >"$3" 2>&1; then cat "$3" >&2; exit 1; fi',
        arguments = [ctx.file.src.path, out.path],
        mnemonic = "ChoboCheck",
        progress_message = "Checking book %{label}",
    )
    return [
        DefaultInfo(files = depset([out])),
        BookInfo(src = ctx.file.src, check_output = out),
    ]

chobo_book = rule(
    implementation = _chobo_book_impl,
    doc = "Checks a .book file with `chobo check`; errors fail the build.",
    attrs = dict(COMPILER_ATTRS, src = attr.label(
        allow_single_file = [".book"],
        mandatory = True,
        doc = "The .book source.",
    )),
    provides = [BookInfo],
)
