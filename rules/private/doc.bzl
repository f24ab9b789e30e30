"""chobo_doc: the page `chobo doc` writes about a book."""

load(":compiler.bzl", "COMPILER_ATTRS", "run_chobo")
load(":providers.bzl", "BookInfo")

# The extension chobo gives the page of each format.
_EXTENSIONS = {
    "html": ".html",
    "markdown": ".md",
}

def _chobo_doc_impl(ctx):
    book = ctx.attr.book[BookInfo]
    ext = _EXTENSIONS[ctx.attr.format]

    # chobo names the page after the .book file (inventory.ja.book:
    # inventory.ja.md). The rule puts it in a folder named after the
    # target, so that two pages of one book (another language, say) never
    # claim the same path, and renames it when `out` is set.
    written = book.src.basename[:-len(".book")] + ext
    name = ctx.attr.out or written
    if name.startswith("/") or ".." in name.split("/"):
        fail("chobo_doc %s: out must be a relative file name, not %r" % (ctx.label.name, name))
    out = ctx.actions.declare_file("%s/%s" % (ctx.label.name, name))

    scenarios = ctx.files.scenarios
    run_chobo(
        ctx,
        # The check output is an input so that a book with errors stops
        # at chobo_book, with its diagnostics, before anything is built.
        inputs = [book.src, book.check_output] + scenarios,
        outputs = [out],
        # Each scenario path left after the fixed arguments becomes
        # `--scenario <path>`, quoted as it is.
        script = "\n".join([
            'chobo="$1"; book="$2"; format="$3"; lang="$4"; written="$5"; page="$6"; shift 6',
            'for s in "$@"; do set -- "$@" --scenario "$s"; shift; done',
            'quiet "$chobo" doc "$book" --format "$format" --lang "$lang" --out "$TMP_OUT" "$@"',
            'cp "$TMP_OUT/$written" "$page"',
        ]),
        arguments = [book.src.path, ctx.attr.format, ctx.attr.lang, written, out.path] + [s.path for s in scenarios],
        mnemonic = "ChoboDoc",
        progress_message = "Writing the %s page of %%{label}" % ctx.attr.format,
    )
    return [DefaultInfo(files = depset([out]))]

chobo_doc = rule(
    implementation = _chobo_doc_impl,
    doc = """Writes the page `chobo doc` makes of a book, for the people who run the
ledger: `<name>/<file>.md` (or `.html`), `<file>` being the .book file's
name without `.book` (inventory.ja.book: inventory.ja.md).""",
    attrs = dict(
        COMPILER_ATTRS,
        book = attr.label(
            providers = [BookInfo],
            mandatory = True,
            doc = "A chobo_book target.",
        ),
        format = attr.string(
            default = "markdown",
            values = sorted(_EXTENSIONS.keys()),
            doc = "markdown (with Mermaid diagrams) or html (one page that loads nothing from elsewhere).",
        ),
        lang = attr.string(
            default = "en",
            values = ["en", "ja"],
            doc = "The language of the page's text. The book's own names are kept as written.",
        ),
        out = attr.string(
            doc = "The page's file name, inside the folder `<name>/`; by default the .book file's name with `.md` or `.html` for `.book`.",
        ),
        scenarios = attr.label_list(
            allow_files = [".json"],
            doc = "The team's own scenario files (as `chobo run --scenario` reads them), shown on the page before the generated scenarios, in this order.",
        ),
    ),
)
