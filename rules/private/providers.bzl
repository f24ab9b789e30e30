"""Providers passed between the chobo rules."""

BookInfo = provider(
    doc = "A book that `chobo check` accepted.",
    fields = {
        "src": "File: the .book source.",
        "check_output": "File: what `chobo check` printed for it (warnings and the refusal report).",
    },
)

ChoboGeneratedInfo = provider(
    doc = "Files that `chobo build` wrote for one target of one book.",
    fields = {
        "target": "string: the chobo target (e.g. \"postgres-go\").",
        "language": "string: the language of the files, a key of LANGUAGES in targets.bzl.",
        "package": "string: the package the files declare.",
        "book": "File: the .book source they were written from.",
        "srcs": "list of File: the generated sources.",
    },
)

ChoboDriverInfo = provider(
    doc = "What chobo_conformance_test drives one client with (chobo_driver).",
    fields = {
        "target": "string: the client's chobo target.",
        "language": "string: its language, a key of LANGUAGES in targets.bzl.",
        "book": "File: the .book source the client was written from.",
        "entry": "File: what the runner is handed for the client: the driver program, or the client's source, which the runner compiles with its language's driver.",
        "runfiles": "runfiles: what entry needs when the test runs.",
        "toolchain": "Label or None: the toolchain type the driver runs on; the test resolves it and hands it over as the language's entry in LANGUAGES says.",
    },
)
