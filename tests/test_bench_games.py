"""The bench scripts' per-game data (bench/invariants.py, bench/batched_speed.py,
bench/agent_speed.py) is keyed by the game table's names, what the table or a shipped config
holds is read from there, and bench/invariants.py still runs each game's checks end to end.

Tiny budgets: this keeps the scripts working, it does not fuzz (the script's own runs do).
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from brag_env.games import GAME_NAMES, game_spec, games_with

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def invariants() -> ModuleType:
    return _load("invariants")


def test_the_checked_games_and_their_flags_come_from_the_table(invariants):
    assert invariants.CHECKED == ("brag", "put")  # the table's order, Seven-card Brag unchecked
    fuzzers = invariants.FUZZERS.items()
    assert all(name == fuzz.game and name in GAME_NAMES for name, fuzz in fuzzers)
    with pytest.raises(SystemExit):  # a game without checks is not a choice
        invariants.main(["--game", "brag7"])
    assert {fuzz.game for fuzz in invariants.VARIANTS.values()} <= set(invariants.CHECKED)


def test_both_games_run_and_report(invariants, capsys):
    assert invariants.main(["--decisions", "300", "--seed", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    heads = [line.split(":")[0] for line in lines if not line.startswith(" ")]
    assert heads == ["brag", "put"]  # the table's order
    assert all(" 0 failures, " in line for line in lines if not line.startswith(" "))
    assert any(line.startswith("  hands that carried the pot: ") for line in lines)
    assert any(line.startswith("  hands by cards_dealt: ") for line in lines)


def test_a_variant_fixes_its_games_options(invariants, capsys):
    assert invariants.main(["--game", "brag", "--variant", "b22", "--decisions", "300"]) == 0
    (by_cards,) = [line for line in capsys.readouterr().out.splitlines() if "by cards" in line]
    dealt = {int(item.split(":")[0]) for item in by_cards.split(": ", 1)[1].split(", ")}
    assert dealt <= {4, 5} and dealt  # B22: no three-card hands


def test_a_failed_check_is_reported_and_sets_the_exit_status(invariants, capsys, monkeypatch):
    put = invariants.FUZZERS["put"]

    def failing(env, seed, rnd, checker):
        checker.check(False, "planted", f"seed {seed}")
        return put.episode(env, seed, rnd, checker)

    monkeypatch.setitem(invariants.FUZZERS, "put", dataclasses.replace(put, episode=failing))
    assert invariants.main(["--game", "put", "--decisions", "50"]) == 1
    out = capsys.readouterr().out
    assert " x planted" in out and "e.g. planted: seed " in out


def test_a_put_failure_names_the_hand_as_its_record_does(invariants, monkeypatch):
    """The failure line's hand is the history's ``hand``, from 1, not the engine's number."""
    seen: list[tuple[str, int]] = []
    common = invariants._common

    def spy(env, agent, checker, where):
        seen.append((where, env.game.history()[-1]["hand"] + 1 if env.game.records else 1))
        return common(env, agent, checker, where)

    monkeypatch.setattr(invariants, "_common", spy)
    assert (
        invariants.main(["--game", "put", "--decisions", "200", "--put-options", "target_points=7"])
        == 0
    )
    assert seen and all(f" hand {number} decision " in where for where, number in seen)


def test_the_batched_rows_are_the_games_with_a_batched_engine():
    batched_speed = _load("batched_speed")
    assert set(batched_speed.GAME_ROWS) == set(games_with("batched_engine"))
    assert all(name == rows.game for name, rows in batched_speed.GAME_ROWS.items())


def test_the_checked_envs_are_the_tables_default_envs(invariants):
    for name, fuzz in invariants.FUZZERS.items():
        module = importlib.import_module(game_spec(name).env_module)
        assert fuzz.make is module.raw_env


def test_the_batched_rows_time_their_training_configs_tables():
    """Each game's rows play the table and the pool of the shipped config they name, with only
    the row's own changes (the player count) on top."""
    batched_speed = _load("batched_speed")
    for name, rows in batched_speed.GAME_ROWS.items():
        training = rows.training
        assert training.game == name and training.pool.opponents
        for label, options in rows.engine_options().items():
            assert options == {**training.env, **rows.engines[label]}
    brag = batched_speed.GAME_ROWS["brag"].engine_options()
    assert [options["num_players"] for options in brag.values()] == [2, 4]
    assert all(options["raise_sizes"] == [2] for options in brag.values())


def test_the_agent_rows_are_each_games_baselines_at_its_default_env():
    agent_speed = _load("agent_speed")
    assert set(agent_speed.TIMED) <= set(GAME_NAMES)
    for name, timed in agent_speed.TIMED.items():
        assert timed.game == name
        games = {spec.partition(":")[0] for spec in timed.baselines if ":" in spec}
        assert games == {name}  # every game-named baseline is of the row's game
        env = agent_speed.heads_up_env(name)
        assert type(env).__module__ == game_spec(name).env_module
        assert len(env.possible_agents) == 2


def test_a_batched_row_plays_an_untimed_warm_up_first(monkeypatch):
    """The kernels compile on their first call when Numba's cache is cold: ``batched`` plays a
    two-table engine before the timed one, so the compile is not in the first row's figure."""
    batched_speed = _load("batched_speed")
    built, played = [], []
    real = batched_speed.make_engine

    def make_engine(game, options, tables, seed):
        built.append(tables)
        return real(game, options, tables, seed)

    monkeypatch.setattr(batched_speed, "make_engine", make_engine)
    monkeypatch.setattr(batched_speed, "_random_play", lambda game, n: played.append(game.n))
    batched_speed.batched("put", {}, 256, 1000)
    assert built == [2, 256] and played == [2, 256]


@pytest.mark.parametrize("actions", [8, 29])  # heads-up Brag's training table, Put
def test_the_compiled_random_draw_picks_as_the_numpy_one(actions):
    """batched_speed's random player: the compiled draw gives the numpy draw's action on every
    row (the same uniform per row, so the rows play the same games as before), a legal one,
    and 0 on a row with nothing legal; both mask dtypes the loops pass (int8, the VecEnv's
    bool)."""
    batched_speed = _load("batched_speed")
    rng = np.random.default_rng(3)
    masks = (rng.random((2000, actions)) < rng.random((2000, 1))).astype(np.int8)
    masks[:7] = 0
    masks[7:9] = 1
    for given in (masks, masks.astype(bool)):
        fast = batched_speed._uniform_legal(given, np.random.default_rng(5))
        slow = batched_speed._uniform_legal_numpy(given, np.random.default_rng(5))
        assert fast.dtype == np.int64 and (fast == slow).all()
        some = masks.any(axis=1)
        assert (masks[some, fast[some]] == 1).all() and (fast[~some] == 0).all()
    # each of three legal actions about a third of the time (3,000 draws; 1,000 +- 8 sd)
    row = np.zeros((3000, actions), np.int8)
    row[:, [1, 4, actions - 1]] = 1
    drawn = np.bincount(batched_speed._uniform_legal(row, rng), minlength=actions)
    assert set(np.flatnonzero(drawn)) == {1, 4, actions - 1}
    assert all(800 <= drawn[a] <= 1200 for a in (1, 4, actions - 1))


@pytest.mark.parametrize(
    ("argv", "why"),
    [
        (["--game", "put", "--put-options", "deck_ranks=99"], "--put-options: deck_ranks must be"),
        (["--game", "put", "--put-options", "nokey=1"], "--put-options: unknown Put option"),
        (["--game", "brag", "--decisions", "0"], "--decisions: must be at least 1, got 0"),
    ],
)
def test_bad_options_are_a_usage_line(invariants, capsys, argv, why):
    with pytest.raises(SystemExit) as code:
        invariants.main(argv)
    assert code.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert why in err[-1] and "Traceback" not in "".join(err)
