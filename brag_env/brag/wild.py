"""American Brag's wild cards (rule B25): the hand ranking with wild cards, one object per game.

``ranking(wild_cards, lowball, deck_ranks)`` returns the :class:`Ranking` every engine, observer
and baseline reads: a strength per hand (higher is better), its category, its percentile and,
for display, the three cards a hand *reads as*. With ``wild_cards="none"`` it is a thin view of
``brag_env.brag.hands`` (the same strengths 0..740, the same percentiles), so the game without
wild cards is unchanged.

The wild sets (``WILD_CARDS``): "braggers" = Ad, Jc and 9d (the historical three); "nines" =
every 9; "aces" = every ace.

How a wild hand is read
    A wild card stands for whichever card gives the hand its best *reading*: the natural cards
    are kept and each wild card is replaced by some card so that the resulting three cards rank
    highest under the game's own order. Under lowball (B21) that order is reversed, so a wild card
    takes the reading that is best in lowball, i.e. the weakest standard hand it can make (three
    wild cards read as 5-3-2 of mixed suits there; in the standard game they are 3-3-3, the top
    prial of B3, and a pair of wild cards beside one natural card reads as a prial of its rank).

    Readings use cards that differ from the hand's natural cards and from each other. Allowing a
    wild card to copy a card already in the hand could never change a result: a copy shares a
    rank with a card in the hand, so the reading is a pair or a prial, whose class ignores suits
    (B6), and the same class is reachable with the same rank in another suit (no rank has more
    than three cards in a hand, and there are four suits). The tests check this by brute force
    with copies allowed. A wild card may stand for itself, or for a card another player holds.

    The strength of a wild-card game is ``4 * reading + (3 - wild cards in the hand)``, where
    ``reading`` is the reading's strength on the game's 0..740 scale (``hands.hand_strength``
    with the same ``lowball``). So hands compare by their readings first and, between equal
    readings (the same class: B6), the hand holding fewer wild cards ranks higher; when that is
    level too, the engine goes on to B22's discards and B14's seen-player rule as before.
    Categories and B20/B8/B18's "a prial was shown" follow the reading (a wild prial is a prial).

    The evaluator finds a reading by walking the 741 classes from the best down and taking the
    first one the natural cards fit into (their ranks are part of the class's ranks, and all
    share a suit if the class is a flush); the tests compare it with a brute force that tries
    every card for every wild card.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property, lru_cache
from itertools import permutations, product
from typing import Any

import numpy as np

from brag_env.brag.hands import (
    ALL_HANDS,
    CATEGORY_NAMES,
    CATEGORY_OF_STRENGTH,
    FLUSH,
    HIGH_CARD,
    LOWBALL_STRENGTH_TABLE,
    MAX_STRENGTH,
    NUM_STRENGTHS,
    RUN,
    RUNNING_FLUSH,
    STRENGTH_TABLE,
    _ordered_classes,
    category_percentile,
    hand_strength,
    strength_percentile,
)
from brag_env.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS, format_card, make_card, parse_cards

#: B25: the wild cards of each ``wild_cards`` option, as card ints (``brag_env.cards``).
WILD_CARDS: dict[str, tuple[int, ...]] = {
    "none": (),
    "braggers": (make_card(12, 2), make_card(9, 3), make_card(7, 2)),  # A♦ J♣ 9♦
    "nines": tuple(make_card(7, s) for s in range(NUM_SUITS)),
    "aces": tuple(make_card(12, s) for s in range(NUM_SUITS)),
}
#: Steps of the wild strength scale per reading: one per count of wild cards (0..3).
WILD_STEPS = 4
_DISTINCT_RANK_CATEGORIES = (HIGH_CARD, FLUSH, RUN, RUNNING_FLUSH)
_CLASSES = _ordered_classes()  # (category, ranks, suited) by standard strength, weakest first


def _fits(naturals: list[tuple[int, int]], ranks: tuple[int, ...], suited: bool) -> bool:
    """Whether a class with these ranks (and suitedness) can be completed around the naturals."""
    left = list(ranks)
    for rank, _ in naturals:
        if rank not in left:
            return False
        left.remove(rank)
    # A suited class needs one suit; an unsuited class of distinct ranks needs the wild cards
    # to break the suit, which they always can (there are four suits, at least one wild card).
    return not suited or len({suit for _, suit in naturals}) <= 1


def _complete(
    naturals: list[int], wilds: list[int], ranks: tuple[int, ...], suited: bool
) -> list[int]:
    """The cards the wild cards stand for in a class the naturals fit: distinct from every
    natural card and from each other, a wild card's own rank and suit preferred (display)."""
    left = list(ranks)
    for c in naturals:
        left.remove(c >> 2)
    taken = set(naturals)
    best: list[int] | None = None
    best_score = -1
    for order in set(permutations(left)):
        suit_prefs = [[w & 3] + [s for s in range(NUM_SUITS) if s != w & 3] for w in wilds]
        for suits in product(*suit_prefs):
            cards = [make_card(r, s) for r, s in zip(order, suits, strict=True)]
            whole = naturals + cards
            if len(set(whole)) < 3 or taken.intersection(cards):
                continue
            one_suit = len({c & 3 for c in whole}) == 1
            if suited != one_suit and len({c >> 2 for c in whole}) == 3:
                continue
            score = sum(c == w for c, w in zip(cards, wilds, strict=True)) * 2 + sum(
                c >> 2 == w >> 2 for c, w in zip(cards, wilds, strict=True)
            )
            if score > best_score:
                best, best_score = cards, score
            break  # later suit choices for this rank order are never preferred
    assert best is not None, "a fitting class always has a completion"
    return best


class Ranking:
    """The order of Brag hands for one (``wild_cards``, ``lowball``, ``deck_ranks``) game.

    ``table`` (int16, indexed like ``hands.STRENGTH_TABLE``: ``a * 2704 + b * 52 + c``) gives
    every hand's strength, -1 where a card repeats; ``num_strengths`` is the size of the scale.
    """

    def __init__(self, wild_cards: str = "none", lowball: bool = False, deck_ranks: int = 13):
        if wild_cards not in WILD_CARDS:
            raise ValueError(
                f"wild_cards must be one of {', '.join(WILD_CARDS)}; got {wild_cards!r}"
            )
        if wild_cards != "none" and deck_ranks != NUM_RANKS:
            raise ValueError(f"wild_cards={wild_cards!r} needs the full deck (deck_ranks=13)")
        self.wild_cards = wild_cards
        self.lowball = bool(lowball)
        self.deck_ranks = int(deck_ranks)
        self.wild: frozenset[int] = frozenset(WILD_CARDS[wild_cards])
        self.has_wilds = bool(self.wild)
        self._best_first = list(range(NUM_STRENGTHS))  # standard strengths, game-best first
        if not self.lowball:
            self._best_first.reverse()
        self._readings: dict[tuple[int, ...], int] = {}

    # ------------------------------------------------------------------ readings
    def _reading_class(self, naturals: tuple[int, ...]) -> int:
        """Standard strength (0..740) of the best reading around these natural cards."""
        got = self._readings.get(naturals)
        if got is None:
            pairs = [(c >> 2, c & 3) for c in naturals]
            got = next(s for s in self._best_first if _fits(pairs, _CLASSES[s][1], _CLASSES[s][2]))
            self._readings[naturals] = got
        return got

    def _split(self, cards: list[int]) -> tuple[list[int], list[int]]:
        wild = self.wild
        return [c for c in cards if c not in wild], [c for c in cards if c in wild]

    def reading(self, cards: Iterable[int] | str) -> list[int]:
        """The three cards a hand counts as, in its own order: each natural card unchanged,
        each wild card replaced by the card it stands for (the hand itself without wilds)."""
        hand = _three(cards)
        naturals, wilds = self._split(hand)
        if not wilds:
            return hand
        _, ranks, suited = _CLASSES[self._reading_class(tuple(sorted(naturals)))]
        stands = iter(_complete(naturals, wilds, ranks, suited))
        return [next(stands) if c in self.wild else c for c in hand]

    def stand_ins(self, cards: Iterable[int] | str) -> dict[int, int]:
        """Each wild card of the hand -> the card it stands for (empty without wild cards)."""
        hand = _three(cards)
        return {c: r for c, r in zip(hand, self.reading(hand), strict=True) if c in self.wild}

    # ------------------------------------------------------------------ strengths
    @cached_property
    def num_strengths(self) -> int:
        return NUM_STRENGTHS * WILD_STEPS if self.has_wilds else NUM_STRENGTHS

    @cached_property
    def table(self) -> np.ndarray:
        if not self.has_wilds:
            return LOWBALL_STRENGTH_TABLE if self.lowball else STRENGTH_TABLE
        table = np.full(NUM_CARDS**3, -1, dtype=np.int16)
        wide = ALL_HANDS.astype(np.int32)
        strengths = np.array([self._hand_strength(h) for h in ALL_HANDS.tolist()], np.int16)
        for i, j, k in permutations(range(3)):
            table[wide[:, i] * NUM_CARDS**2 + wide[:, j] * NUM_CARDS + wide[:, k]] = strengths
        table.flags.writeable = False
        return table

    def _hand_strength(self, hand: list[int]) -> int:
        naturals, wilds = self._split(hand)
        standard = self._reading_class(tuple(sorted(naturals))) if wilds else hand_strength(hand)
        game = MAX_STRENGTH - standard if self.lowball else standard
        return WILD_STEPS * game + (WILD_STEPS - 1 - len(wilds))

    @cached_property
    def _lists(self) -> list[list[list[int]]]:
        return self.table.reshape((NUM_CARDS,) * 3).tolist()

    def strength(self, cards: Iterable[int] | str) -> int:
        """The hand's strength on this game's scale, higher is better (B2-B6, B21, B25)."""
        if not self.has_wilds:
            return hand_strength(cards, self.lowball)
        try:
            a, b, c = cards  # type: ignore[misc]
            s = self._lists[a][b][c] if min(a, b, c) >= 0 and max(a, b, c) < NUM_CARDS else -1
        except (TypeError, ValueError):
            s = -1
        if s < 0:
            a, b, c = _three(cards)
            s = self._lists[a][b][c]
        return s

    def standard_strength(self, strength: int) -> int:
        """The standard 0..740 strength of the reading a strength on this scale stands for."""
        game = strength // WILD_STEPS if self.has_wilds else strength
        return MAX_STRENGTH - game if self.lowball else game

    @cached_property
    def category_of(self) -> np.ndarray:
        """Category id (``hands.CATEGORY_NAMES``) of each strength on this scale."""
        game = np.arange(self.num_strengths) // (WILD_STEPS if self.has_wilds else 1)
        standard = MAX_STRENGTH - game if self.lowball else game
        out = CATEGORY_OF_STRENGTH.take(standard)
        out.flags.writeable = False
        return out

    def category(self, cards: Iterable[int] | str) -> str:
        """The category name of the hand's reading ("prial" ... "high_card")."""
        return CATEGORY_NAMES[int(self.category_of[self.strength(cards)])]

    @cached_property
    def percentile_of(self) -> np.ndarray:
        """Fraction of the deck's hands strictly weaker than each strength, float64."""
        if not self.has_wilds:
            return np.asarray(
                strength_percentile(np.arange(NUM_STRENGTHS), self.lowball, self.deck_ranks)
            )
        counts = np.bincount(self.table.take(_hand_index()), minlength=self.num_strengths)
        out = np.concatenate(([0], np.cumsum(counts)[:-1])) / counts.sum()
        out.flags.writeable = False
        return out

    def percentile(self, strength: Any) -> Any:
        """The percentile of a strength (an int gives a float, an array an array)."""
        if isinstance(strength, np.ndarray):
            return self.percentile_of.take(strength)
        return float(self.percentile_of[strength])

    def category_percentile(self, category: int) -> float:
        """Standard-order percentile where ``category`` starts: the fraction of the deck's
        hands whose reading is in a weaker category (the baselines' thresholds)."""
        if not self.has_wilds:
            return category_percentile(category, self.deck_ranks)
        standard = self.standard_strength_table.take(_hand_index())
        return float(np.mean(CATEGORY_OF_STRENGTH.take(standard) < category))

    @cached_property
    def standard_strength_table(self) -> np.ndarray:
        """Per hand (indexed like ``table``): the standard strength of its reading, -1 if none."""
        if not self.has_wilds:
            return STRENGTH_TABLE
        game = self.table // WILD_STEPS
        out = np.where(self.table >= 0, MAX_STRENGTH - game if self.lowball else game, -1)
        return out.astype(np.int16)

    def strength_batch(self, hands: np.ndarray) -> np.ndarray:
        """Strengths of an int array of hands with shape (..., 3); trusted like
        ``hands.hand_strength_batch``."""
        h = np.asarray(hands).astype(np.int32)
        return self.table.take(h[..., 0] * NUM_CARDS**2 + h[..., 1] * NUM_CARDS + h[..., 2])


def stand_in_text(stands: dict[str, str] | dict[int, int]) -> str:
    """B25: "9♠ as K♠, 9♦ as 5♦" from ``Ranking.stand_ins`` (card ints) or a history's
    ``stood_for`` entry (card text); "" without wild cards."""
    parts = []
    for wild, card in stands.items():
        w, c = (
            (parse_cards([wild])[0], parse_cards([card])[0])
            if isinstance(wild, str)
            else (
                wild,
                card,
            )
        )
        parts.append(f"{format_card(w)} as {format_card(c)}")  # type: ignore[arg-type]
    return ", ".join(parts)


@lru_cache(maxsize=1)
def _hand_index() -> np.ndarray:
    wide = ALL_HANDS.astype(np.int32)
    return wide[:, 0] * NUM_CARDS**2 + wide[:, 1] * NUM_CARDS + wide[:, 2]


def _three(cards: Iterable[int] | str) -> list[int]:
    """Three distinct card ints from ints or card text, or a one-line ``ValueError``."""
    hand_strength(cards)  # validates: raises ValueError naming what is wrong
    if isinstance(cards, str) or any(isinstance(c, str) for c in cards):  # type: ignore[union-attr]
        return parse_cards(cards)  # type: ignore[arg-type]
    return [int(c) for c in cards]  # type: ignore[union-attr]


@lru_cache(maxsize=32)
def ranking(wild_cards: str = "none", lowball: bool = False, deck_ranks: int = 13) -> Ranking:
    """The shared :class:`Ranking` of a game (built once, its tables on first use)."""
    return Ranking(wild_cards, bool(lowball), int(deck_ranks))


def config_ranking(config: Any) -> Ranking:
    """The ranking of a ``BragConfig`` (its ``wild_cards``, ``lowball`` and ``deck_ranks``)."""
    return ranking(config.wild_cards, config.lowball, config.deck_ranks)
