"""P7 simultaneous answers and P8 optional exchange under random legal play, over many hands
each (slow; 20,000 by default so the whole suite stays quick, ``BRAG_ENV_RANDOM_HANDS=100000``
for the full check, which passed at 100,000 each): rewards zero-sum at every step, the acting
seat always has a legal move, scores match the hand histories, histories replay to themselves,
and no leak: a held first answer (P7) or a pass choice (P8) changes no observation but whose
turn it is."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

from brag_env import put_v1
from brag_env.put import PHASE_ANSWER, PHASE_PASS, PutObserver, replay_hand

HANDS = int(os.environ.get("BRAG_ENV_RANDOM_HANDS", "20000"))
VARIANTS = [
    pytest.param({"num_players": 3}, id="P7-simultaneous"),
    pytest.param({"num_players": 4}, id="P8-optional"),
]


def _acting_slice(observer: PutObserver) -> slice:
    start = 0
    for name, shape in observer.layout:
        size = int(np.prod(shape))
        if name == "acting":
            return slice(start, start + size)
        start += size
    raise AssertionError("no acting view")


def _views(observer, game):
    return [observer.set_from(game, s).copy() for s in range(game.n)]


def random_hands(options: dict, hands: int, seed: int) -> dict[str, int]:
    """Play ``hands`` hands of random legal play; returns counts of what was exercised."""
    env = put_v1.raw_env(reward="points", **options)
    game = env.game
    observer = PutObserver(env.config)
    acting = _acting_slice(observer)
    pick = random.Random(seed)
    seen = {"hands": 0, "held_answers": 0, "passes": 0, "pass_none": 0, "folded_then_seen": 0}
    match = 0
    while seen["hands"] < hands:
        env.reset(seed=seed * 1_000_003 + match)
        match += 1
        totals = [0.0] * game.n
        finished = 0
        while not game.session_over:
            mask = game.legal_mask()
            legal = np.flatnonzero(mask)
            assert legal.size > 0, "the acting seat must have a legal action"
            action = int(legal[int(pick.random() * legal.size)])
            phase, held, chooser = game.phase, game._held_answer, game.current_player
            check = (phase == PHASE_ANSWER and held < 0 and game.n == 3) or phase == PHASE_PASS
            before = _views(observer, game) if check else None
            env.step(action)
            rewards = list(env.rewards.values())
            assert sum(rewards) == pytest.approx(0.0)
            totals = [t + r for t, r in zip(totals, rewards, strict=True)]
            if before is not None and game.phase == phase and not game.records[finished:]:
                # still choosing (passes 1-3) or answering (the held first answer)
                after = _views(observer, game)
                for s in range(game.n):  # for the others only whose turn it is changes
                    if s == chooser and phase == PHASE_PASS:
                        continue  # one knows one's own pass
                    a, b = before[s].copy(), after[s].copy()
                    a[acting] = b[acting] = 0
                    np.testing.assert_array_equal(a, b, err_msg=f"seat {s} learnt something")
                seen["held_answers" if phase == PHASE_ANSWER else "passes"] += 1
                seen["pass_none"] += action == 29
            finished = len(game.records)
        records = game.history()
        for rec in records:
            assert replay_hand(rec) == rec
            put = rec["put"]
            if put and put["seen"] and any(a["answer"] == "fold" for a in put["answers"]):
                seen["folded_then_seen"] += 1
        scores = game.seat_scores()
        for seat in range(game.n):
            gained = sum(
                r["result"]["points"] for r in records if r["result"]["unit"] == game.unit_of[seat]
            )
            assert gained == scores[seat]
        assert sum(totals) == pytest.approx(0.0)
        seen["hands"] += len(records)
    return seen


@pytest.mark.parametrize("options", VARIANTS)
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_variant_invariants_short(options):
    seen = random_hands(options, 2_000, seed=1)
    assert seen["held_answers"] + seen["passes"] > 100


@pytest.mark.slow
@pytest.mark.parametrize("options", VARIANTS)
def test_variant_invariants_many_hands(options):
    seen = random_hands(options, HANDS, seed=2)
    assert seen["hands"] >= HANDS
    if options["num_players"] == 3:
        assert seen["held_answers"] > HANDS // 10 and seen["folded_then_seen"] > HANDS // 100
    else:
        # passes 1-3 of every hand (the 4th ends the pass and is checked by content)
        assert seen["passes"] >= 3 * HANDS and seen["pass_none"] > HANDS // 10
