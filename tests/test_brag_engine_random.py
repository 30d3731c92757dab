"""Seeded random legal play over thousands of hands, 2-8 players, varied configs and sessions.

Checks at every decision: the mask is never empty for the seat to act and agrees with
``legal_actions``; chips + pot is constant; S is even and within the cap. Per hand: the deltas
sum to zero, the hand ends within the bound its chips allow (every decision except FOLD, LOOK
and the B19 choice costs at least one chip), all 52 cards are accounted for. Per session: it
ends, its history survives JSON and replays, and the same seed gives the same history.
"""

import json
import random

import numpy as np
import pytest

from brag_env.brag.game import BLIND, OPEN, BragGame
from brag_env.brag.replay import replay_session
from brag_env.brag.rules import BragConfig
from brag_env.cards import NUM_CARDS


def random_config(rnd: random.Random) -> BragConfig:
    min_stake = rnd.choice([2, 4, 10])
    return BragConfig(
        num_players=rnd.randint(2, 8),
        ante=rnd.choice([0, 1, 2, 5]),
        ante_mode=rnd.choice(["every_hand", "after_prial", "none"]),
        allow_blind=rnd.random() < 0.8,
        min_stake=min_stake,
        raise_sizes=rnd.choice([(2,), (2, 3), (4, 2), (3,)]),
        max_stake=min_stake * rnd.choice([1, 4, 16, 100]),
        pot_limit=rnd.random() < 0.3,
        blind_may_see_open=rnd.random() < 0.7,
        hands_per_session=rnd.choice([1, 1, 5, 20]),
        starting_chips=rnd.choice([10, 40, 200]),
        shuffle=rnd.choice(["after_prial", "every_hand"]),
        blind_keep_hand=rnd.random() < 0.7,
        prial_bonus=rnd.choice([0, 0, 5]),
        lowball=rnd.random() < 0.2,
    )


def play_session(cfg: BragConfig, seed: int, checks: bool = True) -> BragGame:
    """Random legal play of one session; the action choice is seeded too."""
    game = BragGame(cfg)
    game.new_session(np.random.default_rng(seed))
    rnd = random.Random(seed)
    total = cfg.num_players * cfg.starting_chips
    hand, decisions = 0, 0
    bound = total + 2 * cfg.num_players + 1
    while not game.session_over:
        if checks:
            legal = game.legal_actions()
            mask = game.legal_mask()
            assert legal, "empty mask for the seat to act"
            assert len(mask) == cfg.num_actions
            assert [a for a, ok in enumerate(mask) if ok] == legal
            assert sum(game.chips) + game.pot == total
            assert game.stake % 2 == 0 and cfg.min_stake <= game.stake <= cfg.max_stake
            assert game.status[game.current_player] in (BLIND, OPEN)
            assert min(game.chips) >= 0
        else:
            legal = game.legal_actions()
        result = game.apply(rnd.choice(legal))
        decisions += 1
        assert decisions <= bound, "a hand did not end"
        if result is not None:
            assert result.hand_number == hand and sum(result.deltas) == 0
            hand, decisions = hand + 1, 0
            if checks and not game.session_over:
                cards = game.deck_cards + [c for h in game.hands for c in h]
                assert sorted(cards + (game.kept_hand or [])) == list(range(NUM_CARDS))
    assert game.current_player == -1 and game.legal_actions() == []
    assert sum(game.chips) == total and game.pot == 0
    assert len(game.hand_results) <= cfg.hands_per_session
    return game


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_random_play_keeps_every_invariant():
    rnd = random.Random(2024)
    hands = 0
    players = set()
    for i in range(1500):
        cfg = random_config(rnd)
        game = play_session(cfg, seed=i)
        hands += len(game.hand_results)
        players.add(cfg.num_players)
        if i % 8 == 0:
            history = json.loads(json.dumps(game.history()))
            results = replay_session(history, cfg)
            assert [r.to_dict() for r in results] == [r.to_dict() for r in game.hand_results]
    assert hands >= 5000 and players == set(range(2, 9))


@pytest.mark.parametrize("num_players", [2, 4, 8])
def test_long_default_sessions(num_players):
    """B17: the session winners are the seats with the most chips, computed here from the
    starting stacks and the hand results' chip changes, not from the engine's stacks."""
    cfg = BragConfig(num_players=num_players, hands_per_session=30)
    for seed in range(10):
        game = play_session(cfg, seed)
        final = [cfg.starting_chips] * num_players
        for result in game.hand_results:
            final = [c + d for c, d in zip(final, result.deltas, strict=True)]
        ranked = sorted(range(num_players), key=lambda s: (-final[s], s))
        best = [s for s in ranked if final[s] == final[ranked[0]]]
        assert final == game.chips and game.session_winners == best


def test_same_seed_same_history():
    rnd = random.Random(7)
    for i in range(20):
        cfg = random_config(rnd)
        first = play_session(cfg, seed=100 + i, checks=False).history()
        again = play_session(cfg, seed=100 + i, checks=False).history()
        assert first == again
    cfg = BragConfig(hands_per_session=5)
    assert play_session(cfg, 1).history() != play_session(cfg, 2).history()


def test_illegal_actions_are_rejected_and_change_nothing():
    rnd = random.Random(3)
    cfg = BragConfig(num_players=5, hands_per_session=10, raise_sizes=(2, 3))
    game = BragGame(cfg)
    game.new_session(np.random.default_rng(3))
    for _ in range(300):
        if game.session_over:
            break
        legal = game.legal_actions()
        state = (list(game.chips), game.pot, game.current_player, len(game.betting), game.stake)
        for action in set(range(cfg.num_actions)) - set(legal):
            with pytest.raises(ValueError, match="illegal"):
                game.apply(action)
        for bad in (-1, cfg.num_actions):
            with pytest.raises(ValueError, match="out of range"):
                game.apply(bad)
        with pytest.raises(ValueError, match="integer action id"):
            game.apply("stay")  # type: ignore[arg-type]
        assert state == (
            game.chips,
            game.pot,
            game.current_player,
            len(game.betting),
            game.stake,
        )
        game.apply(np.int64(rnd.choice(legal)))  # numpy integers are accepted
