"""chobo_client: a client library generated from a book."""

load(":compiler.bzl", "COMPILER_ATTRS", "run_chobo")
load(":providers.bzl", "BookInfo", "ChoboGeneratedInfo")
load(":targets.bzl", "LANGUAGES", "TARGETS")

def _chobo_client_srcs_impl(ctx):
    book = ctx.attr.book[BookInfo]
    spec = TARGETS[ctx.attr.target]
    pkg = ctx.attr.package

    # Declared one by one (not as a directory) so that language rules see
    # plain source files.
    outs = [ctx.actions.declare_file("%s/%s/%s" % (ctx.label.name, pkg, f)) for f in spec.files]
    copies = "\n".join([
        'cp "$TMP_OUT/%s/%s" "%s"' % (pkg, f, out.path)
        for f, out in zip(spec.files, outs)
    ])
    run_chobo(
        ctx,
        inputs = [book.src, book.check_output],
        outputs = outs,
        script = 'quiet "$1" build "$2" --target "$3" --package "$4" --out "$TMP_OUT"\n' + copies,
        arguments = [book.src.path, ctx.attr.target, pkg],
        mnemonic = "ChoboClient",
        progress_message = "Writing the %s client of %%{label}" % ctx.attr.target,
    )
    return [
        DefaultInfo(files = depset(outs)),
        ChoboGeneratedInfo(
            target = ctx.attr.target,
            language = spec.language,
            package = pkg,
            srcs = outs,
        ),
    ]

chobo_client_srcs = rule(
    implementation = _chobo_client_srcs_impl,
    doc = "The sources `chobo build --target TARGET` writes for a book.",
    attrs = dict(
        COMPILER_ATTRS,
        book = attr.label(providers = [BookInfo], mandatory = True),
        target = attr.string(mandatory = True, values = sorted(TARGETS.keys())),
        package = attr.string(mandatory = True),
    ),
    provides = [ChoboGeneratedInfo],
)

def _default_package(importpath):
    # The last element of the import path, made a Go identifier.
    last = importpath.rstrip("/").split("/")[-1]
    return "".join([c if c.isalnum() else "_" for c in last.elems()]).lower()

def chobo_client(name, book, target = "postgres-go", importpath = None, package = None, visibility = None, tags = None, **kwargs):
    """A client library of a book, usable like a hand-written one.

    Makes `<name>_srcs` (the generated files) and `<name>`, a library of
    the target's language (for postgres-go: a go_library with
    `importpath`, already depending on pgx).

    Args:
      name: the library's name.
      book: a chobo_book target.
      target: a chobo client target; see TARGETS in rules/private/targets.bzl.
      importpath: the library's import path (Go targets).
      package: the package name written into the sources; by default the
        last element of importpath.
      visibility: of the library.
      tags: of both targets.
      **kwargs: passed to the generating rule (e.g. testonly).
    """
    if target not in TARGETS:
        fail("chobo_client %s: unknown target %r; known: %s" % (name, target, ", ".join(sorted(TARGETS.keys()))))
    spec = TARGETS[target]
    if not importpath:
        fail("chobo_client %s: importpath is required" % name)
    pkg = package or _default_package(importpath)
    chobo_client_srcs(
        name = name + "_srcs",
        book = book,
        target = target,
        package = pkg,
        visibility = visibility,
        tags = tags,
        **kwargs
    )
    LANGUAGES[spec.language].library(
        name = name,
        srcs = [":" + name + "_srcs"],
        importpath = importpath,
        deps = spec.deps,
        visibility = visibility,
        tags = tags,
    )
