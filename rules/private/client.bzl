"""chobo_client: a client library generated from a book."""

load(":compiler.bzl", "COMPILER_ATTRS", "run_chobo")
load(":providers.bzl", "BookInfo", "ChoboGeneratedInfo")
load(":targets.bzl", "DEFAULT_TARGET", "LANGUAGES", "TARGETS", "target_like")

def _chobo_client_srcs_impl(ctx):
    book = ctx.attr.book[BookInfo]
    spec = TARGETS[ctx.attr.target]
    pkg = ctx.attr.package

    # Declared one by one (not as a directory) so that language rules see
    # plain source files. A file named after the book (<book>.ts) is named
    # after the .book file here instead, or `out`: the book's own name is
    # inside the file, and an output's name must be known before it is
    # read.
    outs = []
    copies = []
    for f in spec.files:
        if f.startswith("<book>"):
            name = ctx.attr.out or book.src.basename[:-len(".book")].split(".")[0] + f[len("<book>"):]
            out = ctx.actions.declare_file("%s/%s" % (ctx.label.name, name))
            copies.append('for f in "$TMP_OUT"/*%s; do cp "$f" "%s"; done' % (f[len("<book>"):], out.path))
        else:
            out = ctx.actions.declare_file("%s/%s/%s" % (ctx.label.name, pkg, f))
            copies.append('cp "$TMP_OUT/%s/%s" "%s"' % (pkg, f, out.path))
        outs.append(out)
    copies = "\n".join(copies)

    # Only a language whose files declare a package takes --package.
    package = ' --package "$4"' if LANGUAGES[spec.language].importpath else ""
    run_chobo(
        ctx,
        inputs = [book.src, book.check_output],
        outputs = outs,
        script = 'quiet "$1" build "$2" --target "$3"' + package + ' --out "$TMP_OUT"\n' + copies,
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
            book = book.src,
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
        out = attr.string(doc = "The file name of a client written as one file named after the book (a target whose files are <book>.<extension>); by default the .book file's name up to its first dot, with the target's extension."),
    ),
    provides = [ChoboGeneratedInfo],
)

def _default_package(importpath):
    # The last element of the import path, made a Go identifier.
    last = importpath.rstrip("/").split("/")[-1]
    return "".join([c if c.isalnum() else "_" for c in last.elems()]).lower()

def chobo_client(name, book, target = DEFAULT_TARGET, importpath = None, package = None, out = None, visibility = None, tags = None, **kwargs):
    """A client library of a book, usable like a hand-written one.

    Makes `<name>_srcs` (the generated files), `<name>`, a library of
    the target's language, as that language's `library` in LANGUAGES
    (targets.bzl) makes it: a library with `importpath` and the runtime
    among its deps where the language has import paths, else what that
    language's own rules or compiler take as a source; and
    `<name>_driver`, what chobo_conformance_test drives the client with.

    Args:
      name: the library's name.
      book: a chobo_book target.
      target: a chobo client target; see TARGETS in rules/private/targets.bzl,
        which the registry of targets (chobo/target) holds a test to.
      importpath: the library's import path, required by a language whose
        library has one, ignored by the others.
      package: the package name written into the sources, where the
        language has packages; by default the last element of importpath.
      out: the file name of a client written as one file named after
        the book; by default the .book file's name up to its first dot,
        with the target's extension (stock.book: stock.<extension>).
      visibility: of the library.
      tags: of every target it makes.
      **kwargs: passed to the generating rule (e.g. testonly).
    """
    if target not in TARGETS:
        like = target_like(target)
        hint = "; did you mean %r?" % like if like else ""
        fail("chobo_client %s: unknown target %r%s (known: %s)" % (name, target, hint, ", ".join(sorted(TARGETS.keys()))))
    spec = TARGETS[target]
    lang = LANGUAGES[spec.language]
    if lang.importpath and not importpath:
        fail("chobo_client %s: importpath is required for the %s target %s" % (name, spec.language, target))
    pkg = package or (_default_package(importpath) if importpath else "book")
    chobo_client_srcs(
        name = name + "_srcs",
        book = book,
        target = target,
        package = pkg,
        out = out,
        visibility = visibility,
        tags = tags,
        **kwargs
    )
    lang.library(
        name = name,
        srcs = [":" + name + "_srcs"],
        importpath = importpath,
        deps = spec.deps,
        visibility = visibility,
        tags = tags,
    )
    lang.driver(
        name = name + "_driver",
        client = ":" + name,
        srcs = ":" + name + "_srcs",
        visibility = visibility,
        tags = (tags or []) + ["manual"],
    )
