"""The heads-up one-deal best response of Seven-card Brag (B24), checked against the engine."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from brag_env.brag7.best_response import (
    exact_best_response,
    expected_values,
    policy_value,
    sampled_best_response,
)
from brag_env.brag7.game import Brag7Game, stacked_deck
from brag_env.brag7.rules import NUM_ARRANGEMENTS, Brag7Config

CONFIG = Brag7Config(num_players=2, hands_per_session=1, deck_ranks=4)


def top_three_first(cards):
    """A fixed policy: the three highest cards first, then the next three (id 139)."""
    probs = np.zeros(NUM_ARRANGEMENTS)
    probs[139] = 1.0
    return probs


def uniform(cards):
    return np.full(NUM_ARRANGEMENTS, 1.0 / NUM_ARRANGEMENTS)


@pytest.mark.parametrize("lowball", [False, True])
def test_b24_expected_values_match_the_engine(lowball):
    config = Brag7Config(num_players=2, hands_per_session=1, deck_ranks=4, lowball=lowball)
    for mine in ((48, 49, 50, 44, 40, 41, 36), (36, 40, 44, 48, 37, 41, 45)):
        _check_against_engine(config, mine)


def _check_against_engine(config, mine):
    ev, win, lose = expected_values(config, mine, top_three_first)
    rest = sorted(set(config.deck_cards()) - set(mine))
    for action in range(0, NUM_ARRANGEMENTS, 9):
        game = Brag7Game(config)
        payoffs = []
        for theirs in combinations(rest, 7):
            game.new_session(0, deck=stacked_deck([list(mine), list(theirs)], 1), dealer=1)
            game.apply(action)
            payoffs.append(game.apply(139).deltas[0])
        assert ev[action] == pytest.approx(np.mean(payoffs))
        assert win[action] == pytest.approx(np.mean(np.array(payoffs) > 0))
        assert lose[action] == pytest.approx(np.mean(np.array(payoffs) < 0))


def test_b24_best_response_needs_heads_up_and_a_real_policy():
    with pytest.raises(ValueError, match="heads-up"):
        exact_best_response(Brag7Config(num_players=3, deck_ranks=6), uniform)
    with pytest.raises(ValueError, match="140 probabilities"):
        expected_values(CONFIG, (48, 49, 50, 44, 40, 41, 36), lambda cards: np.ones(3))
    with pytest.raises(ValueError, match="hands must be"):
        sampled_best_response(CONFIG, uniform, hands=1)


def test_b24_sampled_best_response_has_a_ci():
    result = sampled_best_response(
        Brag7Config(num_players=2, hands_per_session=1), top_three_first, 8, 6, 6, seed=3
    )
    assert not result.exact and result.deals == 48
    assert result.ci_low <= result.value <= result.ci_high
    assert -1.0 <= result.value <= 1.0


@pytest.mark.slow
def test_b24_exact_best_response_bounds_every_policy():
    best = exact_best_response(CONFIG, top_three_first)
    assert best.exact and best.deals == 11_440 * 36
    assert policy_value(CONFIG, top_three_first, top_three_first) == pytest.approx(0.0, abs=1e-12)
    for mine in (uniform, top_three_first):
        assert policy_value(CONFIG, mine, top_three_first) <= best.value + 1e-12
    assert best.value > 0.0
    assert best.value == pytest.approx(best.scoop_rate - best.loss_rate)


@pytest.mark.slow
def test_b24_best_response_command(capsys):
    from brag_env.evaluation.brag7_response import main

    assert main(["--opponent", "brag7:strongest_first"]) == 0
    out = capsys.readouterr().out
    assert "(exact)" in out and "brag7:balanced" in out
