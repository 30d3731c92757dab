"""American Brag's wild cards (B25): the ranking against a brute force, and stacked-deck hands.

The reference does not walk classes as ``brag_env.brag.wild`` does: it tries EVERY card of the
52 for every wild card of every one of the 22,100 hands (copies of cards already in the hand
included), scores each substitution with a key written from the B2-B5 wording, keeps the best
(the lowest under lowball, B21), and orders hands by (that key, fewer wild cards). The
evaluator's order must be the same on every hand.
"""

from __future__ import annotations

import json
import warnings
from functools import lru_cache
from itertools import combinations, product

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from agents import make_agent, table_info
from agents.brag import BragView
from brag_env import brag_v1
from brag_env.brag.game import BragGame
from brag_env.brag.observation import BragObserver, decode_observation, observation_layout
from brag_env.brag.replay import replay_session
from brag_env.brag.rules import LOOK, BragConfig
from brag_env.brag.scenario import apply_names, stack_deck
from brag_env.brag.wild import WILD_CARDS, ranking
from brag_env.cards import format_cards, parse_cards
from tests.test_brag_engine_random import play_session

ALL = np.array(list(combinations(range(52), 3)), dtype=np.int64)
WILD_SETS = ("braggers", "nines", "aces")


def reference_key(cards: np.ndarray) -> np.ndarray:
    """Standard key (higher better) of hands (..., 3), copies allowed, from B2-B5's words."""
    ranks = np.sort(cards >> 2, axis=-1)[..., ::-1]
    hi, mid, lo = ranks[..., 0], ranks[..., 1], ranks[..., 2]
    suits = cards & 3
    one_suit = (suits[..., 0] == suits[..., 1]) & (suits[..., 1] == suits[..., 2])
    prial = hi == lo
    pair = ~prial & ((hi == mid) | (mid == lo))
    distinct = ~prial & ~pair
    ace_two_three = (hi == 12) & (mid == 1) & (lo == 0)
    run = distinct & (((hi - mid == 1) & (mid - lo == 1)) | ace_two_three)
    spread = hi * 169 + mid * 13 + lo
    key = np.where(one_suit & distinct, 2 * 3000 + spread, spread)  # flush / high card (B5)
    kicker = hi + lo - mid
    key = np.where(pair, 1 * 3000 + mid * 13 + kicker, key)  # B5: the pair, then the kicker
    run_value = np.where(ace_two_three, 13, hi)  # B4: A-2-3 tops the runs
    key = np.where(run, np.where(one_suit, 4, 3) * 3000 + run_value, key)
    return np.where(prial, 5 * 3000 + np.where(hi == 1, 13, hi), key)  # B3: 3-3-3 on top


@lru_cache(maxsize=8)
def brute_force(wild_set: str, lowball: bool) -> tuple[np.ndarray, np.ndarray]:
    """(best key, wild count) per hand of ALL, trying every card for every wild card."""
    wild = np.isin(ALL, WILD_CARDS[wild_set])
    count = wild.sum(axis=1)
    best = reference_key(ALL)
    for w in (1, 2, 3):
        rows = np.flatnonzero(count == w)
        # Each hand's natural cards first, its wild cards last (the key ignores order).
        hands = np.take_along_axis(ALL[rows], np.argsort(wild[rows], axis=1, kind="stable"), 1)
        subs = np.array(list(product(range(52), repeat=w)), dtype=np.int64)  # [52**w, w]
        tried = np.repeat(hands[:, None, :], len(subs), axis=1)
        tried[:, :, 3 - w :] = subs
        keys = reference_key(tried)
        best[rows] = keys.min(axis=1) if lowball else keys.max(axis=1)
    return best, count


def dense(values: np.ndarray) -> np.ndarray:
    return np.unique(values, return_inverse=True)[1]


@pytest.mark.slow  # about 0.3-0.6 s each: 22,100 hands, every substitution
@pytest.mark.parametrize("lowball", [False, True])
@pytest.mark.parametrize("wild_set", WILD_SETS)
def test_b25_every_hand_orders_as_the_brute_force(wild_set: str, lowball: bool) -> None:
    best, count = brute_force(wild_set, lowball)
    game_key = -best if lowball else best  # B21: the lowest standard reading is best
    expected = dense(game_key * 4 + (3 - count))  # then fewer wild cards wins
    got = ranking(wild_set, lowball).strength_batch(ALL)
    assert (got >= 0).all()
    assert np.array_equal(dense(got), expected)


@pytest.mark.slow  # the brute force: about 0.5 s
@pytest.mark.parametrize("lowball", [False, True])
@pytest.mark.parametrize("wild_set", WILD_SETS)
def test_b25_readings_are_real_hands_of_the_best_key(wild_set: str, lowball: bool) -> None:
    """Each reading keeps the natural cards, has no repeated card, and scores the best key
    (the lowest under lowball, B21)."""
    rank = ranking(wild_set, lowball)
    best, _ = brute_force(wild_set, lowball)
    wild = set(WILD_CARDS[wild_set])
    for r in np.flatnonzero(np.isin(ALL, list(wild)).any(axis=1))[::23]:
        hand = ALL[r].tolist()
        read = rank.reading(hand)
        assert len(set(read)) == 3, (format_cards(hand), format_cards(read))
        assert all(a == b for a, b in zip(hand, read, strict=True) if a not in wild)
        assert reference_key(np.array(read)) == best[r], format_cards(hand)


def test_b25_none_is_the_standard_ranking() -> None:
    from brag_env.brag.hands import hand_strength_batch

    for lowball in (False, True):
        assert np.array_equal(
            ranking("none", lowball).strength_batch(ALL), hand_strength_batch(ALL, lowball)
        )


# ------------------------------------------------------------------ readings, named
@pytest.mark.parametrize(
    ("wild_set", "hand", "reads", "category"),
    [
        ("nines", "9s Kh Kc", "Ks Kh Kc", "prial"),  # a wild card makes a prial
        ("nines", "9s 5h 7c", "6s 5h 7c", "run"),  # ... a run
        ("nines", "9s Kh 2h", "Ah Kh 2h", "flush"),  # ... a flush
        ("nines", "9s 5h 6h", "7h 5h 6h", "running_flush"),  # ... a running flush
        ("aces", "As Ah Jc", "Js Jh Jc", "prial"),  # two wild cards + a card: a prial of it
        ("braggers", "Ad Jc 9d", "3d 3c 3s", "prial"),  # three wild cards: 3-3-3 (B3)
        ("braggers", "Ah Jc Qs", "Ah Kc Qs", "run"),  # only the three braggers are wild
    ],
)
def test_b25_each_reading(wild_set: str, hand: str, reads: str, category: str) -> None:
    rank = ranking(wild_set)
    assert format_cards(rank.reading(hand), symbols=False) == format_cards(
        parse_cards(reads), symbols=False
    )
    assert rank.category(hand) == category


def test_b25_a_wild_reading_beats_what_it_could_not_make_naturally() -> None:
    rank = ranking("braggers")
    # A♦ (wild) with 2-3 of a suit reads as the 4 or the A of it: A-2-3 running flush, the best.
    assert format_cards(rank.reading("Ad 2s 3s"), symbols=False) == "As 2s 3s"
    assert rank.strength("Ad 2s 3s") > rank.strength("Ks Qs Js")


def test_b21_b25_lowball_wild_cards_take_the_lowest_reading() -> None:
    rank = ranking("nines", lowball=True)
    assert format_cards(rank.reading("9s 9h 9d"), symbols=False) == "2s 5h 3d"  # 5-3-2 mixed
    assert rank.category("9s Kh Kc") == "pair"  # nothing lower than the pair it must be
    assert rank.strength("5s 3h 2d") > rank.strength("9s 3h 2d")  # natural 5-3-2 wins


# ------------------------------------------------------------------ B25 at the table
def showdown(hands: list[str], **options) -> tuple[BragGame, object]:
    """Seat 1 stays, seat 0 sees it (B14: seat 1, the seen player, wins ties)."""
    game = BragGame(BragConfig(num_players=2, allow_blind=False, **options))
    game.new_session(np.random.default_rng(0), deck=stack_deck(hands, 0, ""), dealer=0)
    (result,) = apply_names(game, ["stay", "see"])
    return game, result


# (seat 0's hand, seat 1's hand, wild_cards, the winner); seat 0 sees seat 1 (B14).
B25_SHOWDOWNS = {
    "wild_prial_beats_a_natural_running_flush": ("9s Kh Kc", "Qs Ks As", "nines", 0),
    # A natural K-K-5 against 9-K-5 read as K-K-5 (a prial of kings cannot be both: 4 kings),
    # whichever seat holds the natural one.
    "natural_beats_wild_at_equal_rank_seen": ("9s Kh 5c", "Ks Kd 5h", "nines", 1),
    "natural_beats_wild_at_equal_rank_seer": ("Ks Kd 5h", "9s Kh 5c", "nines", 0),
    # Both read K-K-K: fewer wild cards (one) wins.
    "two_wilds_lose_to_one_at_equal_reading_seen": ("9s 9h Kc", "9d Kh Ks", "nines", 1),
    "two_wilds_lose_to_one_at_equal_reading_seer": ("9d Kh Ks", "9s 9h Kc", "nines", 0),
    "three_wilds_are_3_3_3_beating_a_prial_of_aces": ("Ad Jc 9d", "As Ah Ac", "braggers", 0),
    "three_wilds_lose_to_a_natural_3_3_3": ("Ad Jc 9d", "3s 3h 3c", "braggers", 1),
    # Equal readings, one wild card each: the seen player wins (B14), from either seat.
    "equal_wild_hands_go_to_the_seen_player_b14": ("9s Kh Kc", "9h Kd Ks", "nines", 1),
    "equal_wild_hands_go_to_the_seen_player_b14_swapped": ("9h Kd Ks", "9s Kh Kc", "nines", 1),
    # Without wild cards 9-K-K is a pair of kings.
    "none_keeps_nines_natural": ("9s Kh Kc", "Qs Ks As", "none", 1),
}


@pytest.mark.parametrize(
    ("seer_hand", "seen_hand", "wild_cards", "winner"),
    list(B25_SHOWDOWNS.values()),
    ids=list(B25_SHOWDOWNS),
)
def test_b25_showdown(seer_hand: str, seen_hand: str, wild_cards: str, winner: int) -> None:
    _, result = showdown([seer_hand, seen_hand], wild_cards=wild_cards)
    assert result.winner == winner and result.seer == 0


def test_b25_a_wild_prial_counts_as_shown_prial_for_b20() -> None:
    _, result = showdown(["9s Kh Kc", "2s 5d 7c"], wild_cards="nines", prial_bonus=3)
    assert result.winner == 0 and result.bonus == [3, -3]


def test_b22_b25_kept_three_are_read_with_wilds() -> None:
    """Four-card Brag: seat 0 keeps 9-K-K (a prial with the wild nine) over a natural pair."""
    config = BragConfig(num_players=2, allow_blind=False, cards_dealt=4, wild_cards="nines")
    game = BragGame(config)
    game.new_session(
        np.random.default_rng(0), deck=stack_deck(["9s Kh Kc 2d", "As Ad 5c 4h"], 0, ""), dealer=0
    )
    names = config.action_names
    # Positions are by card id: seat 1 (first to act) drops its 4, seat 0 its 2.
    game.apply(names.index("discard_1"))  # seat 1: 4h 5c As Ad -> drops 4h
    game.apply(names.index("discard_1"))  # seat 0: 2d 9s Kh Kc -> drops 2d
    (result,) = apply_names(game, ["stay", "see"])
    assert result.winner == 0 and game.ranking.category(game.hands[0]) == "prial"


# ------------------------------------------------------------------ baselines' tables (B25)
@pytest.mark.slow  # the brute force: about 0.5 s
@pytest.mark.parametrize("wild_set", WILD_SETS)
def test_b25_baseline_thresholds_count_the_wild_readings(wild_set: str) -> None:
    """The category thresholds the baselines use are the brute force's fractions of hands
    whose best reading is weaker than a pair, a flush, a prial (the key's thousands)."""
    best, _ = brute_force(wild_set, False)
    view = BragView(table_info("brag", num_players=3, wild_cards=wild_set))
    assert view.pair_at == np.mean(best // 3000 < 1)
    assert view.flush_at == np.mean(best // 3000 < 2)
    assert view.prial_at == np.mean(best // 3000 < 5)
    assert view.pair_at < BragView(table_info("brag", num_players=3)).pair_at  # more pairs


@pytest.mark.slow  # the equity table of every wild percentile: about 0.5 s
@pytest.mark.parametrize("lowball", [False, True])
def test_b25_batched_equity_covers_every_wild_percentile(lowball: bool) -> None:
    from agents.brag_batch import _equity_table

    percentiles, _ = _equity_table(13, "nines")
    strength = ranking("nines", lowball).strength_batch(ALL)
    own = ranking("nines", lowball).percentile(strength).astype(np.float32)
    assert np.isin(own, percentiles).all()
    assert not np.isin(own, _equity_table(13)[0]).all()  # the standard table would miss some


def test_b25_four_card_baseline_keeps_the_wild_prial() -> None:
    """B22: a baseline discards so that its kept three read best with the wild cards."""
    config = BragConfig(num_players=2, allow_blind=False, cards_dealt=4, wild_cards="nines")
    agent = make_agent("brag:tight", table_info("brag", **config.to_dict()), seed=0)
    game = BragGame(config)
    game.new_session(
        np.random.default_rng(0), deck=stack_deck(["9s Kh Kc Ad", "As 2d 5c 4h"], 0, ""), dealer=0
    )
    observer = BragObserver(config)
    before = decode_observation(observer.set_from(game, 0), config)  # the whole deal, its wild 9
    assert before["own_wild"] == format_cards(parse_cards("9s")) and before["own_category"] is None
    game.apply(int(agent.act(observer.set_from(game, 1), np.array(game.legal_mask(), np.int8))))
    game.apply(int(agent.act(observer.set_from(game, 0), np.array(game.legal_mask(), np.int8))))
    assert sorted(game.discards[0]) == parse_cards("Ad")  # keeps 9-K-K: a prial of kings
    after = decode_observation(observer.set_from(game, 0), config)
    assert after["own_category"] == "prial" and after["own_wild"] == format_cards(parse_cards("9s"))


# ------------------------------------------------------------------ random play, env API
@pytest.mark.parametrize("wild_set", WILD_SETS)
def test_b25_random_sessions_keep_the_invariants_and_replay(wild_set: str) -> None:
    for seed, lowball in ((0, False), (1, True)):
        cfg = BragConfig(num_players=3, hands_per_session=8, wild_cards=wild_set, lowball=lowball)
        game = play_session(cfg, seed)  # chips conserved, every card accounted for, ends
        history = json.loads(json.dumps(game.history()))
        assert [r.to_dict() for r in replay_session(history, cfg)] == [
            r.to_dict() for r in game.hand_results
        ]


@pytest.mark.parametrize("wild_set", WILD_SETS)
def test_b25_api_test(wild_set: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test passes a made-up reset option on purpose
        api_test(brag_v1.env(num_players=3, wild_cards=wild_set), num_cycles=100)
        seed_test(lambda: brag_v1.env(num_players=3, wild_cards=wild_set), num_cycles=50)


def test_b25_perfect_recall_and_the_decoder() -> None:
    """own_wild comes before the recall block; the decoder names the wild cards."""
    env = brag_v1.raw_env(num_players=2, wild_cards="nines", perfect_recall=True)
    env.reset(seed=0, options={"deck": "9s Kh Kc Qs Js 2d", "dealer": 0})
    layout = observation_layout(env.config)
    assert layout.offset("own_wild") < layout.offset("recall_seat")
    env.step(LOOK)  # player_1 looks at 9s Kc Js (deal alternates from the dealer's left)
    view = decode_observation(env.observe("player_1")["observation"], env.config)
    assert view["own_wild"] == format_cards(parse_cards("9s")) and view["recall"]


def test_b25_layout_without_wild_cards_is_unchanged() -> None:
    assert "own_wild" not in observation_layout(BragConfig()).fields
    size = observation_layout(BragConfig()).size
    assert observation_layout(BragConfig(wild_cards="aces")).size == size + 3 * 52


def test_b25_brag_v0_keeps_the_original_rules() -> None:
    from brag_env import brag_v0

    with pytest.raises(ValueError, match="wild_cards: brag_v0 has the original rules only"):
        brag_v0.env(wild_cards="nines")


def test_b25_batched_engine_refuses_wild_cards() -> None:
    from brag_env.brag.batched import BatchedBrag

    with pytest.raises(ValueError, match=r"wild_cards='nines'.*vec_env: dummy"):
        BatchedBrag(2, BragConfig(wild_cards="nines"))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"wild_cards": "jokers"}, "wild_cards must be one of none, braggers, nines, aces"),
        ({"wild_cards": "nines", "deck_ranks": 8}, "needs the full deck"),
    ],
)
def test_b25_bad_option_one_line_error(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        BragConfig(**options)


# ------------------------------------------------------------------ histories (B25)
def test_b25_history_names_what_each_wild_card_stood_for() -> None:
    game, _ = showdown(["9s Kh Kc", "9d 9h 5c"], wild_cards="nines")
    (hist,) = game.history()
    assert hist["stood_for"] == {"0": {"9s": "Ks"}, "1": {"9h": "5h", "9d": "5d"}}
    assert hist["see"]["categories"] == {"0": "prial", "1": "prial"}
    assert "stood_for" not in showdown(["9s Kh Kc", "9d 9h 5c"])[0].history()[0]


# ------------------------------------------------------------------ screens (B25)
def _plain(renderable: object) -> str:
    import io

    from rich.console import Console

    out = io.StringIO()
    Console(file=out, width=100, color_system=None).print(renderable)
    return out.getvalue()


def test_b25_render_and_result_screens_name_the_stand_ins() -> None:
    from brag_env.brag.render import render_table
    from brag_env.ui.brag_view import hand_result

    game, _ = showdown(["9s Kh Kc", "9d 9h 5c"], wild_cards="nines")
    table = render_table(game, ["a", "b"], game.config.action_names)
    assert "shown by a: 9♠ K♥ K♣ (prial; 9♠ as K♠)" in table
    assert "9♦ as 5♦, 9♥ as 5♥" in table
    screen = _plain(hand_result(game.history()[0], ["a", "b"]))
    assert "prial (9♠ as K♠)" in screen and "a wins the pot" in screen
    plain, _ = showdown(["9s Kh Kc", "9d 9h 5c"])
    assert " as " not in render_table(plain, ["a", "b"], plain.config.action_names)


def test_b25_play_screen_marks_own_wild_cards() -> None:
    from brag_env.ui.brag_view import own_cards_text

    env = brag_v1.raw_env(num_players=2, wild_cards="nines", allow_blind=False)
    env.reset(seed=0, options={"deck": "9s Kh Kc Qs Js 2d", "dealer": 0})
    view = decode_observation(env.observe("player_1")["observation"], env.config)
    assert "wild: 9♠" in own_cards_text(view).plain
