"""Option deck_ranks (B1): a short deck of the k highest ranks (A K Q ... down), 4 suits each,
ranked by the unchanged B2-B5 order. Stacked decks, scripted actions, exact chips."""

import numpy as np
import pytest

from agents.brag import BragView
from agents.tables import table_info
from brag_env import brag_v1
from brag_env.brag.batched import BatchedBrag
from brag_env.brag.game import BragGame
from brag_env.brag.hands import (
    deck_ranking,
    deck_strength_counts,
    hand_strength,
    strength_percentile,
)
from brag_env.brag.replay import replay_hand, replay_session
from brag_env.brag.rules import BragConfig
from brag_env.brag.scenario import apply_names, stack_deck
from brag_env.cards import parse_cards
from tests.stacked_brag import start as stacked_start

RUN = "As Kh Qd"  # A-K-Q, the only run of the 3-rank deck
PAIR = "Ac Ad Kc"  # a pair of aces
PRIAL_A = "Ah As Ad"  # A-A-A


def start(hands, dealer=0, seed=0, **options) -> BragGame:
    return stacked_start(hands, dealer, seed=seed, deck_ranks=3, **options)


@pytest.mark.parametrize("k", [2, 3, 4])
def test_B1_deck_ranks_deals_only_the_top_ranks(k):
    config = BragConfig(
        num_players=2,
        deck_ranks=k,
        hands_per_session=30,
        starting_chips=500,
        blind_keep_hand=k > 2,  # 8 cards: no room for a B19 kept hand
    )
    assert config.deck_cards() == tuple(c for c in range(52) if c // 4 >= 13 - k)
    game = BragGame(config)
    game.new_session(np.random.default_rng(k))
    rng = np.random.default_rng(k)
    seen: set[int] = set()
    while not game.session_over:
        seen.update(c for h in game.hands for c in h)
        legal = game.legal_actions()
        game.apply(int(rng.choice(legal)))
    assert seen == set(config.deck_cards())  # every card of the short deck, and no other


def test_B1_deck_ranks_13_is_the_default_stream():
    a, b = BragGame(BragConfig()), BragGame(BragConfig(deck_ranks=13))
    a.new_session(np.random.default_rng(9))
    b.new_session(np.random.default_rng(9))
    assert a.hands == b.hands and a.deck_cards == b.deck_cards


def test_B3_B4_ranking_restated_for_short_decks():
    three = deck_ranking(3)
    assert three["ranks"] == "AKQ" and three["runs"] == ["A-K-Q"]
    assert three["best_prial"] == "A-A-A" and three["hands"] == 220  # C(12, 3)
    assert three["per_category"] == {
        "high_card": 0,
        "pair": 144,
        "flush": 0,  # three distinct ranks of A K Q are always a run
        "run": 60,
        "running_flush": 4,
        "prial": 12,
    }
    assert deck_ranking(2)["runs"] == [] and deck_ranking(2)["per_category"]["pair"] == 48
    assert deck_ranking(4)["runs"] == ["A-K-Q", "K-Q-J"]
    assert deck_ranking(12)["best_prial"] == "3-3-3"  # B3: the 3s are in, A-2-3 is not
    assert "A-2-3" not in deck_ranking(12)["runs"]
    full = deck_ranking(13)
    assert full["runs"][:2] == ["A-2-3", "A-K-Q"] and full["hands"] == 22_100
    assert deck_strength_counts(13).sum() == 22_100


def test_B2_B6_percentiles_count_the_short_deck_hands():
    best = hand_strength(PRIAL_A)
    assert strength_percentile(best, deck_ranks=3) == 216 / 220  # 4 A-A-A hands, none above
    assert strength_percentile(hand_strength("Qs Qh Kc"), deck_ranks=3) == 0.0  # the worst hand
    # above it: the 48 pairs of queens and the 24 pairs of kings with a queen (B5)
    assert strength_percentile(hand_strength("Ks Kh Ac"), deck_ranks=3) == 72 / 220
    # the full pack unchanged: the worst prial (2-2-2) above 22,048 hands
    assert strength_percentile(hand_strength("2s 2h 2d")) == 22_048 / 22_100
    # lowball (B21) reverses the order inside the short deck too: A-A-A is the worst
    assert strength_percentile(hand_strength(PRIAL_A, True), True, 3) == 0.0


def test_B14_B2_run_beats_pair_at_a_see_on_three_ranks():
    """Heads-up, seat 1 deals: seat 0 stays blind, seat 1 looks and stays, seat 0 looks and
    sees for 2S: the run A-K-Q beats the pair of aces (B2)."""
    game = start([RUN, PAIR], dealer=1, starting_chips=20)
    apply_names(game, ["stay", "look", "stay", "look"])
    (result,) = apply_names(game, ["see"])
    assert result.by_see and result.winner == 0 and result.seer == 0
    assert result.pot == 2 + 1 + 2 + 4  # antes, a blind stay S/2, an open stay S, the see 2S
    assert result.deltas == [3, -3]
    assert result.shown == {0: parse_cards(RUN), 1: parse_cards(PAIR)}


def test_B1_env_observation_shows_the_short_deck_percentile():
    env = brag_v1.raw_env(num_players=2, deck_ranks=3)
    env.reset(seed=0, options={"deck": stack_deck([PRIAL_A, "Kc Kd Qs"], 1), "dealer": 1})
    env.step(env.unwrapped.game.config.action_names.index("look"))
    seen = brag_v1.decode_observation(env.observe("player_0")["observation"], env.game.config)
    assert seen["own_strength"] == pytest.approx(216 / 220)
    assert seen["own_category"] == "prial"


def test_B1_deck_ranks_too_small_or_bad_is_one_line_error():
    with pytest.raises(ValueError, match=r"^deck_ranks=1 leaves 4 cards, too few to deal 3 each"):
        BragConfig(num_players=2, deck_ranks=1)
    BragConfig(num_players=2, deck_ranks=2)  # 8 cards, one hand: enough
    with pytest.raises(ValueError, match=r"deck_ranks=2 .* B19 kept hand"):
        BragConfig(num_players=2, deck_ranks=2, hands_per_session=5)
    BragConfig(num_players=2, deck_ranks=2, hands_per_session=5, blind_keep_hand=False)
    with pytest.raises(ValueError, match=r"deck_ranks=2 leaves 8 cards.*5 each to 2 players"):
        BragConfig(num_players=2, deck_ranks=2, cards_dealt=5, allow_blind=False)
    with pytest.raises(ValueError, match="deck_ranks must be between 1 and 13"):
        BragConfig(deck_ranks=14)
    with pytest.raises(ValueError, match="deck_ranks must be an integer"):
        BragConfig(deck_ranks="3")


def test_B1_stacked_deck_must_come_from_the_short_deck():
    game = BragGame(BragConfig(num_players=2, deck_ranks=3))
    with pytest.raises(ValueError, match=r"^deck: Js not in the 3-rank deck"):
        game.new_session(0, deck="As Js")
    batched = BatchedBrag(1, BragConfig(num_players=2, deck_ranks=3, hands_per_session=3))
    with pytest.raises(ValueError, match=r"decks must have shape \(1, 12\)"):
        batched.new_session(decks=[list(range(52))])
    with pytest.raises(ValueError, match="permutations of the deck's 12 cards"):
        batched.new_session(decks=[list(range(12))])


def test_B1_B18_short_deck_sessions_replay():
    env = brag_v1.raw_env(num_players=2, deck_ranks=3, hands_per_session=12, starting_chips=40)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    while env.agents:
        _, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    histories = env.unwrapped.hand_histories()
    assert len(replay_session(histories)) == len(histories) >= 2
    wrong = dict(histories[0], cards=["Js Jh Jd", "As Ah Ad"])
    with pytest.raises(ValueError, match="not in the 3-rank deck"):
        replay_hand(wrong)


def test_B1_baseline_thresholds_are_those_of_the_short_deck():
    view = BragView(table_info("brag", num_players=2, deck_ranks=3))
    assert view.pair_at == 0.0  # no high cards: pairs are the weakest hands
    assert view.flush_at == 144 / 220 and view.prial_at == 208 / 220
    full = BragView(table_info("brag", num_players=2))
    assert full.pair_at == 16_440 / 22_100 and full.prial_at == 22_048 / 22_100
