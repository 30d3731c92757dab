"""The card model shared by Brag and Put.

A card is a small int in 0..51::

    card = rank * 4 + suit
    rank: 0..12 for 2 3 4 5 6 7 8 9 10 J Q K A   (card // 4)
    suit: 0..3  for spades, hearts, diamonds, clubs  (card % 4)

So ``0`` is the two of spades and ``51`` the ace of clubs. The rank index is the
plain "ace high" order; each game maps it onto its own ranking (Brag B1, Put P1).

Card text is a rank followed by a suit: ``"As"``, ``"10h"``, ``"Th"``, ``"qd"``,
``"7♣"``. Ranks are ``2-9``, ``10`` or ``T``, ``J Q K A``; suits are ``s h d c`` or
the symbols ``♠ ♥ ♦ ♣``; case does not matter.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Sequence

import numpy as np

from brag_env.config_checks import is_int

NUM_CARDS = 52
NUM_RANKS = 13
NUM_SUITS = 4

RANK_CHARS = "23456789TJQKA"
RANK_LABELS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUIT_CHARS = "shdc"
SUIT_SYMBOLS = "♠♥♦♣"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")

_RANK_BY_TEXT = {label.lower(): i for i, label in enumerate(RANK_LABELS)} | {"t": 8}
_SUIT_BY_TEXT = {c: i for i, c in enumerate(SUIT_CHARS)} | {
    s: i for i, s in enumerate(SUIT_SYMBOLS)
}
# Also accept the emoji variants of the suit symbols (U+FE0F suffix) and the hollow ones.
_SUIT_BY_TEXT |= {"♤": 0, "♡": 1, "♢": 2, "♧": 3}
_TOKEN_SPLIT = re.compile(r"[\s,]+")


def card_rank(card: int) -> int:
    """Rank index 0..12 (2..A) of a card."""
    return card >> 2


def card_suit(card: int) -> int:
    """Suit index 0..3 (spades, hearts, diamonds, clubs) of a card."""
    return card & 3


def make_card(rank: int, suit: int) -> int:
    if not (0 <= rank < NUM_RANKS and 0 <= suit < NUM_SUITS):
        raise ValueError(f"rank must be 0..12 and suit 0..3, got rank={rank} suit={suit}")
    return rank * 4 + suit


def parse_card(text: str) -> int:
    """Parse one card such as ``"As"``, ``"10h"``, ``"Th"`` or ``"Q♦"``."""
    token = text.strip().replace("\ufe0f", "")
    if len(token) < 2:
        raise ValueError(f"bad card {text!r}: expected a rank then a suit, e.g. 'As' or '10h'")
    rank = _RANK_BY_TEXT.get(token[:-1].lower())
    suit = _SUIT_BY_TEXT.get(token[-1].lower())
    if rank is None or suit is None:
        raise ValueError(
            f"bad card {text!r}: rank must be one of 2-10, T, J, Q, K, A and suit one of "
            f"s h d c or {' '.join(SUIT_SYMBOLS)}"
        )
    return rank * 4 + suit


def parse_cards(text: str | Iterable[str | int]) -> list[int]:
    """Parse cards from text (``"As 2s 3s"``, commas allowed) or an iterable of tokens/ints.

    Raises ``ValueError`` naming the bad token, or the repeated card.
    """
    if isinstance(text, str):
        tokens: Iterable[str | int] = [t for t in _TOKEN_SPLIT.split(text.strip()) if t]
    else:
        tokens = text
    cards: list[int] = []
    seen: set[int] = set()
    for token in tokens:
        if isinstance(token, (int, np.integer)) and not isinstance(token, bool):
            card = int(token)
            if not 0 <= card < NUM_CARDS:
                raise ValueError(f"bad card {token!r}: card ints must be in 0..51")
        elif isinstance(token, str):
            card = parse_card(token)
        else:
            raise ValueError(f"bad card {token!r}: expected card text or an int 0..51")
        if card in seen:
            raise ValueError(f"duplicate card {format_card(card)!r} in {text!r}")
        seen.add(card)
        cards.append(card)
    return cards


def parse_deck(deck: object) -> list[int]:
    """A ``deck`` reset option (card text, or an iterable of card text / card ints, top card
    first) as distinct card ids; anything else is a one-line ``ValueError`` naming ``deck``."""
    if isinstance(deck, (bytes, bytearray, memoryview)) or not (
        isinstance(deck, str) or hasattr(deck, "__iter__")
    ):
        raise ValueError(f"deck must be card text or a list of cards, got {deck!r}")
    try:
        return parse_cards(deck if isinstance(deck, str) else list(deck))
    except ValueError as err:
        raise ValueError(f"deck: {err}") from None


def format_card(card: int, symbols: bool = True) -> str:
    """Render one card: ``"10♥"`` with symbols, ``"Th"`` without."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"bad card {card!r}: card ints must be in 0..51")
    rank, suit = card >> 2, card & 3
    if symbols:
        return RANK_LABELS[rank] + SUIT_SYMBOLS[suit]
    return RANK_CHARS[rank] + SUIT_CHARS[suit]


def format_cards(cards: Iterable[int], symbols: bool = True) -> str:
    """Render cards separated by spaces; ``parse_cards`` reads the result back."""
    return " ".join(format_card(int(c), symbols) for c in cards)


def check_seed(seed: object, what: str = "seed") -> int | None:
    """``seed`` as a Python int (numpy integers too) or None; ``ValueError`` naming ``what``
    for anything else: a bool, a float such as 1.5, a negative number (numpy's own messages
    for these name neither the argument nor its value)."""
    if seed is None:
        return None
    if is_int(seed) and seed >= 0:  # type: ignore[operator]
        return int(seed)  # type: ignore[arg-type]
    raise ValueError(f"{what} must be a whole number >= 0 or None, got {seed!r}")


def make_rng(seed: int | np.random.Generator | None = None) -> np.random.Generator:
    """A numpy ``Generator`` from a seed (``check_seed``), or pass a Generator (or a numpy
    ``SeedSequence``) through."""
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    return np.random.default_rng(check_seed(seed))


def stacked_cards(top: list[int], pack: int | Sequence[int], rng: np.random.Generator) -> list[int]:
    """A stacked deck: the distinct card ids ``top`` first (top card first), then the other
    cards of ``pack`` (the card ids, or a count: ``range(pack)``) in an order drawn from
    ``rng``: a permutation of the whole pack with the cards of ``top`` taken out."""
    taken = set(top)
    return top + [c for c in rng.permutation(pack).tolist() if c not in taken]


class Deck:
    """An ordered deck: deal from the top, return cards to the bottom.

    Brag's no-shuffle rule (B18) keeps the order between hands, so the deck is a
    persistent object rather than a fresh shuffle per deal.
    """

    __slots__ = ("_cards",)

    def __init__(self, cards: Iterable[int] | None = None) -> None:
        cards = list(range(NUM_CARDS)) if cards is None else [int(c) for c in cards]
        self._cards: deque[int] = deque(cards)

    @classmethod
    def shuffled(cls, rng: np.random.Generator) -> Deck:
        """A full deck in an order drawn from ``rng``."""
        return cls(rng.permutation(NUM_CARDS).tolist())

    @classmethod
    def stacked(cls, top: Sequence[int] | str, rng: np.random.Generator) -> Deck:
        """``top`` first (top card first), then the remaining cards in an order drawn from ``rng``.

        ``top`` may be card text; it may hold up to 52 distinct cards.
        """
        return cls(stacked_cards(parse_cards(top), NUM_CARDS, rng))

    def shuffle(self, rng: np.random.Generator) -> None:
        """Shuffle the cards now in the deck."""
        cards = list(self._cards)
        order = rng.permutation(len(cards))
        self._cards = deque(cards[i] for i in order)

    def deal(self) -> int:
        """Take the top card."""
        if not self._cards:
            raise ValueError("cannot deal from an empty deck")
        return self._cards.popleft()

    def deal_many(self, n: int) -> list[int]:
        if n > len(self._cards):
            raise ValueError(f"cannot deal {n} cards from a deck of {len(self._cards)}")
        popleft = self._cards.popleft
        return [popleft() for _ in range(n)]

    def put_bottom(self, cards: Iterable[int]) -> None:
        """Return cards to the bottom, the first of ``cards`` going in first (uppermost)."""
        self._cards.extend(cards)

    def cards(self) -> list[int]:
        """The cards in order, top first."""
        return list(self._cards)

    def copy(self) -> Deck:
        """An independent deck holding the same cards in the same order."""
        other = Deck.__new__(Deck)  # the cards are ints already: skip __init__'s conversion
        other._cards = self._cards.copy()
        return other

    def __len__(self) -> int:
        return len(self._cards)

    def __repr__(self) -> str:
        return f"Deck({format_cards(self._cards, symbols=False)!r})"
