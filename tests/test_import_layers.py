"""Imports run downward through the floors of docs/development.md (## Layers).

The table in that section is the one statement of the layering: this test reads it, parses every
module of ``brag_env/`` and ``agents/`` and the two scripts with ``ast`` (imports inside functions
and under ``if TYPE_CHECKING:`` included) and refuses an import whose target stands on a higher
floor than the importer, or a module that no row of the table holds.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "development.md"
PACKAGES = ("brag_env", "agents")
SCRIPTS = ("train.py", "evaluate.py")


def layer_table(doc_text: str) -> dict[str, tuple[int, str]]:
    """``{path: (floor number, floor name)}`` from the table under ``## Layers``."""
    section = doc_text.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    table: dict[str, tuple[int, str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        head = re.fullmatch(r"(\d+) (\w+)", cells[0]) if line.startswith("|") else None
        if head is None:
            continue
        for path in re.findall(r"`([^`]+)`", cells[1]):
            assert path not in table, f"{path} stands in two rows of the layer table"
            table[path] = (int(head[1]), head[2])
    return table


def module_files(root: Path) -> list[str]:
    """Every module the layering covers, as a path relative to ``root``."""
    files = [p for pkg in PACKAGES for p in (root / pkg).rglob("*.py")]
    files += [root / s for s in SCRIPTS if (root / s).exists()]
    return sorted(p.relative_to(root).as_posix() for p in files)


def layer_of(path: str, table: dict[str, tuple[int, str]]) -> tuple[int, str] | None:
    """The floor of the longest table path that holds ``path`` (a file, or a folder ending in /)."""
    holders = [key for key in table if key == path or (key.endswith("/") and path.startswith(key))]
    return table[max(holders, key=len)] if holders else None


def unplaced(path: str) -> str:
    """What to add to the table for ``path``: its top-most folder below the package, or itself."""
    parts = path.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else path


def module_path(name: str, known: set[str]) -> str | None:
    """``brag_env.ui.cli`` -> ``brag_env/ui/cli.py`` (or the package's ``__init__.py``), if it
    is one of the ``known`` module files."""
    base = name.replace(".", "/")
    for candidate in (f"{base}.py", f"{base}/__init__.py"):
        if candidate in known:
            return candidate
    return None


def statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement in ``body`` and in the blocks nested in it (functions, classes, ``if``,
    ``try``, ``with``, loops, ``match``): where an import can stand. Expressions are not
    entered, which keeps the walk quick."""
    for node in body:
        yield node
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                yield from statements(block)
        for part in [*getattr(node, "handlers", ()), *getattr(node, "cases", ())]:
            yield from statements(part.body)


def imported_modules(path: str, root: Path, known: set[str]) -> list[tuple[int, str]]:
    """``(line, module path)`` of every project module ``path`` imports, anywhere in the file.

    ``from a.b import c`` counts as an import of ``a/b/c.py`` when that is a module, else of
    ``a/b``; relative imports resolve against the importer's package."""
    tree = ast.parse((root / path).read_text(encoding="utf-8"), filename=path)
    package = path.split("/")[:-1]
    found: list[tuple[int, str]] = []
    for node in statements(tree.body):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = package[: len(package) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            names = [f"{base}.{alias.name}" for alias in node.names]
            names = [n if module_path(n, known) else base for n in names]
        else:
            continue
        for name in names:
            if name.split(".")[0] in PACKAGES or f"{name}.py" in SCRIPTS:
                target = module_path(name, known)
                if target is not None:
                    found.append((node.lineno, target))
    return found


def layer_problems(root: Path, table: dict[str, tuple[int, str]]) -> list[str]:
    """One line per module placed on no floor and per import that runs upward."""
    problems: list[str] = []
    files = module_files(root)
    known = set(files)
    for path in files:
        if layer_of(path, table) is None:
            problems.append(
                f"put {unplaced(path)} in a layer (the table under ## Layers in "
                "docs/development.md)"
            )
    for path in files:
        own = layer_of(path, table)
        if own is None:
            continue
        for line, target in imported_modules(path, root, known):
            theirs = layer_of(target, table)
            if theirs is not None and theirs[0] > own[0]:
                problems.append(
                    f"{path}:{line} imports {target}: floor {own[0]} {own[1]} must not import "
                    f"from floor {theirs[0]} {theirs[1]}"
                )
    return list(dict.fromkeys(problems))


TABLE = layer_table(DOC.read_text(encoding="utf-8"))


@pytest.mark.slow  # parses every module: about 0.4 s of CPU, over the quick subset's bound
def test_no_import_runs_upward_and_every_module_has_a_floor():
    problems = layer_problems(ROOT, TABLE)
    assert not problems, "\n".join(problems)


def test_every_path_in_the_table_exists():
    stale = [p for p in TABLE if not (ROOT / p).exists()]
    assert not stale, f"the layer table names paths that are gone: {stale}"


def test_the_floors_are_numbered_one_to_n():
    floors = sorted({floor for floor in TABLE.values()})
    assert [n for n, _ in floors] == list(range(1, len(floors) + 1)), floors


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


SMALL_TABLE = {
    "brag_env/__init__.py": (2, "envs"),
    "brag_env/cards.py": (1, "base"),
    "brag_env/ui/": (3, "tools"),
}


@pytest.mark.parametrize(
    "source",
    [
        "from brag_env.ui.cli import one_line\n",
        "import brag_env.ui.cli\n",
        "from brag_env.ui import cli\n",
        "from .ui import cli\n",
        "def late():\n    from brag_env.ui.cli import one_line\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import brag_env.ui.cli\n",
    ],
)
def test_an_upward_import_is_named_with_its_line_and_both_floors(tmp_path, source):
    root = _tree(
        tmp_path,
        {
            "brag_env/__init__.py": "",
            "brag_env/ui/__init__.py": "",
            "brag_env/ui/cli.py": "",
            "brag_env/cards.py": "import numpy\n\n" + source,
        },
    )
    problems = layer_problems(root, SMALL_TABLE)
    line = 2 + source.count("\n")  # the upward import is the source's last line
    assert problems == [
        f"brag_env/cards.py:{line} imports {'brag_env/ui/cli.py'}: floor 1 base must not "
        "import from floor 3 tools"
    ]


def test_a_downward_import_passes(tmp_path):
    root = _tree(
        tmp_path,
        {
            "brag_env/__init__.py": "from brag_env import cards\n",
            "brag_env/cards.py": "",
            "brag_env/ui/__init__.py": "from brag_env.cards import x\nimport brag_env\n",
        },
    )
    assert layer_problems(root, SMALL_TABLE) == []


@pytest.mark.parametrize(
    ("new_file", "named"),
    [
        ("brag_env/x/__init__.py", "brag_env/x"),
        ("brag_env/x/deep/y.py", "brag_env/x"),
        ("brag_env/x.py", "brag_env/x.py"),
    ],
)
def test_a_module_on_no_floor_is_named(tmp_path, new_file, named):
    root = _tree(tmp_path, {"brag_env/__init__.py": "", "brag_env/cards.py": "", new_file: ""})
    problems = layer_problems(root, SMALL_TABLE)
    assert problems and set(problems) == {
        f"put {named} in a layer (the table under ## Layers in docs/development.md)"
    }
