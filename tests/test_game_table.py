"""The game table (brag_env/games.py) is the one place that tells the games apart.

A module that behaves differently per game asks the game's ``GameSpec``; a comparison of a
value with a game's name (``game == "brag"``, ``game in ("brag", "brag7")``) anywhere else in
``brag_env/``, ``agents/`` or the two scripts is refused, naming the file and line. The games'
own folders (``brag_env/brag/``, ``brag_env/put/``, ``brag_env/brag7/``) hold one game each and
are not scanned. The table's ``"module:attribute"`` entries must all resolve.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from brag_env import games
from brag_env.games import GAME_NAMES, GAMES, GameSpec, game_of_env, game_spec
from brag_env.registry import ENVIRONMENTS, GYMNASIUM_ENVIRONMENTS

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("brag_env", "agents")
SCRIPTS = ("train.py", "evaluate.py")
TABLE = "brag_env/games.py"
OWN_FOLDERS = ("brag_env/brag/", "brag_env/put/", "brag_env/brag7/")
#: Comparisons with a game's name that are not about the game: (file, source) -> why.
NOT_A_GAME = {
    ("brag_env/ui/put_view.py", 'action == "put"'): "the Put action, not the game",
    ("brag_env/ui/put_view.py", '"put" in notes'): "the note of a Put call",
}


def _names_in(node: ast.expr) -> list[str]:
    """The game names ``node`` spells: a string constant, or a tuple/list/set of them."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if node.value in GAME_NAMES else []
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [name for item in node.elts for name in _names_in(item)]
    return []


def game_branches(path: str, source: str) -> list[str]:
    """``path:line: source`` of every comparison in ``source`` with a game's name."""
    found = []
    for node in ast.walk(ast.parse(source, filename=path)):
        if not isinstance(node, ast.Compare):
            continue
        if not any(_names_in(side) for side in [node.left, *node.comparators]):
            continue
        text = ast.get_source_segment(source, node) or ""
        if (path, text) not in NOT_A_GAME:
            found.append(f"{path}:{node.lineno}: {text}")
    return found


def scanned_modules(root: Path) -> list[str]:
    files = [p for pkg in PACKAGES for p in (root / pkg).rglob("*.py")]
    files += [root / s for s in SCRIPTS if (root / s).exists()]
    paths = sorted(p.relative_to(root).as_posix() for p in files)
    return [p for p in paths if p != TABLE and not p.startswith(OWN_FOLDERS)]


@pytest.mark.slow  # parses every module outside the games' folders: about 0.5 s of CPU
def test_no_module_outside_the_table_branches_on_a_game_name():
    branches = [
        line
        for path in scanned_modules(ROOT)
        for line in game_branches(path, (ROOT / path).read_text(encoding="utf-8"))
    ]
    assert not branches, "ask the game's GameSpec (brag_env/games.py) instead:\n" + "\n".join(
        branches
    )


@pytest.mark.parametrize(
    "source",
    [
        'if game == "brag":\n    pass\n',
        'x = 1 if "put" != spec.game else 2\n',
        'ok = record["_game"] in ("brag", "brag7")\n',
        'ok = game not in ["brag7"]\n',
    ],
)
def test_a_comparison_with_a_game_name_is_found_with_its_line(source):
    text = "import os\n" + source
    (line,) = game_branches("brag_env/x.py", text)
    assert line.startswith("brag_env/x.py:2: ")


def test_other_strings_and_the_listed_exceptions_pass():
    assert game_branches("brag_env/x.py", 'ok = game == "chess" or "brag:tight" in specs\n') == []
    assert game_branches("brag_env/ui/put_view.py", 'ok = action == "put"\n') == []
    assert game_branches("brag_env/ui/other.py", 'ok = action == "put"\n') != []


def test_the_table_names_each_game_once_under_its_own_name():
    assert GAME_NAMES == ("brag", "put", "brag7")
    assert all(name == spec.name for name, spec in GAMES.items())
    assert game_spec("PUT") is GAMES["put"]
    with pytest.raises(ValueError, match=r"unknown game 'chess'; games: brag, put, brag7"):
        game_spec("chess")


def test_the_env_registries_are_the_tables_envs():
    assert set(ENVIRONMENTS) == {env for spec in GAMES.values() for env in spec.envs}
    assert {game_of_env(env).name for env in ENVIRONMENTS} == set(GAME_NAMES)  # type: ignore[union-attr]
    assert game_of_env("chess_v0") is None
    assert set(GYMNASIUM_ENVIRONMENTS) == {spec.selfplay_id for spec in GAMES.values()}
    for spec in GAMES.values():
        assert spec.default_env in spec.envs
        assert spec.default_num_players in spec.num_players


def _references(spec: GameSpec) -> dict[str, str]:
    """The spec's ``"module:attribute"`` fields that are set."""
    return {
        f.name: getattr(spec, f.name)
        for f in dataclasses.fields(spec)
        if isinstance(getattr(spec, f.name), str)
        and ":" in getattr(spec, f.name)
        and f.name not in ("title",)
    }


@pytest.mark.slow  # imports the envs, the evaluators, the web tables and the batched trainer
@pytest.mark.parametrize("name", GAME_NAMES)
def test_every_reference_of_the_table_resolves(name):
    spec = GAMES[name]
    refs = _references(spec)
    assert {"config", "adapter", "replayer", "record_check", "play_session", "web_table"} <= set(
        refs
    )
    for field, path in refs.items():
        assert games.load(path) is not None, f"{name}.{field} = {path!r}"
    for env, module in spec.envs.items():
        assert games.load(module).raw_env().metadata["name"] == env
    assert spec.load("adapter")().name == name
    assert spec.config_class().to_dict()["num_players"] == spec.default_num_players


def test_a_missing_optional_entry_is_a_one_line_error():
    with pytest.raises(ValueError, match=r"^brag7 has no batched engine$"):
        GAMES["brag7"].load("batched_engine")
