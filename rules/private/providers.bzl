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
        "srcs": "list of File: the generated sources.",
    },
)
