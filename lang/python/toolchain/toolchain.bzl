"""The Python toolchain rule and what it provides."""

# A language's toolchain is one of chobo's toolchains, kept in the
# language's folder: it shares their private helpers.
load("//toolchains/private:local_tool.bzl", "TOOL_ATTRS", "tool_files")  # buildifier: disable=bzl-visibility

PythonInfo = provider(
    doc = "A Python interpreter with the packages a Python client's conformance test needs.",
    fields = {
        "interpreter": "File: a link to the interpreter, by the path it was found at (a virtual environment's bin/python, say).",
        "files": "depset of File: the interpreter.",
        "version": "string: the interpreter's version and its packages', as the check found them.",
        "missing": "string: why there is no fit interpreter (empty when there is one).",
    },
)

def _python_toolchain_impl(ctx):
    info = PythonInfo(
        interpreter = ctx.file.interpreter,
        files = tool_files(ctx, [ctx.file.interpreter]),
        version = ctx.attr.version,
        missing = ctx.attr.missing,
    )
    return [platform_common.ToolchainInfo(python = info)]

python_toolchain = rule(
    implementation = _python_toolchain_impl,
    doc = "Describes a Python interpreter and its packages. Made by the module extension; " +
          "when no fit interpreter could be had, `missing` says why and the interpreter is unset, " +
          "so only the targets that need Python fail, with that reason.",
    attrs = dict(
        TOOL_ATTRS,
        interpreter = attr.label(allow_single_file = True),
        files = attr.label_list(allow_files = True),
    ),
)
