"""Decisions/s of the batched Put and Brag engines against OpenSpiel's leduc_poker and PettingZoo.

    python bench/batched_speed.py              # N = 256, 1024, 4096 tables, 3 repetitions
    python bench/batched_speed.py --quick
    python bench/batched_speed.py --only brag  # the Brag rows and the two references
    python bench/batched_speed.py --tables 4096  # one table count (the VecEnv rows: 4096)

Needs the ``bench`` extra (open_spiel, rlcard). Every row plays uniform random legal actions
and builds the acting player's observation at every decision:

    batched put N     ``BatchedPut`` with N tables: ``legal_mask``, ``observe`` of the seats to act,
                      a uniform legal action per table, ``step``; finished matches start anew
    self-play VecEnv  ``BatchedSelfPlayVecEnv`` (N tables, the learner random, the four Put
                      baselines as opponents); counts learner and opponent decisions
    batched brag P N  ``BatchedBrag`` with N one-hand tables of P players (the training
                      configs' rules), the same loop as the Put rows; finished hands start anew
    brag VecEnv       ``BatchedSelfPlayVecEnv`` on heads-up Brag, brag_headsup_ppo's pool
    open_spiel leduc  ``pyspiel.load_game("leduc_poker")``: ``legal_actions``,
                      ``observation_tensor``, ``apply_action`` (the game is C++; the loop is
                      the usual Python one over pyspiel)
    pettingzoo leduc  ``leduc_holdem_v4.env()`` through the AEC loop (bench/throughput.py's)

The batched and VecEnv rows draw their random actions with one compiled loop over the masks
(``_uniform_legal``: the same actions the numpy draw it replaced gave, one uniform per row);
the OpenSpiel row indexes its list of legal actions with a uniform, as a Python caller of
pyspiel would.

Rates use process CPU time; each repetition runs every row once (interleaved) and the table
shows medians over repetitions; ratios are paired within a repetition, and the last column
gives their range over the repetitions (the machine is shared: a ratio's spread says more than
any one rate).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from brag_env.games import game_spec, games_with
from brag_env.training.batched import BatchedSelfPlayVecEnv, make_engine
from brag_env.training.cli import SHIPPED_CONFIGS
from brag_env.training.config import TrainConfig, load_config


# Not cached on disk: Numba's cache would name the module the function was first compiled in,
# and this file runs as a script and is loaded under other names (the tests), which then fail
# to load it. The compile (well under a second) falls in each row's untimed warm-up.
@njit
def _pick_legal(masks: np.ndarray, uniforms: np.ndarray, out: np.ndarray) -> None:
    """Row k's action: the first whose running count of legal actions exceeds
    ``int(uniforms[k] * legal)``, that is how many running counts do not (no branch on the
    uniforms: they mispredict); 0 on a row with none legal."""
    actions = masks.shape[1]
    for k in range(masks.shape[0]):
        legal = 0
        for a in range(actions):
            legal += masks[k, a] != 0
        pick = np.int64(uniforms[k] * legal)
        choice, seen = 0, 0
        for a in range(actions):
            seen += masks[k, a] != 0
            choice += seen <= pick
        out[k] = choice if legal else 0


def _uniform_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniform legal action per row of 0/1 masks, one uniform of ``rng`` per row: the same
    actions as ``_uniform_legal_numpy`` (the bench's earlier numpy draw), 4-5 times faster at
    4,096 rows, so that the draw weighs less in the rows' time than the engines' calls."""
    uniforms = rng.random(len(masks))
    out = np.empty(len(masks), np.int64)
    # bool masks (the VecEnv's) as the int8 they are in memory: one compiled version, the
    # engines' rows' warm-up compiles it
    _pick_legal(masks.view(np.int8) if masks.dtype == np.bool_ else masks, uniforms, out)
    return out


def _uniform_legal_numpy(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The numpy form of ``_uniform_legal`` (int8 cumulative sums: at most 29 legal)."""
    legal = masks.cumsum(axis=1, dtype=np.int8)
    pick = (rng.random(len(masks)) * legal[:, -1]).astype(np.int8)
    return (legal > pick[:, None]).argmax(axis=1)


def batched(game: str, options: dict[str, Any], tables: int, decisions: int) -> float:
    """Random play on the game's batched engine (its table entry) at ``tables`` tables, after
    a few untimed decisions at two tables: the kernels' first calls compile them when Numba's
    cache is cold (a new checkout), which would land in the first row's figure."""
    _random_play(make_engine(game, options, 2, seed=0), 8)
    return _random_play(make_engine(game, options, tables, seed=0), decisions)


class GameRows(NamedTuple):
    """One game's rows: its batched engine at each table count, per table of rules, and its
    self-play VecEnv at 4096 tables. The rules and the VecEnv's opponents are a shipped
    training config's (``training``), so the rows time the tables that config trains on."""

    game: str  # a name of the game table (brag_env/games.py), the config's ``game``
    config: str  # the training config in brag_env/configs/, without ".yaml"
    engines: dict[str, dict[str, Any]]  # a row's label (" N=..." follows) -> options changed
    vecenv: str  # the VecEnv row's label

    @property
    def training(self) -> TrainConfig:
        return load_config(SHIPPED_CONFIGS / f"{self.config}.yaml")

    def engine_options(self) -> dict[str, dict[str, Any]]:
        """Each engine row's table options: the config's, with the row's changes."""
        table = self.training.env
        return {label: {**table, **changes} for label, changes in self.engines.items()}


#: Every game with a batched engine, in the order of the printed rows.
GAME_ROWS: dict[str, GameRows] = {
    game_spec(rows.game).name: rows  # a name the table does not know fails here
    for rows in (
        GameRows("put", "put_ppo", {"batched put": {}}, "self-play VecEnv N=4096"),
        GameRows(
            "brag",
            "brag_headsup_ppo",  # brag_ppo.yaml's table too, the player count aside
            {f"batched brag {p}p": {"num_players": p} for p in (2, 4)},
            "brag VecEnv 2p N=4096",
        ),
    )
}


def _random_play(game, decisions: int) -> float:
    """Uniform random legal play on a batched engine: observe, mask, step, new_session."""
    tables = game.n
    game.new_session()
    rng = np.random.default_rng(0)
    rows = np.arange(tables)
    out = np.zeros((tables, game.obs_size), np.float32)
    done = 0
    start = time.process_time()
    while done < decisions:
        game.observe(rows, game.current_player, out)
        actions = _uniform_legal(game.legal_mask(rows), rng)
        _, over = game.step(rows, actions)
        done += tables
        if over.any():
            game.new_session(np.flatnonzero(over))
    return done / (time.process_time() - start)


def selfplay_vecenv(tables: int, decisions: int, rows: GameRows) -> float:
    training = rows.training
    venv = BatchedSelfPlayVecEnv(
        rows.game, training.env, tables, opponents=list(training.pool.opponents), seed=0
    )
    venv.reset()
    rng = np.random.default_rng(0)
    counted = [0]
    step = venv.engine.step

    def counting_step(rows, actions):
        counted[0] += len(rows)
        return step(rows, actions)

    venv.engine.step = counting_step
    _uniform_legal(venv.action_masks(), np.random.default_rng(1))  # compiled before the clock
    start = time.process_time()
    while counted[0] < decisions:
        venv.step(_uniform_legal(venv.action_masks(), rng))
    return counted[0] / (time.process_time() - start)


def open_spiel_leduc(decisions: int) -> float:
    import pyspiel

    game = pyspiel.load_game("leduc_poker")
    rng = np.random.default_rng(0)
    uniforms = iter(rng.random(decisions * 3).tolist())
    done = 0
    start = time.process_time()
    while done < decisions:
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            if state.is_chance_node():
                state.apply_action(legal[int(next(uniforms) * len(legal))])
                continue
            state.observation_tensor(state.current_player())
            state.apply_action(legal[int(next(uniforms) * len(legal))])
            done += 1
    return done / (time.process_time() - start)


def pettingzoo_leduc(decisions: int) -> float:
    import throughput as tp
    from pettingzoo.classic import leduc_holdem_v4

    env = leduc_holdem_v4.env()
    episodes = max(1, decisions // 3)
    sample = tp.play_env(env, episodes, 0, tp._one_hand)
    return sample.decisions / sample.seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--only", choices=games_with("batched_engine"), help="one game's rows (and references)"
    )
    parser.add_argument(
        "--tables", type=int, choices=(256, 1024, 4096), help="one table count (default: all)"
    )
    args = parser.parse_args(argv)
    decisions = 100_000 if args.quick else 400_000
    repeats = 1 if args.quick else args.repeats
    sizes = (args.tables,) if args.tables else (256, 1024, 4096)
    rows: dict[str, Callable[[], float]] = {}
    for game in GAME_ROWS.values():
        if args.only in (None, game.game):
            for label, options in game.engine_options().items():
                for n in sizes:
                    rows[f"{label} N={n}"] = partial(batched, game.game, options, n, decisions)
            rows[game.vecenv] = partial(selfplay_vecenv, 4096, decisions, game)
    rows |= {
        "open_spiel leduc_poker": lambda: open_spiel_leduc(decisions // 4),
        "pettingzoo leduc env()": lambda: pettingzoo_leduc(decisions // 8),
    }
    rates: dict[str, list[float]] = {name: [] for name in rows}
    for _ in range(repeats):
        for name, fn in rows.items():
            rates[name].append(fn())
    print(f"load average {os.getloadavg()[0]:.1f}, {repeats} repetition(s), CPU time")
    print(
        f"{'row':<26} {'decisions/s':>12} {'/ open_spiel':>13} {'/ pettingzoo':>13} "
        f"{'/ open_spiel range':>19}"
    )
    for name, values in rates.items():
        paired = [v / o for v, o in zip(values, rates["open_spiel leduc_poker"], strict=True)]
        ratio_os = statistics.median(paired)
        ratio_pz = statistics.median(
            v / o for v, o in zip(values, rates["pettingzoo leduc env()"], strict=True)
        )
        spread = f"{min(paired):.2f}-{max(paired):.2f}x"
        print(
            f"{name:<26} {statistics.median(values):>12,.0f} {ratio_os:>12.2f}x {ratio_pz:>12.2f}x "
            f"{spread:>19}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
