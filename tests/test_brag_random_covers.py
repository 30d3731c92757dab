"""Random play with covers (B16) and carried pots (B15) keeps every invariant: chips are
conserved at every step, every episode is zero-sum, a legal action always exists, no
observation holds a card its observer was not shown, and the incremental observer equals the
full rebuild. ``test_B15_B16_random_play_100k_hands`` plays over 100,000 hands (``slow``)."""

from __future__ import annotations

import numpy as np
import pytest

from brag_env.brag.game import BragGame
from brag_env.brag.incremental_observation import IncrementalObserver
from brag_env.brag.observation import BragObserver, observation_layout
from brag_env.brag.rules import BragConfig


def _configs(rng: np.random.Generator, count: int) -> list[BragConfig]:
    """Small stacks (covers are frequent), every carry option, the cycle shuffle."""
    configs = []
    for _ in range(count):
        configs.append(
            BragConfig(
                num_players=int(rng.integers(2, 9)),
                hands_per_session=int(rng.choice([1, 3, 10, 30])),
                starting_chips=int(rng.choice([3, 8, 15, 40])),
                ante=int(rng.choice([1, 1, 2])),
                ante_mode=str(rng.choice(["every_hand", "after_prial", "none"])),
                allow_blind=bool(rng.random() < 0.85),
                raise_sizes=(2,) if rng.random() < 0.5 else (2, 3),
                blind_alone=str(rng.choice(["wins", "carries"])),
                unopened_pot=str(rng.choice(["wins", "carries"])),
                shuffle=str(rng.choice(["after_prial", "after_prial_or_cycle", "every_hand"])),
                prial_bonus=int(rng.choice([0, 0, 2])),
                cover_pot=bool(rng.random() < 0.9),
            )
        )
    return configs


def _check_observation(game: BragGame, seat: int, fast, full, layout) -> None:
    vector = fast.observation(game, seat)
    np.testing.assert_array_equal(vector, full.set_from(game, seat))
    views = layout.views(vector)
    own = set(np.flatnonzero(views["own_cards"]).tolist())
    if full.has_looked(game, seat):
        assert own == set(game.hands[seat])
    else:
        assert not own and not views["own_strength"].any()
    # Cards shown to the table only: at sees and in B16 comparisons, since the last shuffle.
    shown = set(np.flatnonzero(views["shown_cards"]).tolist())
    public = {c for r in game.hand_results for cards in r.shown.values() for c in cards}
    assert shown <= public and shown == set(game.shown_cards)
    previous = game.previous_result
    prev_cards = {i % 52 for i in np.flatnonzero(views["prev_shown_cards"]).tolist()}
    if previous is None or not previous.by_see:
        assert not prev_cards
    else:
        assert prev_cards <= {c for h in previous.shown.values() for c in h}


def _play(hands_wanted: int, seed: int, observe_every: int) -> dict[str, int]:
    rng = np.random.default_rng(seed)
    seen = {"hands": 0, "covers": 0, "nested": 0, "carries": 0, "decisions": 0, "checks": 0}
    configs = _configs(rng, 40)
    tools = {}
    while seen["hands"] < hands_wanted:
        cfg = configs[int(rng.integers(len(configs)))]
        if cfg not in tools:
            tools[cfg] = (
                BragGame(cfg),
                IncrementalObserver(cfg),
                BragObserver(cfg),
                observation_layout(cfg),
            )
        game, fast, full, layout = tools[cfg]
        total = cfg.num_players * cfg.starting_chips
        game.new_session(rng)
        while not game.session_over:
            bits = game.legal_bits
            assert bits, "no legal action"
            assert sum(game.chips) + game.pot == total  # chips conserved, carried pot included
            if seen["decisions"] % observe_every == 0:
                _check_observation(game, int(rng.integers(cfg.num_players)), fast, full, layout)
                seen["checks"] += 1
            legal = game.legal_actions()
            result = game.apply(legal[int(rng.integers(len(legal)))])
            seen["decisions"] += 1
            if result is not None:
                seen["hands"] += 1
                seen["covers"] += bool(result.covers)
                seen["nested"] += len(result.covers) > 1
                seen["carries"] += result.carried > 0
                assert sum(result.deltas) == result.carried_in - result.carried
                assert result.carried == 0 or result.winner == -1
        # Every episode is zero-sum: nothing carries out of a session (B15).
        assert sum(game.chips) == total and game.pot == 0
        assert sum(sum(r.deltas) for r in game.hand_results) == 0
        assert game.hand_results[-1].carried == 0
    return seen


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_B15_B16_random_play_keeps_the_invariants():
    seen = _play(3_000, seed=1, observe_every=3)
    assert seen["covers"] > 100 and seen["nested"] > 5 and seen["carries"] > 20


@pytest.mark.slow
def test_B15_B16_random_play_100k_hands():
    seen = _play(100_000, seed=2, observe_every=10)
    assert seen["hands"] >= 100_000 and seen["checks"] > 50_000
    assert seen["covers"] > 5_000 and seen["nested"] > 500 and seen["carries"] > 1_000
