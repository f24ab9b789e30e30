"""The chobo compiler as an exec-configured tool, shared by every rule."""

COMPILER_ATTRS = {
    "_chobo": attr.label(
        default = Label("//chobo/cmd/chobo"),
        executable = True,
        cfg = "exec",
        doc = "The chobo compiler, built for the machine that runs the actions.",
    ),
}

_PREAMBLE = """set -eu
TMP_OUT=$(mktemp -d)
TMP_LOG=$(mktemp)
trap 'rm -rf "$TMP_OUT" "$TMP_LOG"' EXIT
quiet() { if ! "$@" >"$TMP_LOG" 2>&1; then cat "$TMP_LOG" >&2; exit 1; fi; }
"""

def run_chobo(ctx, *, inputs, outputs, script, arguments, mnemonic, progress_message):
    """Runs chobo in a small shell script.

    The script gets the compiler as $1 and `arguments` after it. It may
    use a private temporary directory, $TMP_OUT: chobo writes into
    directories, and the script copies exactly the declared files out of
    it, so nothing undeclared lands in the output tree. `quiet CMD...`
    runs a command and shows what it printed only when it fails, so a
    successful build stays silent and a failed one shows the diagnostics.
    What a script writes to stderr on success Bazel prints as
    "INFO: From <progress message>": chobo_book uses that for warnings.
    """
    ctx.actions.run_shell(
        inputs = inputs,
        outputs = outputs,
        tools = [ctx.executable._chobo],
        command = _PREAMBLE + script,
        arguments = [ctx.executable._chobo.path] + arguments,
        mnemonic = mnemonic,
        progress_message = progress_message,
        # chobo reads CHOBO_LANG; pin English so the outputs do not depend
        # on the environment of whoever builds.
        env = {"CHOBO_LANG": "en"},
    )
