"""The runtime's modules are copied as they are into every generated
client, one after the other in one file, with their imports gathered at
its top. That holds only while each module keeps the shape checked here:
a docstring, the __future__ import, its imports and nothing else among
them, an optional __all__, then the body; and no two modules defining the
same top-level name, or binding an import's name to something else."""

from __future__ import annotations

import ast
import unittest
from pathlib import Path

import vectors  # noqa: F401  first: it puts the sources on the path

SRC = Path(__file__).resolve().parent.parent / "src" / "chobo"


def modules() -> dict[str, ast.Module]:
    return {p.stem: ast.parse(p.read_text(encoding="utf-8"), str(p))
            for p in sorted(SRC.glob("*.py")) if p.name != "__init__.py"}


def defined(node: ast.stmt) -> list[str]:
    """The top-level names a statement of a module's body defines."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)) and isinstance(node.target, ast.Name):
        return [node.target.id]
    return []


class ShapeTest(unittest.TestCase):
    def test_modules_are_there(self) -> None:
        self.assertTrue({"chobo", "ids", "postgres", "tigerbeetle", "tbclient"} <= set(modules()))

    def test_layout(self) -> None:
        for name, mod in modules().items():
            with self.subTest(module=name):
                body = mod.body
                self.assertTrue(ast.get_docstring(mod), "a module starts with its docstring")
                fut = body[1]
                self.assertIsInstance(fut, ast.ImportFrom)
                assert isinstance(fut, ast.ImportFrom)
                self.assertEqual((fut.module, [a.name for a in fut.names]), ("__future__", ["annotations"]))
                i = 2
                while i < len(body) and isinstance(body[i], (ast.Import, ast.ImportFrom)):
                    imp = body[i]
                    if isinstance(imp, ast.ImportFrom):
                        self.assertNotEqual(imp.module, None, "no 'from . import x'")
                        self.assertIn(imp.level, (0, 1), "intra-package imports are 'from .mod import ...'")
                        self.assertNotIn("*", [a.name for a in imp.names])
                    i += 1
                rest = body[i:]
                if rest and defined(rest[0]) == ["__all__"]:
                    rest = rest[1:]
                for node in rest:
                    for sub in ast.walk(node):
                        self.assertNotIsInstance(sub, (ast.Import, ast.ImportFrom),
                                                 f"an import at line {getattr(sub, 'lineno', '?')}, below the body's start")
                    if isinstance(node, ast.If):
                        self.assertNotIn("__name__", ast.dump(node.test), "no if __name__ blocks")
                    self.assertNotIn("__all__", defined(node), "__all__ comes right after the imports")

    def test_names_are_unique(self) -> None:
        where: dict[str, str] = {}
        imported: dict[str, tuple[str, str]] = {}  # a name bound by an import of another package: module, source
        for name, mod in modules().items():
            for node in mod.body:
                if isinstance(node, ast.Import):
                    for a in node.names:
                        bound = a.asname or a.name.split(".")[0]
                        imported.setdefault(bound, (name, a.name))
                        self.assertEqual(imported[bound][1], a.name, f"{bound} names two things ({name})")
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module != "__future__":
                    for a in node.names:
                        bound, source = a.asname or a.name, f"{node.module}.{a.name}"
                        imported.setdefault(bound, (name, source))
                        self.assertEqual(imported[bound][1], source, f"{bound} names two things ({name})")
                for n in defined(node):
                    if n == "__all__":
                        continue
                    if n in where:
                        self.fail(f"{n} is defined in {where[n]} and {name}")
                    where[n] = name
        for n, (by, source) in imported.items():
            if n in where:
                self.fail(f"{n} is {source} in {by} and defined in {where[n]}")


if __name__ == "__main__":
    unittest.main()
