"""Throughput of brag-env side by side with PettingZoo's classic poker envs.

Run from the repository root (PettingZoo's poker envs need the ``bench`` extra: rlcard):

    python bench/throughput.py            # full run, a few minutes at most
    python bench/throughput.py --quick    # smaller and fewer repetitions, about a minute

What is timed
    env rows      N whole episodes through the standard AEC loop: ``agent_iter()``, ``last()``
                  (so an observation is built at every decision), the policy, ``step()``; the
                  ``reset()`` before each episode too. Env construction is not timed.
    engine rows   N sessions/matches straight on the rules engine: no PettingZoo layer, no
                  observation; ``legal_actions()``, the policy and ``apply()``.
    hand eval     ``hand_strength_batch`` on one array of random distinct-card hands.
The policy is the same everywhere: a uniform choice among the legal actions (``nonzero()`` of
the action mask, or the engine's legal list), with uniforms pre-drawn in blocks from a seeded
numpy Generator. Its own cost per decision is printed separately.

Each repetition times every row once, in a fixed interleaved order (A B C ... A B C ...), so
slow phases of a shared machine hit every row alike. Ratios are taken within a repetition
(paired) and their median is reported; the decisions/s columns are medians over repetitions.
The comparison table states ratios and rates only: how fast is fast enough depends on the use.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from brag_env import brag_v1, put_v0
from brag_env.brag.game import BragGame
from brag_env.brag.hands import ALL_HANDS, hand_strength_batch
from brag_env.brag.rules import BragConfig
from brag_env.put.game import PutGame
from brag_env.put.rules import PutConfig

_BLOCK = 4096  # uniforms drawn per refill of the policy's random stream


def _uniforms(rng: np.random.Generator) -> Iterator[float]:
    """An endless stream of uniforms in [0, 1), drawn in blocks (cheap per decision)."""
    while True:
        yield from rng.random(_BLOCK).tolist()


@dataclass
class Sample:
    seconds: float  # CPU time of this process (time.process_time)
    wall: float  # elapsed time (time.perf_counter)
    decisions: int
    hands: int


class _Clock:
    """CPU and wall time together. Rates use CPU time: on a shared machine it counts only the
    time this process ran, so other jobs disturb it far less than the wall clock."""

    def __init__(self) -> None:
        self.cpu = time.process_time()
        self.wall = time.perf_counter()

    def sample(self, decisions: int, hands: int) -> Sample:
        return Sample(
            time.process_time() - self.cpu, time.perf_counter() - self.wall, decisions, hands
        )


# ---------------------------------------------------------------------- what is timed
def play_env(env: Any, episodes: int, seed: int, count_hands: Callable[[Any], int]) -> Sample:
    """``episodes`` episodes of random legal play through the AEC loop (see the docstring)."""
    uniform = _uniforms(np.random.default_rng(seed)).__next__
    env.reset(seed=seed)  # seeding an rlcard env rebuilds it: once, before the clock
    decisions = hands = 0
    clock = _Clock()
    for episode in range(episodes):
        if episode:
            env.reset()
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                legal = obs["action_mask"].nonzero()[0]
                action = int(legal[int(uniform() * len(legal))])
                decisions += 1
            env.step(action)
        hands += count_hands(env)
    return clock.sample(decisions, hands)


def play_engine(game: Any, episodes: int, seed: int, played: str) -> Sample:
    """``episodes`` episodes of random legal play straight on an engine, no env around it, in
    the engines' shared words (``new_session``, ``session_over``); ``played`` names the list
    of the episode's finished hands (the objects, not ``history()``'s JSON)."""
    rng = np.random.default_rng(seed)
    uniform = _uniforms(rng).__next__
    decisions = hands = 0
    clock = _Clock()
    for _ in range(episodes):
        game.new_session(rng)
        while not game.session_over:
            legal = game.legal_actions()
            game.apply(legal[int(uniform() * len(legal))])
            decisions += 1
        hands += len(getattr(game, played))
    return clock.sample(decisions, hands)


def play_brag_engine(config: BragConfig, sessions: int, seed: int) -> Sample:
    return play_engine(BragGame(config), sessions, seed, "hand_results")


def play_put_engine(config: PutConfig, matches: int, seed: int) -> Sample:
    return play_engine(PutGame(config), matches, seed, "records")


def eval_hands(hands: np.ndarray, calls: int) -> Sample:
    clock = _Clock()
    for _ in range(calls):
        hand_strength_batch(hands)
    return clock.sample(0, calls * len(hands))


def policy_only(decisions: int, seed: int) -> Sample:
    """The policy alone on a fixed mask: the share of every env row that is not the env."""
    uniform = _uniforms(np.random.default_rng(seed)).__next__
    mask = np.array([1, 1, 1, 0, 1, 0, 0], dtype=np.int8)
    clock = _Clock()
    for _ in range(decisions):
        legal = mask.nonzero()[0]
        int(legal[int(uniform() * len(legal))])
    return clock.sample(decisions, 0)


# ---------------------------------------------------------------------- the rows
def _one_hand(env: Any) -> int:
    return 1


def _brag_hands(env: Any) -> int:
    return len(env.unwrapped.game.hand_results)


def _put_hands(env: Any) -> int:
    return len(env.unwrapped.game.records)


@dataclass
class Row:
    name: str
    kind: str  # "env", "engine", "eval", "policy"
    run: Callable[[int], Sample]  # seed -> one timed sample
    samples: list[Sample] = field(default_factory=list)

    def median(self, attr: str, clock: str = "seconds") -> float:
        return statistics.median(getattr(s, attr) / getattr(s, clock) for s in self.samples)


def _env_row(name: str, make: Callable[[], Any], episodes: int, hands: Callable) -> Row:
    env = make()
    return Row(name, "env", lambda seed: play_env(env, episodes, seed, hands))


def build_rows(games: int, put_matches: int, eval_size: int) -> list[Row]:
    from pettingzoo.classic import leduc_holdem_v4, texas_holdem_v4

    rows = [
        _env_row("leduc_holdem_v4.env()", leduc_holdem_v4.env, games, _one_hand),
        _env_row("brag_v1.env(4 players)", lambda: brag_v1.env(num_players=4), games, _brag_hands),
        _env_row("texas_holdem_v4.env()", texas_holdem_v4.env, games, _one_hand),
        _env_row("put_v0.env()", put_v0.env, put_matches, _put_hands),
        _env_row("leduc_holdem_v4.raw_env()", leduc_holdem_v4.raw_env, games, _one_hand),
        _env_row(
            "brag_v1.raw_env(4 players)", lambda: brag_v1.raw_env(num_players=4), games, _brag_hands
        ),
        _env_row("put_v0.raw_env()", put_v0.raw_env, put_matches, _put_hands),
        _env_row("texas_holdem_v4.raw_env()", texas_holdem_v4.raw_env, games, _one_hand),
        _env_row("brag_v1.env(2 players)", lambda: brag_v1.env(num_players=2), games, _brag_hands),
        _env_row("brag_v1.env(8 players)", lambda: brag_v1.env(num_players=8), games, _brag_hands),
    ]
    brag4 = BragConfig(num_players=4)
    session = BragConfig(num_players=4, hands_per_session=100)
    rows += [
        Row("Brag engine, 4 players", "engine", lambda s: play_brag_engine(brag4, games, s)),
        Row(
            "Brag engine, 4 players, 100-hand sessions",
            "engine",
            lambda s: play_brag_engine(session, max(1, games // 100), s),
        ),
        Row(
            "Put engine, 2 players",
            "engine",
            lambda s: play_put_engine(PutConfig(), put_matches, s),
        ),
        Row("policy alone (per decision)", "policy", lambda s: policy_only(20 * games, s)),
    ]
    # Random hands with distinct cards: rows of the table of all hands, cards in random order.
    rng = np.random.default_rng(0)
    hands = ALL_HANDS[rng.integers(len(ALL_HANDS), size=eval_size)]
    hands = np.take_along_axis(hands, rng.permuted(np.tile([0, 1, 2], (eval_size, 1)), axis=1), 1)
    rows.append(Row("hand_strength_batch", "eval", lambda s: eval_hands(hands, 5)))
    return rows


# ---------------------------------------------------------------------- comparisons
@dataclass(frozen=True)
class Comparison:
    label: str
    row: str
    per: str  # "decisions" or "hands"
    reference: str | None  # a row name (paired ratio) or None (the row's own rate)


COMPARISONS = (
    Comparison(
        "brag env() / leduc env(), decisions/s",
        "brag_v1.env(4 players)",
        "decisions",
        "leduc_holdem_v4.env()",
    ),
    Comparison(
        "brag env() / texas env(), hands/s",
        "brag_v1.env(4 players)",
        "hands",
        "texas_holdem_v4.env()",
    ),
    Comparison(
        "put env() / leduc env(), decisions/s", "put_v0.env()", "decisions", "leduc_holdem_v4.env()"
    ),
    Comparison(
        "brag raw_env() / leduc raw_env(), decisions/s",
        "brag_v1.raw_env(4 players)",
        "decisions",
        "leduc_holdem_v4.raw_env()",
    ),
    Comparison(
        "put raw_env() / leduc raw_env(), decisions/s",
        "put_v0.raw_env()",
        "decisions",
        "leduc_holdem_v4.raw_env()",
    ),
    Comparison("Brag engine, 4 players, decisions/s", "Brag engine, 4 players", "decisions", None),
    Comparison("batched hand evaluation, hands/s", "hand_strength_batch", "hands", None),
)


def paired_ratio(rows: dict[str, Row], comparison: Comparison, clock: str = "seconds") -> float:
    """A comparison's figure: a median of per-repetition ratios, or the row's median rate."""
    row = rows[comparison.row]
    per = comparison.per
    if comparison.reference is None:
        return row.median(per, clock)
    ref = rows[comparison.reference]
    return statistics.median(
        (getattr(a, per) / getattr(a, clock)) / (getattr(b, per) / getattr(b, clock))
        for a, b in zip(row.samples, ref.samples, strict=True)
    )


# ---------------------------------------------------------------------- output
def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} CPUs"


def _rate(x: float) -> str:
    if x >= 1e6:
        return f"{x / 1e6:,.1f}M"
    return f"{x:,.0f}"


def report(
    rows: list[Row], reps: int, sizes: tuple[int, int, int], load_before: str, load_after: str
) -> str:
    by_name = {r.name: r for r in rows}
    games, put_matches, eval_size = sizes
    lines = [
        f"{reps} interleaved repetitions; Python {sys.version.split()[0]}, numpy {np.__version__}",
        f"machine: {load_before} at the start, {load_after} at the end",
        "timed: env rows = whole episodes through agent_iter(), last() (an observation at every",
        f"  decision), the policy and step(), reset() included ({games} episodes; Put: "
        f"{put_matches} matches);",
        "  engine rows = legal_actions(), the policy and apply() on the rules engine, no",
        "  PettingZoo layer and no observation (same counts; one session = one hand by default);",
        "  policy = uniform among the legal actions, uniforms pre-drawn from a seeded numpy",
        f"  Generator, the same for every row; hand eval = 5 calls on {eval_size:,} random hands",
        "rates: medians over the repetitions, per CPU-second of this process; wall/CPU shows how",
        "much other jobs stretched the elapsed time; ratios: medians of per-repetition ratios",
        "",
        "| what | decisions/s | hands/s | decisions/hand | range | wall/CPU |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        stretch = statistics.median(s.wall / s.seconds for s in row.samples)
        if row.kind == "policy":
            per = statistics.median(s.seconds / s.decisions for s in row.samples)
            lines.append(f"| {row.name} | {per * 1e6:.2f} µs | | | | {stretch:.2f} |")
            continue
        key = "hands" if row.kind == "eval" else "decisions"
        values = sorted(getattr(s, key) / s.seconds for s in row.samples)
        dec = "" if row.kind == "eval" else _rate(row.median("decisions"))
        per_hand = ""
        if row.kind != "eval":
            per_hand = (
                f"{sum(s.decisions for s in row.samples) / sum(s.hands for s in row.samples):.1f}"
            )
        lines.append(
            f"| {row.name} | {dec} | {_rate(row.median('hands'))} | {per_hand} | "
            f"{_rate(values[0])} .. {_rate(values[-1])} | {stretch:.2f} |"
        )
    lines += [
        "",
        "| comparison | per CPU-second | per wall-second |",
        "|---|---:|---:|",
    ]
    for c in COMPARISONS:
        if c.row not in by_name or (c.reference and c.reference not in by_name):
            continue
        cpu, wall = paired_ratio(by_name, c), paired_ratio(by_name, c, "wall")
        shown = f"{cpu:.1f}x | {wall:.1f}x" if c.reference else f"{_rate(cpu)} | {_rate(wall)}"
        lines.append(f"| {c.label} | {shown} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help="episodes per env row and sessions per engine row (default 1500)",
    )
    parser.add_argument(
        "--put-matches",
        type=int,
        default=None,
        help="Put matches per Put row (default games / 8: a match is many hands)",
    )
    parser.add_argument("--reps", type=int, default=None, help="interleaved repetitions (7)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="300 games, 3 repetitions")
    parser.add_argument(
        "--only", default="", help="comma-separated parts of row names: time only those rows"
    )
    args = parser.parse_args(argv)
    games = args.games if args.games is not None else (300 if args.quick else 1500)
    reps = args.reps if args.reps is not None else (3 if args.quick else 7)
    if games < 1 or reps < 1:
        parser.error("--games and --reps must be at least 1")
    put_matches = args.put_matches if args.put_matches is not None else max(1, games // 8)
    eval_size = 200_000 if args.quick else 1_000_000

    rows = build_rows(games, put_matches, eval_size)
    if args.only:
        parts = [p.strip() for p in args.only.split(",") if p.strip()]
        rows = [r for r in rows if any(p in r.name for p in parts)]
        if not rows:
            parser.error(f"--only {args.only!r} matches no row")
    for row in rows:  # warm-up: caches, lazily built tables, first-call imports
        row.run(args.seed + 10_000)
    load_before = _load()
    for rep in range(reps):
        for row in rows:
            row.samples.append(row.run(args.seed + rep))
        print(f"repetition {rep + 1}/{reps} done", file=sys.stderr)
    print(report(rows, reps, (games, put_matches, eval_size), load_before, _load()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
