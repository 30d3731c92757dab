"""Three-card Brag hand evaluation (rules B1-B6, lowball B21) through precomputed tables.

Every hand of three distinct cards gets a *strength*: a dense class index in ``0..740``
(``NUM_STRENGTHS`` = 741 classes), higher is better, equal means equal (B6: suits carry no
value, not even as a tie-breaker). The classes, weakest first:

=================  ==========  =====  ==================================================
category           strengths   hands  order inside the category
=================  ==========  =====  ==================================================
high card          0..273      16440  highest card, then middle, then lowest (B5)
pair               274..429     3744  rank of the pair, then the kicker (B5)
flush              430..703     1096  highest card, then middle, then lowest (B5)
run                704..715      720  4-3-2 lowest ... K-Q-J, A-K-Q, then A-2-3 on top (B4)
running flush      716..727       48  same order as runs (B4)
prial              728..740       52  2-2-2 lowest ... K-K-K, A-A-A, then 3-3-3 on top (B3)
=================  ==========  =====  ==================================================

K-A-2 does not count as a sequence (B4): it is an ace-high high card (or flush). With
``lowball=True`` (B21) the order is exactly reversed: lowball strength = 740 - standard strength.

A short deck (``deck_ranks`` k < 13: the k highest ranks of B1, A K Q ... down) ranks its hands
by the same classes; it only holds fewer of them. Which runs exist, whether A-2-3 does, and the
best prial follow from the ranks present (``deck_ranking``); percentiles (``strength_percentile``
with ``deck_ranks``) count the short deck's own hands.

All 22,100 hands are ranked once at import. Lookups use a flat table indexed by
``a * 2704 + b * 52 + c`` for the three card ints in any order (``brag_env.cards``: card =
rank * 4 + suit), so neither sorting nor hashing happens per hand.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from itertools import combinations, permutations
from typing import Any

import numpy as np

from brag_env.cards import NUM_CARDS, NUM_RANKS, parse_cards

NUM_STRENGTHS = 741
MAX_STRENGTH = NUM_STRENGTHS - 1
NUM_HANDS = 22_100  # C(52, 3)

# Category ids follow the strength order: a higher id is a better category (B2).
CATEGORY_NAMES: tuple[str, ...] = (
    "high_card",
    "pair",
    "flush",
    "run",
    "running_flush",
    "prial",
)
HIGH_CARD, PAIR, FLUSH, RUN, RUNNING_FLUSH, PRIAL = range(6)

_THREE = 1  # rank index of the 3s: 3-3-3 is the best prial (B3)
_ACE = NUM_RANKS - 1
_STRIDE_A, _STRIDE_B = NUM_CARDS * NUM_CARDS, NUM_CARDS  # flat index = a*2704 + b*52 + c


def _is_run(high: int, mid: int, low: int) -> bool:
    """Distinct ranks, highest first. A-2-3 counts (B4); K-A-2 does not (no wrap-around)."""
    return (high - mid == 1 and mid - low == 1) or (high, mid, low) == (_ACE, _THREE, 0)


def _ordered_classes() -> list[tuple[int, tuple[int, ...], bool]]:
    """All 741 classes as (category, ranks highest first, suited), weakest first.

    Built by walking each category in its stated order (B2-B5) rather than by sorting keys,
    so the tests' key-sorting reference is an independent check.
    """
    # Distinct rank triples, highest card first, in increasing (high, mid, low) order.
    distinct = [(h, m, lo) for h in range(NUM_RANKS) for m in range(h) for lo in range(m)]
    plain = [t for t in distinct if not _is_run(*t)]
    runs = [(h, h - 1, h - 2) for h in range(2, NUM_RANKS)] + [(_ACE, _THREE, 0)]
    prial_ranks = [r for r in range(NUM_RANKS) if r != _THREE] + [_THREE]

    classes: list[tuple[int, tuple[int, ...], bool]] = []
    classes += [(HIGH_CARD, t, False) for t in plain]
    classes += [
        (PAIR, (p, p, k), False) for p in range(NUM_RANKS) for k in range(NUM_RANKS) if k != p
    ]
    classes += [(FLUSH, t, True) for t in plain]
    classes += [(RUN, t, False) for t in runs]
    classes += [(RUNNING_FLUSH, t, True) for t in runs]
    classes += [(PRIAL, (r, r, r), False) for r in prial_ranks]
    return classes


def _class_key(hand: tuple[int, int, int]) -> tuple[tuple[int, ...], bool]:
    """The (ranks, suited) pair that identifies a hand's class; a pair lists its pair rank first."""
    ranks = sorted((c >> 2 for c in hand), reverse=True)
    if ranks[0] == ranks[1] or ranks[1] == ranks[2]:
        pair = ranks[1]  # the middle card always belongs to the pair (or the prial)
        kicker = ranks[0] + ranks[2] - pair if ranks[0] != ranks[2] else pair
        return (pair, pair, kicker), False
    suited = (hand[0] & 3) == (hand[1] & 3) == (hand[2] & 3)
    return tuple(ranks), suited


def _build_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    classes = _ordered_classes()
    assert len(classes) == NUM_STRENGTHS
    index_of = {(ranks, suited): s for s, (_, ranks, suited) in enumerate(classes)}
    category = np.array([cat for cat, _, _ in classes], dtype=np.int8)

    hands = np.array(list(combinations(range(NUM_CARDS), 3)), dtype=np.int8)
    strength = np.array([index_of[_class_key(tuple(h))] for h in hands.tolist()], np.int16)

    table = np.full(NUM_CARDS**3, -1, dtype=np.int16)  # -1: not a hand (repeated card)
    wide = hands.astype(np.int32)
    for i, j, k in permutations(range(3)):
        table[wide[:, i] * _STRIDE_A + wide[:, j] * _STRIDE_B + wide[:, k]] = strength
    return hands, strength, table, category


# ALL_HANDS: the 22,100 hands, int8 [22100, 3], each sorted, in lexicographic order.
# STRENGTH_TABLE: int16 [52**3], strength by a*2704 + b*52 + c (-1 where a card repeats).
# CATEGORY_OF_STRENGTH: int8 [741], the category id of each standard strength.
ALL_HANDS, _ALL_STRENGTHS, STRENGTH_TABLE, CATEGORY_OF_STRENGTH = _build_tables()

LOWBALL_STRENGTH_TABLE = np.where(STRENGTH_TABLE >= 0, MAX_STRENGTH - STRENGTH_TABLE, -1).astype(
    np.int16
)
# Hands per class, and the fraction of all hands strictly weaker than each class.
STRENGTH_COUNTS = np.bincount(_ALL_STRENGTHS, minlength=NUM_STRENGTHS).astype(np.int64)
_PERCENTILE = np.concatenate(([0], np.cumsum(STRENGTH_COUNTS)[:-1])) / NUM_HANDS
_LOWBALL_PERCENTILE = np.concatenate(([0], np.cumsum(STRENGTH_COUNTS[::-1])[:-1])) / NUM_HANDS
for _array in (
    ALL_HANDS,
    STRENGTH_TABLE,
    LOWBALL_STRENGTH_TABLE,
    CATEGORY_OF_STRENGTH,
    STRENGTH_COUNTS,
    _PERCENTILE,
    _LOWBALL_PERCENTILE,
):
    _array.flags.writeable = False

# The scalar path indexes nested Python lists, table[a][b][c]: faster than numpy scalars or
# flat-index arithmetic, and numpy integer cards index lists safely (shifting an int8 would
# overflow). Each axis has 64 slots: those for "cards" 52..63 hold -1 like repeated cards, so a
# single comparison on a | b | c rejects every out-of-range int (and negatives, which would
# otherwise index from the end). The object-array take makes all slots share 742 int objects.
_INTS = np.array(list(range(-1, NUM_STRENGTHS)), dtype=object)
_PADDED = np.full((64, 64, 64), -1, dtype=np.int32)
_PADDED[:NUM_CARDS, :NUM_CARDS, :NUM_CARDS] = STRENGTH_TABLE.reshape((NUM_CARDS,) * 3)
_STRENGTH_LISTS: list[list[list[int]]] = _INTS[_PADDED + 1].tolist()
del _PADDED
_CATEGORY_NAME_BY_STRENGTH: tuple[str, ...] = tuple(
    CATEGORY_NAMES[c] for c in CATEGORY_OF_STRENGTH.tolist()
)


def _strength_slow(cards: Any, lowball: bool) -> int:
    """Input the fast path refused: card text, text tokens, or an error naming what is wrong."""
    if not isinstance(cards, (str, Iterable)):
        raise ValueError(f"a Brag hand is 3 cards (ints 0..51 or card text), got {cards!r}")
    try:
        parsed = parse_cards(cards)
    except ValueError as exc:
        raise ValueError(f"bad Brag hand {cards!r}: {exc}") from None
    if len(parsed) != 3:
        raise ValueError(f"a Brag hand is exactly 3 cards, got {len(parsed)}: {cards!r}")
    return hand_strength(parsed, lowball)


def hand_strength(cards: Iterable[int] | str, lowball: bool = False) -> int:
    """Strength class 0..740 of three cards, higher is better (B1-B6); B21 order if ``lowball``.

    ``cards``: three distinct card ints 0..51 in any order (Python or numpy ints), or card text
    such as ``"As 2s 3s"``. Raises ``ValueError`` for anything else.
    """
    try:
        a, b, c = cards  # type: ignore[misc]
        s = _STRENGTH_LISTS[a][b][c] if 0 <= (a | b | c) < 64 else -1
    except (TypeError, ValueError):
        return _strength_slow(cards, lowball)
    if s < 0:
        return _strength_slow(cards, lowball)  # raises: a repeated or out-of-range card
    return MAX_STRENGTH - s if lowball else s


def hand_category(cards: Iterable[int] | str) -> str:
    """One of ``CATEGORY_NAMES``: "prial", "running_flush", "run", "flush", "pair", "high_card".

    The category of a hand is the same under lowball; only the order between hands changes.
    """
    return _CATEGORY_NAME_BY_STRENGTH[hand_strength(cards)]


def _flat_index(hands: np.ndarray) -> np.ndarray:
    h = np.asarray(hands)
    if h.shape[-1:] != (3,):
        raise ValueError(f"hands must have shape (..., 3), got {h.shape}")
    # int32 arithmetic is about twice as fast as int64 here, and the largest index (140,607) fits.
    h = h.astype(np.int32, copy=False)
    idx = h[..., 0] * _STRIDE_A
    idx += h[..., 1] * _STRIDE_B
    idx += h[..., 2]
    return idx


def hand_strength_batch(hands: np.ndarray, lowball: bool = False) -> np.ndarray:
    """Strengths (int16) of an integer array of hands with shape (..., 3), e.g. [N, 3].

    For speed the cards are trusted: values must be distinct card ints 0..51 per hand. A hand
    with a repeated card gives -1; out-of-range values give an IndexError or a wrong answer.
    """
    table = LOWBALL_STRENGTH_TABLE if lowball else STRENGTH_TABLE
    return table.take(_flat_index(hands))


def hand_category_batch(hands: np.ndarray) -> np.ndarray:
    """Category ids (int8, indices into ``CATEGORY_NAMES``) of hands with shape (..., 3).

    Trusts its input like ``hand_strength_batch``.
    """
    return CATEGORY_OF_STRENGTH.take(STRENGTH_TABLE.take(_flat_index(hands)))


def strength_category(strength: Any, lowball: bool = False) -> Any:
    """Category id (int, or an int8 array for an array) of a strength value or array."""
    if isinstance(strength, np.ndarray):
        s = MAX_STRENGTH - strength if lowball else strength
        return CATEGORY_OF_STRENGTH.take(s)
    s = _check_strength(strength)
    return int(CATEGORY_OF_STRENGTH[MAX_STRENGTH - s if lowball else s])


def deck_rank_ids(deck_ranks: int) -> tuple[int, ...]:
    """The rank indices (``brag_env.cards``: 0..12 = 2..A) of a deck of the ``deck_ranks``
    highest ranks of B1, highest first: 3 gives (12, 11, 10) = A, K, Q."""
    if isinstance(deck_ranks, bool) or not isinstance(deck_ranks, (int, np.integer)):
        raise ValueError(f"deck_ranks must be an integer, got {deck_ranks!r}")
    if not 1 <= deck_ranks <= NUM_RANKS:
        raise ValueError(f"deck_ranks must be between 1 and {NUM_RANKS}, got {deck_ranks}")
    return tuple(range(NUM_RANKS - 1, NUM_RANKS - 1 - int(deck_ranks), -1))


@lru_cache(maxsize=32)
def deck_strength_counts(deck_ranks: int) -> np.ndarray:
    """Hands per standard strength class in a deck of the ``deck_ranks`` highest ranks."""
    if deck_ranks == NUM_RANKS:
        return STRENGTH_COUNTS
    ranks = set(deck_rank_ids(deck_ranks))
    inside = np.isin(ALL_HANDS.astype(np.int64) >> 2, list(ranks)).all(axis=1)
    counts = np.bincount(_ALL_STRENGTHS[inside], minlength=NUM_STRENGTHS).astype(np.int64)
    counts.flags.writeable = False
    return counts


@lru_cache(maxsize=64)
def _percentile_table(lowball: bool, deck_ranks: int) -> tuple[np.ndarray, list[float]]:
    if deck_ranks == NUM_RANKS:
        table = _LOWBALL_PERCENTILE if lowball else _PERCENTILE
        return table, table.tolist()
    counts = deck_strength_counts(deck_ranks)
    counts = counts[::-1] if lowball else counts  # lowball strength s = standard 740 - s
    table = np.concatenate(([0], np.cumsum(counts)[:-1])) / counts.sum()
    table.flags.writeable = False
    return table, table.tolist()


def strength_percentile(strength: Any, lowball: bool = False, deck_ranks: int = NUM_RANKS) -> Any:
    """Fraction of the deck's hands strictly weaker than a hand of this strength, in [0, 1).

    ``strength`` is on the scale of the same ``lowball`` setting (a value returned by
    ``hand_strength(cards, lowball)``). For example the worst high card (5-3-2) gives 0.0 and
    3-3-3 gives 22,096 / 22,100 in standard play. ``deck_ranks`` < 13 counts the hands of that
    short deck only (A-A-A is then the best prial and scores (hands - 4) / hands). Arrays give
    float64 arrays (unchecked).
    """
    table, as_list = _percentile_table(bool(lowball), int(deck_ranks))
    if isinstance(strength, np.ndarray):
        return table.take(strength)
    return as_list[_check_strength(strength)]


def category_percentile(category: int, deck_ranks: int = NUM_RANKS) -> float:
    """Standard-order percentile where ``category`` starts in the deck: the fraction of its
    hands in weaker categories (the pair threshold is 16,440 / 22,100 in the full pack)."""
    counts = deck_strength_counts(deck_ranks)
    below = int(counts[category > CATEGORY_OF_STRENGTH].sum())
    return below / int(counts.sum())


def deck_ranking(deck_ranks: int) -> dict[str, Any]:
    """The B2-B5 ranking restated for a short deck: the ranks in it, the runs that exist
    (best first, A-2-3 only in the full pack), the best prial, and the hands per category."""
    ranks = deck_rank_ids(deck_ranks)
    present = set(ranks)
    label = "23456789TJQKA"
    runs = [(r, r - 1, r - 2) for r in range(NUM_RANKS - 1, 1, -1)]
    names = ["-".join(label[r] for r in t) for t in runs if present.issuperset(t)]
    if present.issuperset((_ACE, _THREE, 0)):
        names.insert(0, "A-2-3")  # B4: the best run
    prials = [r for r in ranks if r != _THREE]
    if _THREE in present:
        prials.insert(0, _THREE)  # B3: 3-3-3 is the best prial
    counts = deck_strength_counts(deck_ranks)
    per_category = {
        name: int(counts[c == CATEGORY_OF_STRENGTH].sum()) for c, name in enumerate(CATEGORY_NAMES)
    }
    return {
        "ranks": "".join(label[r] for r in ranks),
        "runs": names,
        "best_prial": "-".join(label[prials[0]] * 3) if prials else None,
        "hands": int(counts.sum()),
        "per_category": per_category,
    }


def _check_strength(strength: Any) -> int:
    if isinstance(strength, bool) or not isinstance(strength, (int, np.integer)):
        raise ValueError(f"strength must be an int 0..{MAX_STRENGTH}, got {strength!r}")
    if not 0 <= strength <= MAX_STRENGTH:
        raise ValueError(f"strength must be in 0..{MAX_STRENGTH}, got {strength}")
    return int(strength)
