"""Option deck_ranks (P1 ruling): a deck of the top k ranks only, four suits each."""

import numpy as np
import pytest

from brag_env import put_v0
from brag_env.put.game import PutGame
from brag_env.put.rules import PUT_RANK, PutConfig
from tests.env_turns import live_turns


@pytest.mark.parametrize("k", [2, 3, 7])
def test_P1_deck_ranks_deals_only_the_top_ranks(k):
    game = PutGame(PutConfig(deck_ranks=k))
    game.new_session(np.random.default_rng(5))
    seen = set()
    for _ in range(200):
        dealt = game.record.deck
        assert len(dealt) == 6 and len(set(dealt)) == 6
        assert all(PUT_RANK[c] < k for c in dealt)
        seen.update(dealt)
        game._start_hand()
    assert seen == set(PutConfig(deck_ranks=k).deck_cards())  # every card of the short deck


def test_P1_deck_ranks_13_is_the_default_stream():
    a, b = PutGame(PutConfig()), PutGame(PutConfig(deck_ranks=13))
    a.new_session(np.random.default_rng(9))
    b.new_session(np.random.default_rng(9))
    assert a.record.deck == b.record.deck


def test_P1_deck_ranks_too_small_or_bad_is_one_line_error():
    with pytest.raises(ValueError, match=r"^deck_ranks=1 leaves 4 cards"):
        PutConfig(deck_ranks=1)
    with pytest.raises(ValueError, match=r"deck_ranks=2 leaves 8 cards.*3 players"):
        PutConfig(deck_ranks=2, num_players=3)
    PutConfig(deck_ranks=3, num_players=4)  # 12 cards: just enough
    with pytest.raises(ValueError, match="deck_ranks must be between 1 and 13"):
        PutConfig(deck_ranks=14)
    with pytest.raises(ValueError, match="deck_ranks must be an integer"):
        PutConfig(deck_ranks="3")


def test_P1_deck_ranks_stacked_deck_must_come_from_the_short_deck():
    game = PutGame(PutConfig(deck_ranks=2))
    game.new_session(np.random.default_rng(0), deck="3s 2h", dealer=1)
    assert game.hands[0][0] == game.record.deck[0]
    with pytest.raises(ValueError, match="deck: As is not in a deck of the top 2 ranks"):
        game.new_session(np.random.default_rng(0), deck="3s As")


def test_P1_deck_ranks_env_plays_matches():
    env = put_v0.env(deck_ranks=2)
    rng = np.random.default_rng(3)
    for _, obs, mask in live_turns(env, [3]):
        hand = obs[:13]
        assert hand[2:].sum() == 0  # only 3s and 2s
        env.step(int(rng.choice(np.flatnonzero(mask))))
