"""chobo_book: a book checked by `chobo check` at build time."""

load(":compiler.bzl", "COMPILER_ATTRS", "run_chobo")
load(":providers.bzl", "BookInfo")

# On errors the diagnostics go to stderr, so Bazel shows them with the
# failed action; on success they are kept as the check output.
_CHECK = 'if ! "$1" check "$2" >"$3" 2>&1; then cat "$3" >&2; exit 1; fi'

# With a baseline, the book is also compared with the deployed version:
# E050 and E051 fail the build; W107 (a kind removed, the book renamed) is
# shown, since balances and holds of what was removed stay in the
# database, but does not fail it.
_CHECK_AGAINST = """if ! "$1" check "$2" --against "$4" >"$3" 2>&1; then cat "$3" >&2; exit 1; fi
if grep -q 'warning\\[W107\\]' "$3"; then cat "$3" >&2; fi"""

def _chobo_book_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name + ".check.txt")
    inputs = [ctx.file.src]
    arguments = [ctx.file.src.path, out.path]
    script = _CHECK
    if ctx.file.baseline:
        inputs.append(ctx.file.baseline)
        arguments.append(ctx.file.baseline.path)
        script = _CHECK_AGAINST
    run_chobo(
        ctx,
        inputs = inputs,
        outputs = [out],
        script = script,
        arguments = arguments,
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
    attrs = dict(
        COMPILER_ATTRS,
        src = attr.label(
            allow_single_file = [".book"],
            mandatory = True,
            doc = "The .book source.",
        ),
        baseline = attr.label(
            allow_single_file = [".book", ".json"],
            doc = """The version of the book that is deployed: its `chobo api` JSON
(or its .book source). A change that alters what existing accounts or
holds mean (E050, E051) fails the build; a removed kind or a renamed book
(W107) is shown. Update the file when the new version is deployed.""",
        ),
    ),
    provides = [BookInfo],
)
