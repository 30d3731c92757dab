"""The game table (brag_env/games.py) is the one place that tells the games apart.

A module that behaves differently per game asks the game's ``GameSpec``; a switch on a game's
name anywhere else in ``brag_env/``, ``agents/``, ``bench/`` or the two scripts is refused,
naming the file and line: a comparison with a game's or an env's name (``game == "brag"``,
``game in ("brag", "brag7")``, ``env == "put_v1"``), a prefix test (``game.startswith("put")``),
a ``case`` of a ``match`` on one, a dict keyed by games' names (``{"brag": ...}``,
``dict(put=...)``), or a tuple, list or set of two or more games' names (``SESSION_GAMES =
("brag", "brag7")``, kept to compare with later). A game's own modules are not scanned: its
folder (``brag_env/put/``) and the modules named after it (``agents/put.py``,
``brag_env/ui/put_view.py``, ``brag_env/put_v1.py``, ``bench/put_exploit.py``), where "put" is
also an action's name. The table's ``"module:attribute"`` entries must all resolve.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import gymnasium
import pytest

from agents.registry import styles
from brag_env import games
from brag_env.games import GAME_NAMES, GAMES, GameSpec, game_of_env, game_spec
from brag_env.registry import ENVIRONMENTS, GYMNASIUM_ENVIRONMENTS

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("brag_env", "agents", "bench")
SCRIPTS = ("train.py", "evaluate.py")
TABLE = "brag_env/games.py"
OWN_FOLDERS = tuple(f"brag_env/{name}/" for name in GAME_NAMES)
#: A game's name or one of its envs' (``"put_v1"``): a switch on either tells the games apart.
SWITCH_NAMES = frozenset(GAME_NAMES) | {env for spec in GAMES.values() for env in spec.envs}
PREFIX_TESTS = ("startswith", "endswith", "removeprefix", "removesuffix")


def own_module(path: str) -> bool:
    """Whether ``path`` belongs to one game: its folder, or a module named after it."""
    stem = path.rsplit("/", 1)[-1].removesuffix(".py")
    return path.startswith(OWN_FOLDERS) or any(
        stem == name or stem.startswith(f"{name}_") for name in GAME_NAMES
    )


def _names_in(node: ast.expr) -> list[str]:
    """The game or env names ``node`` spells: a string constant, or a tuple/list/set of them."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if node.value in SWITCH_NAMES else []
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [name for item in node.elts for name in _names_in(item)]
    return []


def _switch(node: ast.AST, inside: set[int]) -> ast.AST | None:
    """The part of ``node`` that switches on a game's name, or None; the collections it
    consumes go into ``inside`` so they are not reported a second time."""
    if isinstance(node, ast.Compare):
        sides = [node.left, *node.comparators]
        inside.update(id(side) for side in sides)
        return node if any(_names_in(side) for side in sides) else None
    if isinstance(node, ast.Dict):
        named = any(key is not None and _names_in(key) for key in node.keys)
        return node if named else None
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in PREFIX_TESTS and node.args:
            inside.add(id(node.args[0]))
            return node if _names_in(node.args[0]) else None
        if isinstance(func, ast.Name) and func.id == "dict":
            return node if any(k.arg in SWITCH_NAMES for k in node.keywords) else None
        return None
    if isinstance(node, ast.Match):
        patterns = [p for case in node.cases for p in ast.walk(case.pattern)]
        values = [p.value for p in patterns if isinstance(p, ast.MatchValue)]
        return node if any(_names_in(value) for value in values) else None
    if isinstance(node, ast.Tuple | ast.List | ast.Set) and id(node) not in inside:
        flat = [item for item in node.elts if _names_in(item) and isinstance(item, ast.Constant)]
        return node if len(node.elts) >= 2 and len(flat) == len(node.elts) else None
    return None


def game_branches(path: str, source: str) -> list[str]:
    """``path:line: source`` of every switch on a game's name in ``source`` (see the module
    docstring for the forms)."""
    found = []
    inside: set[int] = set()
    for node in ast.walk(ast.parse(source, filename=path)):  # breadth first: parents first
        switch = _switch(node, inside)
        if switch is not None:
            text = (ast.get_source_segment(source, switch) or "").split("\n", 1)[0]
            found.append(f"{path}:{switch.lineno}: {text}")
    return found


def scanned_modules(root: Path) -> list[str]:
    files = [p for pkg in PACKAGES for p in (root / pkg).rglob("*.py")]
    files += [root / s for s in SCRIPTS if (root / s).exists()]
    paths = sorted(p.relative_to(root).as_posix() for p in files)
    return [p for p in paths if p != TABLE and not own_module(p)]


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
        'UNITS = {"put": "matches", "brag7": "deals"}\n',
        'UNITS = dict(put="matches", brag7="deals")\n',
        'if game.startswith("put"):\n    pass\n',
        'if env_name == "put_v1":\n    pass\n',
        'ok = env.endswith(("brag_v0", "brag_v1"))\n',
        'match game:\n    case "brag" | "brag7":\n        pass\n',
        'SESSION_GAMES = ("brag", "brag7")\n',
        'ok = game in {"brag", "put"} and x\n',
    ],
)
def test_a_comparison_with_a_game_name_is_found_with_its_line(source):
    text = "import os\n" + source
    (line,) = game_branches("brag_env/x.py", text)
    assert line.startswith("brag_env/x.py:2: ")


def test_other_strings_pass():
    source = (
        'ok = game == "chess" or "brag:tight" in specs or {"see": 1}[game]\n'
        'names = ("put", "no_put")\n'  # Put's action names beside others
        'ok = action.startswith("play_") and f(put=1) and dict(see=2)\n'
        'match action:\n    case "see":\n        pass\n'
    )
    assert game_branches("brag_env/x.py", source) == []


def test_a_games_own_modules_are_not_scanned():
    own = ["brag_env/put/game.py", "agents/put.py", "brag_env/ui/put_view.py", "brag_env/put_v1.py"]
    assert all(own_module(path) for path in own)
    shared = ["brag_env/ui/seating.py", "brag_env/evaluation/games.py", "agents/putter.py"]
    assert not any(own_module(path) for path in shared)
    scanned = scanned_modules(ROOT)
    assert TABLE not in scanned and "brag_env/replay.py" in scanned
    assert {"bench/invariants.py", "bench/batched_speed.py"} <= set(scanned)
    assert "bench/put_exploit.py" not in scanned


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
        if isinstance(getattr(spec, f.name), str) and ":" in getattr(spec, f.name)
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
    for module in spec.agents:
        games.load(module)
    assert f"{name}:random" in {f"{name}:{style}" for style in styles(name)}
    assert spec.load("adapter")().name == name
    # The pieces that say their game are the game's own, not another's under its name.
    assert spec.load("web_table").game == name
    assert gymnasium.make(spec.selfplay_id, opponents=["random"]).unwrapped.game == name
    assert spec.config_class().to_dict()["num_players"] == spec.default_num_players


def test_a_missing_optional_entry_is_a_one_line_error():
    with pytest.raises(ValueError, match=r"^brag7 has no batched engine$"):
        GAMES["brag7"].load("batched_engine")
