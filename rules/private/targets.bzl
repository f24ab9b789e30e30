"""What each `chobo build` client target writes, and how its library is made.

The registry of the client languages for the Bazel rules. Every language
lives in a folder of its own, lang/<language>, and says all of this in its
lang/<language>/defs.bzl, as one struct, LANGUAGE, which is loaded here
and listed in FOLDERS: that is the whole of its entry. Neither
chobo_client nor chobo_conformance_test has a branch per language.
"""

load("//lang/go:defs.bzl", go = "LANGUAGE")
load("//lang/python:defs.bzl", python = "LANGUAGE")
load("//lang/typescript:defs.bzl", typescript = "LANGUAGE")

# The languages of lang/<language>, each its LANGUAGE, in the order of the
# registry of targets (chobo/target).
FOLDERS = [
    go,
    typescript,
    python,
]

# The bzl_library of each language's defs.bzl, which the bzl_library of
# this file depends on (rules/private/BUILD.bazel): so a new language is
# its lines above and nothing there.
DEFS_LIBRARIES = [language.defs for language in FOLDERS]

# The target of a chobo_client that names none: the PostgreSQL client of
# the first language, as Gazelle's registry reads one (a test of
# chobo/target holds the two together).
DEFAULT_TARGET = "postgres-" + FOLDERS[0].name

# language -> struct(
#   defs = the Label of the bzl_library of its defs.bzl,
#   library = macro(name, srcs, importpath, deps, visibility, tags),
#   importpath = whether the library has an import path, from which the
#     files' --package is named (required then, and never passed else),
#   driver = macro(name, client, srcs, visibility, tags) making a
#     chobo_driver: what chobo_conformance_test drives the client with,
#   toolchain = the toolchain type the driver runs on, or None,
#   toolchain_env = function(label, toolchain info or None, rlocation)
#     -> struct(env, files): what the runner is handed of that toolchain,
#     which the language's driver kit reads (its Prepare, in
#     lang/<language>/driver),
#   model = whether its TigerBeetle clients run on chobo's model of
#     TigerBeetle too, not only on a real replica (its driver kit's
#     ViaWire, chobo/conformance/driverkit, which a test of the runner
#     holds this to).
#   name, targets = for a language of FOLDERS: its key here, and its
#     entries of TARGETS.
# )
LANGUAGES = {lang.name: lang for lang in FOLDERS}

# chobo client target -> what it writes. The registry of targets in
# chobo/target is the source of truth; a test there fails when this table
# disagrees with it. `files` are relative to the package directory chobo
# creates under --out; `deps` are what those files import, as labels
# resolved in chobo's own module (so users need not name them).
TARGETS = {name: spec for lang in FOLDERS for name, spec in lang.targets.items()}

def _edits(a, b):
    # Letters to add, drop, change or swap with a neighbour to turn a into
    # b: the measure chobo's Gazelle language suggests by (gazelle/names.go).
    a = a.elems()
    b = b.elems()
    prev2 = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2 = prev
        prev = cur
    return prev[len(b)]

def _nearest(word, cands):
    # The one candidate word nearly spells (two edits, one for a word of up
    # to four letters), or None when there is none or a tie.
    w = word.lower()
    if len(w) < 2 or len(w) > 40:
        return None
    best, best_d, tie = None, 0, False
    for c in cands:
        if c == word:
            continue
        reach = 1 if len(c) <= 4 else 2
        d = _edits(w, c.lower())
        if d > reach:
            continue
        if best == None or d < best_d:
            best, best_d, tie = c, d, False
        elif d == best_d:
            tie = True
    return None if tie else best

def target_like(word, default_backend = "postgres"):
    """The client target a word that is not one was most likely meant as.

    One whose name it nearly spells (postgres_go), or, for a language's
    name alone (or a near spelling of it), that language's target on
    the default backend, as chobo_client's default names the backend; the
    same guesses as the chobo_client directive of chobo's Gazelle language.

    Args:
      word: what was written as the target.
      default_backend: the backend of chobo_client's default target.

    Returns:
      A key of TARGETS, or None.
    """
    t = _nearest(word, sorted(TARGETS.keys()))
    if t:
        return t
    by_language = {spec.language: name for name, spec in TARGETS.items() if spec.backend == default_backend}
    if word.lower() in by_language:
        return by_language[word.lower()]
    lang = _nearest(word, sorted(by_language.keys()))
    return by_language[lang] if lang else None
