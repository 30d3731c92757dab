"""Random-play invariants over a million decisions per game (not in CI: minutes, not seconds).

Plays ``brag_v0`` and ``put_v0`` (raw envs) with uniformly random legal actions, over rule
configs drawn at random (player counts, antes, stakes, raise sizes, pot limit, sessions,
shuffles, B19/B20/B21 options; Put's 2-4 players, targets and reward modes), and checks at
every decision:

* the acting seat's mask is never empty and equals the engine's legal actions;
* Brag: chips + pot equal the table's starting chips (conserved); Put: scores only grow, by
  the points the hand history records;
* every step's rewards sum to zero (zero-sum), and per Brag hand the chip deltas do;
* no hidden card leaks into the acting seat's observation. Brag: its own cards appear only
  once it has looked (B10), and the only other cards in it are the ones shown at sees
  (``shown_cards``, the previous hand's shown hands) exactly as the engine holds them. Put:
  its ``hand`` view is its own cards, and every card in the ``played`` view is a card that
  seat played face up this hand.

Usage::

    python bench/invariants.py                     # 1,000,000 decisions per game, seed 0
    python bench/invariants.py --decisions 50000 --game put --seed 3

Prints, per game, the decisions, hands and episodes played, the failures (0 expected; the
first few are described) and the time; the exit status is 1 if any check failed.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from typing import Any

import numpy as np

from brag_env import brag_v0, put_v0
from brag_env.brag.game import OPEN
from brag_env.brag.observation import observation_layout
from brag_env.put.rules import NUM_RANKS, PUT_RANK


def brag_options(rnd: random.Random) -> dict[str, Any]:
    min_stake = rnd.choice([2, 4, 10])
    return {
        "num_players": rnd.randint(2, 8),
        "ante": rnd.choice([0, 1, 2, 5]),
        "ante_mode": rnd.choice(["every_hand", "after_prial", "none"]),
        "allow_blind": rnd.random() < 0.8,
        "min_stake": min_stake,
        "raise_sizes": rnd.choice([(2,), (2, 3), (4, 2), (3,)]),
        "max_stake": min_stake * rnd.choice([1, 4, 16, 100]),
        "pot_limit": rnd.random() < 0.3,
        "blind_may_see_open": rnd.random() < 0.7,
        "hands_per_session": rnd.choice([1, 5, 20, 100]),
        "starting_chips": rnd.choice([10, 40, 200]),
        "shuffle": rnd.choice(["after_prial", "every_hand"]),
        "blind_keep_hand": rnd.random() < 0.7,
        "prial_bonus": rnd.choice([0, 0, 5]),
        "lowball": rnd.random() < 0.2,
    }


def put_options(rnd: random.Random) -> dict[str, Any]:
    return {
        "num_players": rnd.choice([2, 3, 4]),
        "target_points": rnd.choice([1, 5, 7]),
        "seen_put_points": rnd.choice([2, "game"]),
        "reward": rnd.choice(["match", "points"]),
    }


class Checker:
    """Counts decisions and failures; keeps the first few failures' descriptions."""

    def __init__(self) -> None:
        self.failures: Counter[str] = Counter()
        self.examples: list[str] = []

    def check(self, ok: bool, what: str, detail: str) -> None:
        if not ok:
            self.failures[what] += 1
            if len(self.examples) < 5:
                self.examples.append(f"{what}: {detail}")


def _common(env: Any, agent: str, checker: Checker, where: str) -> np.ndarray:
    mask = env.observe(agent)["action_mask"]
    legal = np.flatnonzero(mask)
    checker.check(legal.size > 0, "empty mask", where)
    checker.check(legal.tolist() == env.game.legal_actions(), "mask != legal actions", where)
    return legal


def _zero_sum(env: Any, checker: Checker, where: str) -> None:
    total = sum(env.rewards.values())
    checker.check(abs(total) < 1e-9, "rewards not zero-sum", f"{where}: {env.rewards}")


def brag_episode(env: Any, seed: int, rnd: random.Random, checker: Checker) -> tuple[int, int]:
    env.reset(seed=seed)
    game, config = env.game, env.config
    total = config.num_players * config.starting_chips
    layout = observation_layout(config)
    decisions = 0
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent]:
            env.step(None)
            continue
        seat = env._seat[agent]
        where = f"brag seed {seed} hand {game.hand_number} decision {decisions}"
        checker.check(sum(game.chips) + game.pot == total, "chips not conserved", where)
        legal = _common(env, agent, checker, where)
        v = layout.views(env.observe(agent)["observation"])
        looked = game.status[seat] == OPEN
        own = set(game.hands[seat]) if looked else set()
        blind_clean = looked or not (v["own_category"].any() or v["own_strength"].any())
        checker.check(
            set(np.flatnonzero(v["own_cards"]).tolist()) == own and blind_clean,
            "own cards shown wrongly",
            f"{where}: seat {seat} looked: {looked}",
        )
        shown = set(np.flatnonzero(v["shown_cards"]).tolist())
        checker.check(shown == set(game.shown_cards), "shown cards differ from the table's", where)
        previous = game.previous_result
        public = set()
        if previous is not None and previous.shown:
            for cards in previous.shown.values():
                public |= set(cards)
        seen = {c % 52 for c in np.flatnonzero(v["prev_shown_cards"]).tolist()}
        checker.check(seen == public, "previous hand's shown cards leak or differ", where)
        if legal.size == 0:
            return decisions, len(game.hand_results)
        results = len(game.hand_results)
        env.step(int(legal[rnd.randrange(legal.size)]))
        decisions += 1
        _zero_sum(env, checker, where)
        if len(game.hand_results) != results:
            deltas = game.hand_results[-1].deltas
            checker.check(sum(deltas) == 0, "hand deltas not zero-sum", f"{where}: {deltas}")
    return decisions, len(game.hand_results)


def put_episode(env: Any, seed: int, rnd: random.Random, checker: Checker) -> tuple[int, int]:
    env.reset(seed=seed)
    game = env.game
    n = game.n
    decisions = 0
    scores = list(game.scores)
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent]:
            env.step(None)
            continue
        seat = env._seat[agent]
        where = f"put seed {seed} hand {game.hand_number} decision {decisions}"
        legal = _common(env, agent, checker, where)
        views = env.observer.views  # filled by the observe() above, for this seat
        own = np.bincount([PUT_RANK[c] for c in game.hands[seat]], minlength=NUM_RANKS)
        checker.check(np.array_equal(views["hand"], own), "hand view is not the own hand", where)
        played = {((s - seat) % n, PUT_RANK[c]) for s, a, c in game.record.actions if a < NUM_RANKS}
        marks = {(int(s), int(r)) for _, s, r in zip(*np.nonzero(views["played"]), strict=True)}
        checker.check(marks <= played, "a card in 'played' that was not played", where)
        if legal.size == 0:
            return decisions, len(game.history)
        env.step(int(legal[rnd.randrange(legal.size)]))
        decisions += 1
        _zero_sum(env, checker, where)
        now = list(game.scores)
        grew = all(b >= a for a, b in zip(scores, now, strict=True))
        if now != scores and game.history:
            record = game.history[-1]
            _, unit, points = record.result
            expected = list(scores)
            if unit >= 0:
                expected[unit] += points
            checker.check(now == expected, "scores differ from the recorded points", where)
        checker.check(grew, "a score went down", f"{where}: {scores} -> {now}")
        scores = now
    return decisions, len(game.history)


def run(game: str, decisions: int, seed: int) -> bool:
    rnd = random.Random(seed)
    checker = Checker()
    done = hands = episodes = 0
    start = time.perf_counter()
    make, options, episode = (
        (brag_v0.raw_env, brag_options, brag_episode)
        if game == "brag"
        else (put_v0.raw_env, put_options, put_episode)
    )
    while done < decisions:
        env = make(**options(rnd))
        for _ in range(20):  # a few episodes per config
            played, finished = episode(env, rnd.randrange(2**31), rnd, checker)
            done, hands, episodes = done + played, hands + finished, episodes + 1
            if done >= decisions:
                break
    seconds = time.perf_counter() - start
    failed = sum(checker.failures.values())
    print(
        f"{game}: {done:,} decisions, {hands:,} hands, {episodes:,} episodes, "
        f"{failed} failures, {seconds:.0f} s"
    )
    for what, count in checker.failures.items():
        print(f"  {count} x {what}")
    for example in checker.examples:
        print(f"  e.g. {example}")
    return failed == 0


def main() -> int:
    parser = argparse.ArgumentParser(description="Random-play invariants of both games.")
    parser.add_argument("--decisions", type=int, default=1_000_000, help="per game")
    parser.add_argument("--game", choices=["brag", "put", "both"], default="both")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    games = ["brag", "put"] if args.game == "both" else [args.game]
    ok = [run(game, args.decisions, args.seed) for game in games]
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main())
