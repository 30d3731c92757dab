"""Brag hand ranking (B1-B6) and lowball (B21), checked against an independent reference.

The reference below reads the rules text directly: it builds one sort key per hand and ranks
all 22,100 hands by sorting those keys. The engine instead walks each category in order and
looks hands up in tables, so agreement is a real cross-check.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations, pairwise, permutations

import numpy as np
import pytest

from brag_env.brag import (
    CATEGORY_NAMES,
    NUM_STRENGTHS,
    hand_category,
    hand_category_batch,
    hand_strength,
    hand_strength_batch,
    strength_category,
    strength_percentile,
)
from brag_env.cards import format_card, parse_cards

# --- the reference, written from the rules text -------------------------------------------
RANK_TEXT = "23456789TJQKA"  # B1: ace high
CATEGORY_ORDER = ["high_card", "pair", "flush", "run", "running_flush", "prial"]  # B2, worst first


def reference_key(cards: tuple[int, ...]) -> tuple[str, tuple]:
    """(category, key within the category) for three cards, from the wording of B2-B5."""
    texts = [format_card(c, symbols=False) for c in cards]  # e.g. "Th"
    values = sorted((RANK_TEXT.index(t[0]) + 2 for t in texts), reverse=True)  # 2..14
    same_suit = len({t[1] for t in texts}) == 1
    counts = Counter(values)
    if len(counts) == 1:
        # B3: three 3s beat everything, then aces down to twos.
        return "prial", (15 if values[0] == 3 else values[0],)
    if len(counts) == 2:
        pair_value = next(v for v, n in counts.items() if n == 2)
        kicker = next(v for v, n in counts.items() if n == 1)
        return "pair", (pair_value, kicker)  # B5: pair rank, then kicker (a pair of 3s is ordinary)
    if values == [14, 3, 2]:
        run_key: tuple | None = (15,)  # B4: A-2-3 is the top run
    elif values[0] - values[2] == 2:
        run_key = (values[0],)  # consecutive; K-A-2 never gets here (14 - 2 != 2)
    else:
        run_key = None
    if run_key is not None:
        return ("running_flush" if same_suit else "run"), run_key
    return ("flush" if same_suit else "high_card"), tuple(values)  # B5: high, middle, low


ALL = list(combinations(range(52), 3))


@pytest.fixture(scope="module")
def reference() -> dict[tuple[int, ...], tuple[int, str]]:
    """Each hand -> (dense rank among all hands by sorted key, category)."""
    keyed = {h: reference_key(h) for h in ALL}
    sort_key = {h: (CATEGORY_ORDER.index(cat), inner) for h, (cat, inner) in keyed.items()}
    distinct = sorted(set(sort_key.values()))
    rank_of = {k: i for i, k in enumerate(distinct)}
    return {h: (rank_of[sort_key[h]], keyed[h][0]) for h in ALL}


def s(text: str, lowball: bool = False) -> int:
    return hand_strength(parse_cards(text), lowball)


# --- the whole ranking ----------------------------------------------------------------------
def test_b1_b6_every_hand_matches_the_reference_order(reference):
    got = {h: hand_strength(h) for h in ALL}
    assert got == {h: rank for h, (rank, _) in reference.items()}


def test_b2_every_category_matches_the_reference(reference):
    assert all(hand_category(h) == cat for h, (_, cat) in reference.items())


def test_b6_card_order_never_matters():
    hands = np.array(ALL, dtype=np.int8)
    expected = hand_strength_batch(hands)
    for perm in permutations(range(3)):
        assert np.array_equal(hand_strength_batch(hands[:, perm]), expected)
    rng = np.random.default_rng(1)
    for h in rng.choice(len(ALL), 500, replace=False):
        cards = ALL[h]
        assert len({hand_strength(list(p)) for p in permutations(cards)}) == 1


def test_b6_counts_of_classes_and_hands():
    strengths = [hand_strength(h) for h in ALL]
    assert len(ALL) == 22_100
    assert NUM_STRENGTHS == 741
    assert sorted(set(strengths)) == list(range(741))  # dense: 0..740, all used
    per_category = Counter(hand_category(h) for h in ALL)
    assert per_category == {  # B6, weakest category first
        "high_card": 16_440,
        "pair": 3_744,
        "flush": 1_096,
        "run": 720,
        "running_flush": 48,
        "prial": 52,
    }
    one_hand_per_class = {s: h for s, h in zip(strengths, ALL, strict=True)}
    classes = Counter(hand_category(h) for h in one_hand_per_class.values())
    assert classes == {
        "prial": 13,
        "running_flush": 12,
        "run": 12,
        "flush": 274,
        "pair": 156,
        "high_card": 274,
    }


def test_b2_categories_occupy_contiguous_strength_bands_in_order():
    by_category: dict[str, list[int]] = {}
    for h in ALL:
        by_category.setdefault(hand_category(h), []).append(hand_strength(h))
    bands = [(min(by_category[c]), max(by_category[c])) for c in CATEGORY_NAMES]
    assert bands[0][0] == 0 and bands[-1][1] == 740
    for (_, hi), (lo, _) in pairwise(bands):
        assert lo == hi + 1
    assert list(CATEGORY_NAMES) == CATEGORY_ORDER


# --- named cases, by rule -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("better", "worse"),
    [
        # B3: threes beat every other prial; below them aces, kings, ..., twos last.
        ("3s 3h 3d", "As Ah Ad"),
        ("As Ah Ad", "Ks Kh Kd"),
        ("4s 4h 4d", "2s 2h 2d"),
        # B2: prial > running flush > run > flush > pair > high card.
        ("2s 2h 2d", "As 2s 3s"),
        ("4s 3s 2s", "As 2h 3d"),
        ("4s 3h 2d", "As Ks Js"),  # a run beats a flush, unlike poker
        ("5h 3h 2h", "As Ah Kd"),
        ("2s 2h 3d", "As Kh Jd"),
        # B4: sequences (plain or suited) rank A-2-3 first, A-K-Q second, down to 4-3-2.
        ("As 2h 3d", "Ah Kd Qc"),
        ("Ah Kd Qc", "Ks Qh Jd"),
        ("5s 4h 3d", "4s 3h 2d"),
        ("As 2s 3s", "As Ks Qs"),
        ("As Ks Qs", "Kh Qh Jh"),
        # B4: K-A-2 does not wrap round into a sequence; it counts as ace high.
        ("4s 3h 2d", "Ks Ah 2d"),
        ("Ks Ah 2d", "Ah Qd Jc"),
        # B5: flushes and high cards compare high, then middle, then low card.
        ("As Ks 4s", "Ah Qh Jh"),
        ("Ad 10d 3d", "Ah 10h 2h"),
        ("Ks 9h 3d", "Ks 8h 7d"),
        ("Qs 10h 4d", "Qs 10h 3d"),
        # B5: pairs by the pair's rank (threes are ordinary here), then the kicker.
        ("3s 3h 2d", "2s 2h Ad"),
        ("As Ah 2d", "3s 3h Kd"),
        ("Ks Kh Ad", "Ks Kd Qc"),
        ("7s 7h Kd", "7d 7c Qh"),
        # The French seed's hands: the 4-6-9 flush beats the pair of 7s with a king.
        ("4s 6s 9s", "7h 7d Kc"),
    ],
)
def test_b2_b5_named_orderings(better: str, worse: str):
    assert s(better) > s(worse)
    assert s(better, lowball=True) < s(worse, lowball=True)  # B21: exactly reversed


@pytest.mark.parametrize(
    ("cards", "category"),
    [
        ("3s 3h 3d", "prial"),
        ("As 2s 3s", "running_flush"),
        ("Qh Kh Ah", "running_flush"),
        ("As 2h 3d", "run"),
        ("4s 3h 2d", "run"),
        ("Ks As 2s", "flush"),  # B4: K-A-2 suited is a flush, not a running flush
        ("Ks Ah 2d", "high_card"),
        ("4s 6s 9s", "flush"),
        ("7h 7d Kc", "pair"),
        ("Qd 9c 4h", "high_card"),
    ],
)
def test_b2_b4_categories(cards: str, category: str):
    assert hand_category(cards) == category


def test_b3_b4_extremes_of_each_category():
    assert s("3s 3h 3d") == 740  # the best hand of all
    assert s("2s 2h 2d") == 728  # the lowest prial
    assert s("As 2s 3s") == 727  # the best running flush
    assert s("4s 3s 2s") == 716  # the lowest running flush
    assert s("As 2h 3d") == 715  # the best run
    assert s("4s 3h 2d") == 704  # the lowest run
    assert s("5s 3h 2d") == 0  # the worst hand: 4-3-2 would be a run


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("As Kh Qd", "Ac Kd Qs"),
        ("As 2h 3d", "Ac 2c 3h"),
        ("4s 6s 9s", "4h 6h 9h"),
        ("Ks Kh 5d", "Kd Kc 5s"),
        ("9s 5h 2d", "9c 5c 2h"),
        ("As 3s 2s", "Ah 3h 2h"),
    ],
)
def test_b6_suits_never_break_ties(a: str, b: str):
    assert s(a) == s(b)
    assert s(a, lowball=True) == s(b, lowball=True)


# --- B21 lowball ----------------------------------------------------------------------------
def test_b21_lowball_reverses_the_whole_order_exactly():
    hands = np.array(ALL, dtype=np.int16)
    standard = hand_strength_batch(hands)
    low = hand_strength_batch(hands, lowball=True)
    assert np.array_equal(low, 740 - standard)
    assert all(hand_strength(h, lowball=True) == 740 - hand_strength(h) for h in ALL[::37])
    # Any two hands compare the other way round (or stay equal).
    rng = np.random.default_rng(2)
    i, j = rng.integers(0, len(ALL), (2, 20_000))
    assert np.array_equal(np.sign(low[i] - low[j]), -np.sign(standard[i] - standard[j]))
    assert s("5s 3h 2d", lowball=True) == 740
    assert s("3s 3h 3d", lowball=True) == 0


# --- batched API ----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64])
def test_batch_equals_scalar_on_random_hands(dtype):
    rng = np.random.default_rng(3)
    hands = np.argsort(rng.random((2_000, 52)), axis=1)[:, :3].astype(dtype)
    expected = [hand_strength(h) for h in hands.tolist()]
    assert hand_strength_batch(hands).tolist() == expected
    assert hand_strength_batch(hands, lowball=True).tolist() == [740 - e for e in expected]
    names = [hand_category(h) for h in hands.tolist()]
    assert [CATEGORY_NAMES[c] for c in hand_category_batch(hands)] == names
    # numpy scalars through the scalar API give the same answers as Python ints
    assert [hand_strength(h) for h in hands[:200]] == expected[:200]


def test_batch_keeps_leading_shape():
    rng = np.random.default_rng(4)
    hands = np.argsort(rng.random((4, 5, 52)), axis=-1)[..., :3]
    got = hand_strength_batch(hands)
    assert got.shape == (4, 5)
    assert got[2, 3] == hand_strength(hands[2, 3].tolist())
    assert hand_category_batch(hands).shape == (4, 5)
    assert hand_strength_batch(np.zeros((0, 3), dtype=np.int8)).shape == (0,)


def test_batch_rejects_a_wrong_last_axis():
    with pytest.raises(ValueError, match="shape"):
        hand_strength_batch(np.zeros((5, 4), dtype=np.int8))


# --- percentiles and categories of strengths --------------------------------------------------
def test_strength_percentile_counts_strictly_weaker_hands():
    standard = hand_strength_batch(np.array(ALL))
    counts = np.bincount(standard, minlength=741)
    for strength in (0, 1, 273, 274, 500, 704, 728, 739, 740):
        weaker = counts[:strength].sum()
        assert strength_percentile(strength) == pytest.approx(weaker / 22_100)
        weaker_low = counts[740 - strength + 1 :].sum()  # lowball: standard-stronger hands
        assert strength_percentile(strength, lowball=True) == pytest.approx(weaker_low / 22_100)
    assert strength_percentile(0) == 0.0
    assert strength_percentile(740) == pytest.approx(22_096 / 22_100)
    assert strength_percentile(0, lowball=True) == 0.0
    assert strength_percentile(740, lowball=True) == pytest.approx(1 - 60 / 22_100)
    arr = np.array([0, 300, 740])
    assert strength_percentile(arr).tolist() == [strength_percentile(int(x)) for x in arr]


def test_strength_category_matches_hand_category():
    for cards in ("3s 3h 3d", "As 2h 3d", "Ks Ah 2d", "7h 7d Kc", "4s 6s 9s", "As 2s 3s"):
        cat = CATEGORY_NAMES.index(hand_category(cards))
        assert strength_category(s(cards)) == cat
        assert strength_category(s(cards, lowball=True), lowball=True) == cat
    arr = np.array([0, 274, 740])
    assert strength_category(arr).tolist() == [0, 1, 5]


@pytest.mark.parametrize("bad", [-1, 741, 2.5, "3", None, True])
def test_bad_strength_raises(bad):
    with pytest.raises(ValueError, match="strength"):
        strength_percentile(bad)
    with pytest.raises(ValueError, match="strength"):
        strength_category(bad)


# --- input handling -------------------------------------------------------------------------
def test_card_text_and_tokens_are_accepted():
    assert hand_strength("As 2s 3s") == hand_strength(parse_cards("3s As 2s")) == 727
    assert hand_strength(["As", "2s", "3s"]) == 727
    assert hand_strength("3♠ 3♥ 3♦", lowball=True) == 0
    assert hand_strength((51, 47, 43)) == hand_strength(np.array([51, 47, 43], dtype=np.int8))


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ([1, 2], "exactly 3 cards"),
        ([1, 2, 3, 4], "exactly 3 cards"),
        ([], "exactly 3 cards"),
        ("As 2s", "exactly 3 cards"),
        ([5, 5, 9], "duplicate"),
        ("As As 2d", "duplicate"),
        ([1, 2, 52], "0..51"),
        ([-1, 2, 3], "0..51"),
        ([1, 2, 63], "0..51"),
        (np.array([1, 2, 60]), "0..51"),
        ([1.0, 2, 3], "bad card"),
        ("Xx 2s 3s", "bad card"),
        (7, "3 cards"),
        (None, "3 cards"),
    ],
)
def test_bad_hands_raise_value_error(bad, message):
    with pytest.raises(ValueError, match=message):
        hand_strength(bad)
    with pytest.raises(ValueError, match=message):
        hand_category(bad)
