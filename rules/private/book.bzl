"""chobo_book: a book checked by `chobo check` at build time."""

load(":compiler.bzl", "COMPILER_ATTRS", "run_chobo")
load(":providers.bzl", "BookInfo")

# On errors the diagnostics go to stderr, so Bazel shows them with the
# failed action; on success the whole output is kept as the check output.
_CHECK = 'if ! "$1" check "$2" >"$3" 2>&1; then cat "$3" >&2; exit 1; fi\n'

# With a baseline, the book is also compared with the deployed version:
# E050 and E051 fail the build; W107 (a kind removed, the book renamed) is
# a warning, shown like the others, since balances and holds of what was
# removed stay in the database, but does not fail it.
_CHECK_AGAINST = 'if ! "$1" check "$2" --against "$4" >"$3" 2>&1; then cat "$3" >&2; exit 1; fi\n'

# Warnings (W901, a secret written in the book, among them) go to stderr
# too, as a compiler's do: Bazel prints the stderr of a successful action
# as "INFO: From Checking book //pkg:name:". Only the diagnostics and the
# summary line are printed, not the refusal report that follows them.
_SHOW_WARNINGS = """if grep -q '^warning\\[' "$3"; then
  awk -v s="$2: " '{ print } index($0, s) == 1 { exit }' "$3" >&2
fi
"""

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
        script = script + _SHOW_WARNINGS,
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
(W107) is a warning, shown in the build output. Update the file when the new version is deployed.""",
        ),
    ),
    provides = [BookInfo],
)
