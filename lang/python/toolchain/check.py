"""What the python toolchain's repository rule runs with the interpreter it
found: prints one JSON object with the interpreter's version and the
versions of the packages chobo's Python driver imports, and what of them
is missing or unfit ("" when nothing).

    python -s -B check.py TIGERBEETLE_VERSION

The repository rule runs it with -s (no user site-packages): a test does
not run with the user's HOME, so what only ~/.local holds would be found
here and then be missing when the test runs.
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as dist_version


def installed(names: list[str]) -> str:
    """The version of the first of names that is installed, else ""."""
    for name in names:
        try:
            return dist_version(name)
        except PackageNotFoundError:
            pass
    return ""


def main(tigerbeetle: str) -> None:
    version = "%d.%d.%d" % sys.version_info[:3]
    problems = []
    if sys.version_info < (3, 11):
        problems.append("Python %s is older than 3.11, which the generated clients need" % version)
    found = []
    for module in ("psycopg", "psycopg2", "tigerbeetle"):
        try:
            __import__(module)
        except Exception as e:  # not only ImportError: psycopg without libpq fails otherwise
            problems.append("cannot import %s (%s: %s)" % (module, type(e).__name__, e))
            continue
        # psycopg2 is installed as psycopg2 or as psycopg2-binary.
        v = installed([module, module + "-binary"])
        found.append("%s %s" % (module, v or "(no version)"))
        if module == "psycopg" and not v.startswith("3."):
            problems.append("psycopg is %s, not psycopg 3" % (v or "of no known version"))
        if module == "tigerbeetle" and v != tigerbeetle:
            # The official client speaks the protocol of one server version.
            problems.append("the tigerbeetle package is %s, not %s (the version of chobo's TigerBeetle server)" % (v or "of no known version", tigerbeetle))
    print(json.dumps({
        "version": "Python %s; %s" % (version, ", ".join(found) or "none of the packages"),
        "missing": "; ".join(problems),
    }))


main(sys.argv[1])
