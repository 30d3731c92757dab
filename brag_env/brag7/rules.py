"""Seven-card Brag (rule B24) configuration and its 140 arrangement actions.

Rule IDs refer to the project's rules document (``seeds/rules/brag.md``): B24 is Seven-card
Brag, B2-B6 the hand ranking it reuses (``brag_env.brag.hands``), B21 lowball, B7 the dealer.

An arrangement sorts a player's seven cards into two three-card hands, the FIRST and the
SECOND, plus the one card left over, the DISCARD. Its id is fixed by the positions of the cards
in the player's seven cards SORTED by card id (``brag_env.cards``: rank, then suit; position 0
is the lowest card):

* the first hand is one of the 35 position triples ``combinations(range(7), 3)`` in
  lexicographic order: index ``f`` (0 = positions 0-1-2, 34 = positions 4-5-6);
* of the four positions left, in ascending order ``r0 < r1 < r2 < r3``, the second hand is one
  of the four triples ``combinations((r0, r1, r2, r3), 3)`` in lexicographic order: index ``s``
  (0 = r0-r1-r2, discarding r3; 3 = r1-r2-r3, discarding r0);
* ``id = 4 * f + s``, so ids 0..139.

Swapping the two hands gives a different id: which hand is first matters (they are compared
position by position).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any

import numpy as np

from brag_env.brag.rules import best_seats, deck_cards
from brag_env.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS, format_cards
from brag_env.config_checks import check_bool, check_int, known_options

NO_WINNER = -1  # B24: nobody scooped the pot
MIN_PLAYERS, MAX_PLAYERS = 2, 7  # B24: seven cards each to at most seven players (49 cards)
CARDS_EACH = 7  # B24
NUM_ARRANGEMENTS = 140  # B24: 35 triples for the first hand, then 4 for the second


def _arrangement_table() -> np.ndarray:
    """int8 [140, 7]: per id, the sorted-card positions of first hand (3), second hand (3),
    discard (1), in the order of the module docstring."""
    rows = []
    for first in combinations(range(CARDS_EACH), 3):
        rest = [p for p in range(CARDS_EACH) if p not in first]
        for second in combinations(rest, 3):
            (discard,) = (p for p in rest if p not in second)
            rows.append((*first, *second, discard))
    table = np.array(rows, dtype=np.int8)
    assert table.shape == (NUM_ARRANGEMENTS, CARDS_EACH)
    table.flags.writeable = False
    return table


#: ARRANGEMENTS[id] = positions (in the sorted seven cards) of first, second, discard.
ARRANGEMENTS = _arrangement_table()
FIRST_POSITIONS = ARRANGEMENTS[:, 0:3]
SECOND_POSITIONS = ARRANGEMENTS[:, 3:6]
DISCARD_POSITIONS = ARRANGEMENTS[:, 6]
_ID_OF_POSITIONS = {(tuple(r[0:3]), tuple(r[3:6])): i for i, r in enumerate(ARRANGEMENTS.tolist())}


def _sorted_seven(cards: Sequence[int]) -> list[int]:
    seven = sorted(int(c) for c in cards)
    if len(seven) != CARDS_EACH or len(set(seven)) != CARDS_EACH:
        raise ValueError(f"a Seven-card Brag deal is 7 distinct cards, got {list(cards)!r}")
    if seven[0] < 0 or seven[-1] >= NUM_CARDS:
        raise ValueError(f"card ints must be in 0..51, got {list(cards)!r}")
    return seven


def check_arrangement(action: Any) -> int:
    """``action`` as an arrangement id 0..139, or a one-line ``ValueError``."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise ValueError(f"an arrangement is an integer id 0..139, got {action!r}")
    if not 0 <= action < NUM_ARRANGEMENTS:
        raise ValueError(f"an arrangement is an id 0..139, got {action}")
    return int(action)


def arrangement(
    action: int, cards: Sequence[int]
) -> tuple[tuple[int, int, int], tuple[int, int, int], int]:
    """B24: arrangement ``action`` of the seven ``cards`` (any order) as (first hand, second
    hand, discard), each hand's cards ascending."""
    seven = _sorted_seven(cards)
    row = ARRANGEMENTS[check_arrangement(action)].tolist()
    first = (seven[row[0]], seven[row[1]], seven[row[2]])
    second = (seven[row[3]], seven[row[4]], seven[row[5]])
    return first, second, seven[row[6]]


def arrangement_id(first: Sequence[int], second: Sequence[int], cards: Sequence[int]) -> int:
    """The id of the arrangement of ``cards`` with that first and second hand (the inverse of
    ``arrangement``); the seventh card is the discard."""
    seven = _sorted_seven(cards)
    where = {c: i for i, c in enumerate(seven)}
    try:
        f = tuple(sorted(where[int(c)] for c in first))
        s = tuple(sorted(where[int(c)] for c in second))
    except KeyError:
        raise ValueError(
            f"hands {list(first)} / {list(second)} are not made of the cards "
            f"{format_cards(seven, symbols=False)}"
        ) from None
    action = _ID_OF_POSITIONS.get((f, s))
    if action is None:
        raise ValueError(
            f"an arrangement is two hands of 3 different cards, got {list(first)} / {list(second)}"
        )
    return action


def arrangement_hands(cards: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """The first and second hands of all 140 arrangements of ``cards``: two int [140, 3]
    arrays of card ids (for the batched ranking ``hand_strength_batch``)."""
    seven = np.array(_sorted_seven(cards), dtype=np.int64)
    return seven[FIRST_POSITIONS], seven[SECOND_POSITIONS]


@dataclass(frozen=True)
class Brag7Config:
    """Every option of Seven-card Brag (B24). Defaults are the spec's defaults."""

    num_players: int = 4  # B24: 2 to 7
    ante: int = 1  # B24: every player antes each deal
    hands_per_session: int = 10  # B24: deals per session (an episode)
    # Chips are tracked so that rewards are chip changes. Every ante of the session must be
    # payable (B24 has no rule for a short player), so starting_chips >= ante * deals.
    starting_chips: int = 200
    lowball: bool = False  # B21: the ranking reversed, for both hands
    deck_ranks: int = NUM_RANKS  # B1: only the k highest ranks (A K Q ... down), 4 suits each

    def __post_init__(self) -> None:
        check_int(self, "num_players", MIN_PLAYERS, MAX_PLAYERS)
        check_int(self, "ante", 1)
        check_int(self, "hands_per_session", 1)
        check_int(self, "starting_chips", 1)
        if self.starting_chips < self.ante * self.hands_per_session:
            raise ValueError(
                f"starting_chips must cover every ante of the session (ante x "
                f"hands_per_session = {self.ante * self.hands_per_session}), got "
                f"{self.starting_chips}"
            )
        check_bool(self, "lowball")
        check_int(self, "deck_ranks", 1, NUM_RANKS)
        if self.deck_size < CARDS_EACH * self.num_players:
            raise ValueError(
                f"deck_ranks={self.deck_ranks} leaves {self.deck_size} cards, too few to deal "
                f"{CARDS_EACH} each to {self.num_players} players (B24)"
            )

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None = None) -> Brag7Config:
        """Build from keyword options; unknown keys raise ``ValueError`` naming them."""
        return cls(**known_options(cls, options, "Seven-card Brag"))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def deck_size(self) -> int:
        return self.deck_ranks * NUM_SUITS

    def deck_cards(self) -> tuple[int, ...]:
        """B1: the card ids in the deck, every suit of the ``deck_ranks`` highest ranks."""
        return deck_cards(self.deck_ranks)

    @property
    def action_names(self) -> list[str]:
        """``arrange_<f>_<s>``: first-hand index f (0..34) and second-hand index s (0..3)."""
        return [f"arrange_{i // 4}_{i % 4}" for i in range(NUM_ARRANGEMENTS)]

    @property
    def num_actions(self) -> int:
        return NUM_ARRANGEMENTS


# ------------------------------------------------------------- the rules of B24 alone
# Seven-card Brag shares the deck (B1), the ranking (B2-B6, B21), the cut and the button (B7),
# the deal (B9) and the antes (B8, every hand) with Brag and calls ``brag_env.brag.rules`` for
# them. What follows has no counterpart there: a Brag pot always goes to one hand (B14-B16),
# while here it goes only to a seat alone on top in both hands, stays on the table otherwise
# and is shared out when the session ends.


def scoop_winner(first_strengths: Sequence[int], second_strengths: Sequence[int]) -> int:
    """B24: the seat best in both hands and alone in both, else ``NO_WINNER``."""
    first, second = best_seats(first_strengths), best_seats(second_strengths)
    if len(first) == 1 and first == second:
        return first[0]
    return NO_WINNER


def share_out(pot: int, num_players: int, dealer: int) -> list[int]:
    """B24: ``pot`` shared equally; the odd chips one each to the seats from the dealer's left."""
    base, odd = divmod(pot, num_players)
    shares = [base] * num_players
    for k in range(odd):
        shares[(dealer + 1 + k) % num_players] += 1
    return shares
