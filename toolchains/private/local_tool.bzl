"""What chobo's toolchains of a tool from the machine have in common.

Each toolchain (postgres and tigerbeetle here, and a client language's
own under lang/<language>/toolchain) is a program the tests run, found on
the machine or fetched at a pinned version, sometimes with
packages pinned beside it. Its module extension makes one repository per
installation the root module asks for, named <tool>_<i>_<kind>, each
holding one <tool>_toolchain target named <tool>, and one more repository,
@<tool>_toolchains, with their toolchain() targets in order of preference.

An installation that cannot be had still makes its repository: the target
says in `missing` why, so that only the tests that need the tool fail, and
with that reason, while everything else builds.
"""

def choose_tags(mctx, kinds, default):
    """The tags the extension acts on, as (kind, tag) pairs in order of preference.

    The root module's tags win. When it has none, the first module that has
    any decides (chobo itself, which asks for its default). A module's tags
    come kind by kind, in the order of `kinds`, and within a kind in the
    order written.

    Args:
      mctx: the module_ctx.
      kinds: the names of the tag classes, the preferred kind first.
      default: the (kind, tag) pairs to use when no module has a tag.

    Returns:
      A list of (kind, tag).
    """
    chosen = None
    for mod in mctx.modules:
        if [k for k in kinds if getattr(mod.tags, k)]:
            if mod.is_root or chosen == None:
                chosen = mod
            if mod.is_root:
                break
    if chosen == None:
        return default
    tags = []
    for k in kinds:
        tags += [(k, t) for t in getattr(chosen.tags, k)]
    return tags

def make_installations(mctx, tool, toolchain_type, kinds, default, target_compatible_with = {}, aliases = []):
    """Makes a repository for each installation the modules ask for, and @<tool>_toolchains.

    Args:
      mctx: the module_ctx.
      tool: the tool's name: of the repositories and of the target in each.
      toolchain_type: the label of the toolchain type, as a string.
      kinds: dict of tag class name to a function(name, tag) that declares
        the repository of one installation of that kind; the preferred kind
        first.
      default: the (kind, tag) pairs to use when no module has a tag.
      target_compatible_with: dict of kind to the constraint labels (as
        strings) the toolchains of that kind are limited to.
      aliases: names of targets that every installation's repository has,
        which @<tool>_toolchains makes aliases of, to the preferred
        installation's (the one toolchain resolution picks when no
        installation is limited by target_compatible_with).
    """
    repos, compat = [], {}
    for i, (kind, tag) in enumerate(choose_tags(mctx, kinds.keys(), default)):
        repo = "%s_%d_%s" % (tool, i, kind)
        kinds[kind](repo, tag)
        repos.append(repo)
        if kind in target_compatible_with:
            compat[repo] = target_compatible_with[kind]
    tool_toolchains_repo(
        name = tool + "_toolchains",
        tool = tool,
        toolchain_type = toolchain_type,
        repos = repos,
        target_compatible_with = compat,
        aliases = aliases,
    )

def _tool_toolchains_repo_impl(rctx):
    lines = []
    for repo in rctx.attr.repos:
        lines.append("""toolchain(
    name = {name},
    toolchain = "@{repo}//:{tool}",
    toolchain_type = {type},
    target_compatible_with = {compat},
)
""".format(
            name = repr(repo),
            repo = repo,
            tool = rctx.attr.tool,
            type = repr(rctx.attr.toolchain_type),
            compat = repr(rctx.attr.target_compatible_with.get(repo, [])),
        ))
    for name in rctx.attr.aliases:
        lines.append("""alias(
    name = {name},
    actual = {actual},
    visibility = ["//visibility:public"],
)
""".format(name = repr(name), actual = repr("@%s//:%s" % (rctx.attr.repos[0], name))))
    rctx.file("BUILD.bazel", "\n".join(lines))

tool_toolchains_repo = repository_rule(
    implementation = _tool_toolchains_repo_impl,
    doc = "The toolchain() targets of every installation of a tool, in order of preference.",
    attrs = {
        "tool": attr.string(mandatory = True, doc = "The name of the toolchain target in each repository."),
        "toolchain_type": attr.string(mandatory = True),
        "repos": attr.string_list(doc = "The installations' repositories, the preferred first."),
        "target_compatible_with": attr.string_list_dict(doc = "Constraints of some of the repositories."),
        "aliases": attr.string_list(doc = "Targets of the preferred repository to make aliases of."),
    },
)

def find_tool(rctx, path, program):
    """The program at path, or the first one on PATH when path is empty.

    Args:
      rctx: the repository_ctx.
      path: where the user said the program is; empty: look on PATH.
      program: the program's name on PATH.

    Returns:
      (the program's path, or None when it is not there; where it was
      looked for, for messages).
    """
    if path:
        found = rctx.path(path)
        return (found if found.exists else None), path
    return rctx.which(program), "PATH"

def find_beside(rctx, tool, program):
    """A program that comes with a tool, such as its package manager.

    Args:
      rctx: the repository_ctx.
      tool: the path of the tool.
      program: the name of the program.

    Returns:
      program in the directory of tool, else the first one on PATH; None
      when neither is there.
    """
    found = tool.dirname.get_child(program)
    if found.exists:
        return found
    return rctx.which(program)

def tool_version(rctx, program, args = ["--version"]):
    """Runs program to ask its version.

    Args:
      rctx: the repository_ctx.
      program: the path of the program.
      args: what makes it print its version.

    Returns:
      (the first line it printed, stripped; None when it failed, and then
      its error output, stripped).
    """
    res = rctx.execute([program] + args)
    if res.return_code != 0:
        return None, res.stderr.strip()
    return res.stdout.strip().split("\n")[0], ""

def install_pinned(rctx, files, argv, environment = {}, timeout = 600):
    """Installs the packages a lock file pins, beside the tool.

    Args:
      rctx: the repository_ctx.
      files: dict of label to the name it is linked under in the
        repository (the package list and its lock file).
      argv: the installer's command, which must install exactly what the
        lock pins, checking each package's hash.
      environment: for the installer.
      timeout: seconds.

    Returns:
      None when it succeeded, else the end of what the installer printed.
    """
    for label, name in files.items():
        rctx.symlink(label, name)
    res = rctx.execute(argv, environment = environment, timeout = timeout)
    if res.return_code != 0:
        return res.stderr.strip()[-2000:] or res.stdout.strip()[-2000:]
    return None

def write_tool_build(rctx, toolchain_bzl, tool, attrs, more = ""):
    """Writes the BUILD file of an installation: one <tool>_toolchain named <tool>.

    Args:
      rctx: the repository_ctx.
      toolchain_bzl: the label, as a string, of the .bzl file that
        defines <tool>_toolchain.
      tool: the tool's name.
      attrs: list of (attribute, its value as Starlark source), in order.
      more: more of the BUILD file, written after the toolchain.
    """
    rule = tool + "_toolchain"
    body = ["%s(" % rule, "    name = %r," % tool]
    body += ["    %s = %s," % (name, value) for name, value in attrs]
    body += ['    visibility = ["//visibility:public"],', ")", ""]
    rctx.file("BUILD.bazel", "load(%r, %r)\n\n%s%s" % (toolchain_bzl, rule, "\n".join(body), ("\n" + more) if more else ""))

def write_missing_tool_build(rctx, toolchain_bzl, tool, missing, more = ""):
    """Writes the BUILD file of an installation that could not be had, and says why."""
    write_tool_build(rctx, toolchain_bzl, tool, [("missing", repr(missing))], more)

# The attributes every <tool>_toolchain rule has, besides its programs
# and files.
TOOL_ATTRS = {
    "version": attr.string(),
    "missing": attr.string(),
}

def tool_files(ctx, programs):
    """The toolchain's files: programs (Files, None for an unset one) and its `files`."""
    return depset([f for f in programs if f], transitive = [depset(ctx.files.files)])
