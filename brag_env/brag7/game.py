"""The Seven-card Brag engine (rule B24): deals, arrangements, the showdown, the carried pot.

A session is ``hands_per_session`` deals. Each deal (B24):

1. The seats each put ``ante`` in the middle (the pot may already hold chips left over from
   earlier deals).
2. The deck (the ``deck_ranks`` highest ranks, B1) is shuffled and dealt round the table a
   card a time, the dealer's left-hand neighbour first (as B9 deals), until each seat has seven.
3. The seats decide one after another, the dealer's neighbour on the left first and the dealer
   last, ONE decision each: an arrangement id 0..139 (``brag_env.brag7.rules``). Nothing of
   the earlier choices is shown meanwhile.
4. The first hands are compared with the Brag ranking (B2-B6, reversed under B21 lowball),
   then the second hands. A seat whose first hand and whose second hand both top the table,
   each of them unmatched, takes the pot; any other result leaves the pot for the next deal.
5. After the session's last deal a pot still standing is shared equally; the chips that do not
   divide go one each to the seats from the dealer's left onwards.

The dealer (B7, which B24 does not change): the first dealer is drawn by the seeded cut of the
Brag engine (``BragGame``'s rule: highest card deals); the button then moves one seat left
each deal. Nobody can run short: the config makes ``starting_chips`` cover every ante.

``apply(action)`` plays the decision of ``current_player`` (``-1`` once the session is over)
and returns the :class:`DealResult` when the action finished a deal, else ``None``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from brag_env.brag.game import _seat_number, seeded_cut
from brag_env.brag.hands import hand_strength
from brag_env.brag.rules import (
    ANTE_EVERY_HAND,
    ante_due,
    best_seats,
    check_in_deck,
    deal_hands,
    deal_order,
    next_dealer,
)
from brag_env.brag7.rules import (
    CARDS_EACH,
    MAX_PLAYERS,
    NO_WINNER,
    Brag7Config,
    arrangement,
    check_arrangement,
    scoop_winner,
    share_out,
)
from brag_env.cards import NUM_CARDS, format_cards, make_rng, parse_cards, stacked_cards
from brag_env.clone import StateCopier


@dataclass(frozen=True)
class DealResult:
    """What one deal showed and paid (seats are absolute)."""

    deal_number: int  # 0-based index in the session
    dealer: int
    first_hands: tuple[tuple[int, int, int], ...]  # per seat, cards ascending
    second_hands: tuple[tuple[int, int, int], ...]
    discards: tuple[int, ...]  # per seat; never shown to other players
    first_best: tuple[int, ...]  # seats holding the best first hand (more than one: a tie)
    second_best: tuple[int, ...]
    winner: int  # the seat that took the pot (B24 scoop), or NO_WINNER
    pot: int  # the pot at the showdown, this deal's antes included
    carried: int  # chips left in the pot for the next deal (0 after a scoop or the share-out)
    shares: tuple[int, ...]  # B24 share-out per seat at the session's end (zeros otherwise)
    deltas: tuple[int, ...]  # per seat chip change this deal: -ante, + pot won, + share
    chips: tuple[int, ...]  # per seat stacks after the deal
    dealt: tuple[tuple[int, ...], ...] = ()  # per seat its seven cards, ascending
    arrangements: tuple[int, ...] = ()  # per seat the arrangement id it chose

    @property
    def scooped(self) -> bool:
        return self.winner != NO_WINNER

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable record, the cards as text."""
        return {
            "num_players": len(self.deltas),
            "deal_number": self.deal_number,
            "dealer": self.dealer,
            "first_hands": [format_cards(h, symbols=False) for h in self.first_hands],
            "second_hands": [format_cards(h, symbols=False) for h in self.second_hands],
            "discards": [format_cards([c], symbols=False) for c in self.discards],
            "first_best": list(self.first_best),
            "second_best": list(self.second_best),
            "winner": self.winner,
            "pot": self.pot,
            "carried": self.carried,
            "shares": list(self.shares),
            "deltas": list(self.deltas),
            "chips": list(self.chips),
            "dealt": [format_cards(h, symbols=False) for h in self.dealt],
            "arrangements": list(self.arrangements),
        }


def settle_deal(
    config: Brag7Config,
    deal_number: int,
    dealer: int,
    dealt: Sequence[Sequence[int]],
    arrangements: Sequence[int],
    pot: int,
) -> DealResult:
    """B24: the showdown of a deal and what it pays, the pot (this deal's antes included)
    going to the seat that scoops, else staying, else (the session's last deal) shared out.
    ``chips`` is left empty: the stacks are the caller's."""
    n = config.num_players
    laid, first, second, winner = showdown(dealt, arrangements, config.lowball)
    deltas, shares, carried = [-config.ante] * n, [0] * n, pot
    if winner != NO_WINNER:
        deltas[winner] += pot
        carried = 0
    if deal_number + 1 >= config.hands_per_session and carried:  # never outlives the session
        shares, carried = share_out(carried, n, dealer), 0
        deltas = [d + share for d, share in zip(deltas, shares, strict=True)]
    return DealResult(
        deal_number=deal_number,
        dealer=dealer,
        first_hands=tuple(f for f, _, _ in laid),
        second_hands=tuple(s for _, s, _ in laid),
        discards=tuple(d for _, _, d in laid),
        first_best=best_seats(first),
        second_best=best_seats(second),
        winner=winner,
        pot=pot,
        carried=carried,
        shares=tuple(shares),
        deltas=tuple(deltas),
        chips=(),
        dealt=tuple(tuple(h) for h in dealt),
        arrangements=tuple(arrangements),
    )


def check_deal_record(record: dict[str, Any], config: Brag7Config) -> DealResult:
    """A deal record (``DealResult.to_dict``) played again under ``config``: its showdown from
    the dealt cards and arrangement ids, and what the pot pays (the stacks after it are taken
    from the record, once they and the pot left standing hold the table's chips, none below 0);
    the rebuilt result, or a one-line ``ValueError`` naming the first entry that does not add
    up (or is malformed)."""
    n = config.num_players
    try:
        dealt = [sorted(parse_cards(h)) for h in record["dealt"]]
        arrangements = [check_arrangement(a) for a in record["arrangements"]]
        dealer, pot, deal = int(record["dealer"]), int(record["pot"]), int(record["deal_number"])
        chips = [int(c) for c in record["chips"]]
    except (KeyError, TypeError) as err:
        raise ValueError(f"not a Seven-card Brag deal record ({err})") from None
    if len(dealt) != n or len(arrangements) != n or len(chips) != n or not 0 <= dealer < n:
        raise ValueError(f"a deal record of this table has {n} seats")
    if any(len(h) != CARDS_EACH for h in dealt) or len({c for h in dealt for c in h}) != 7 * n:
        raise ValueError("dealt must give 7 different cards to every seat")
    check_in_deck(sorted(c for h in dealt for c in h), config.deck_ranks, "dealt")  # B1
    if not 0 <= deal < config.hands_per_session or pot < config.ante * n or pot % n:
        raise ValueError(f"deal_number {deal} or pot {pot} impossible at this table")
    rebuilt = replace(
        settle_deal(config, deal, dealer, dealt, arrangements, pot), chips=tuple(chips)
    )
    # Every session starts from starting_chips a seat and chips only move between the stacks
    # and the pot: what the seats hold after the deal plus what stays in the pot is the total.
    total = n * config.starting_chips
    if min(chips) < 0 or sum(chips) + rebuilt.carried != total:
        raise ValueError(
            f"deal_number {deal}: chips {chips} plus the carried pot {rebuilt.carried} must "
            f"be the table's {total} chips ({n} x starting_chips), none below 0"
        )
    expected = rebuilt.to_dict()
    for key, value in expected.items():
        if record.get(key) != value:
            raise ValueError(f"{key} does not match the deal played again: {record.get(key)!r}")
    return rebuilt


def showdown(
    dealt: Sequence[Sequence[int]], arrangements: Sequence[int], lowball: bool
) -> tuple[list[tuple[tuple[int, int, int], tuple[int, int, int], int]], list[int], list[int], int]:
    """B24: every seat's (first, second, discard) from its seven cards and arrangement id, the
    strengths of the first and the second hands (B2-B6, B21 order under ``lowball``) and the
    seat that scoops (``NO_WINNER``: none)."""
    laid = [arrangement(a, cards) for a, cards in zip(arrangements, dealt, strict=True)]
    first = [hand_strength(f, lowball) for f, _, _ in laid]
    second = [hand_strength(s, lowball) for _, s, _ in laid]
    return laid, first, second, scoop_winner(first, second)


_NOBODY_OUT = (False,) * MAX_PLAYERS  # B24: no seat sits out (``out`` of Brag's seat rules)


class Brag7Game:
    """One table of Seven-card Brag: a session of deals (see the module docstring)."""

    def __init__(self, config: Brag7Config | None = None) -> None:
        self.config = config if config is not None else Brag7Config()
        self.num_players = self.config.num_players
        self._pack = list(self.config.deck_cards())
        self._rng: np.random.Generator | None = None
        self.current_player = -1
        self.session_over = True
        self.hand_results: list[DealResult] = []  # the finished deals, in order
        self.hands: list[list[int]] = []
        self.chips: list[int] = []
        self.pot = 0
        self.dealer = -1
        self.hand_number = -1  # the deal on the table, 0-based as in every engine (-1: none yet)
        self._stacked: list[list[int]] = []
        self._order: list[int] = []
        self._choices: dict[int, int] = {}

    def copy(self) -> Brag7Game:
        """An independent copy of the session in its current state (much cheaper than a deep
        copy): the lists, the choices so far and the generator are copied
        (:class:`brag_env.clone.StateCopier`); the config and the finished deals' results are
        frozen and shared."""
        other = Brag7Game.__new__(Brag7Game)
        twin = StateCopier()
        other.__dict__.update({name: twin(value) for name, value in self.__dict__.items()})
        return other

    # ------------------------------------------------------------------ session
    def new_session(
        self,
        rng: np.random.Generator | int | None = None,
        deck: Any = None,
        dealer: int | None = None,
    ) -> None:
        """Start a session and deal its first deal.

        ``rng`` drives every random choice (the cut, the shuffles). ``deck`` stacks cards for
        tests: card text or card ints (top card first, dealt one at a time from the dealer's
        left) for the first deal, or a list of such decks, one per deal from the first; the
        cards a stacked deck leaves out, and every later deal, are shuffled by ``rng``.
        ``dealer`` fixes the first dealer (else the B7 cut).
        """
        n = self.num_players
        if dealer is not None:
            dealer = _seat_number(dealer, n)
        self._stacked = _stacked_decks(deck, set(self._pack))
        rng = make_rng(rng)
        self._rng = rng
        if dealer is None:
            dealer = seeded_cut(rng, self._pack, n)  # B7
        self.chips = [self.config.starting_chips] * n
        self.pot = 0
        self.hand_results = []
        self.hand_number = -1
        self.dealer = dealer
        self.session_over = False
        self._start_deal(first=True)

    def _start_deal(self, first: bool) -> None:
        cfg, n = self.config, self.num_players
        nobody_out = _NOBODY_OUT[:n]  # B24: every seat plays every deal (B16 never applies)
        self.hand_number += 1
        if not first:
            self.dealer = next_dealer(self.dealer, nobody_out, n)  # B7: one seat left
        # B24: every player antes, every deal (B8's every_hand; the config makes it affordable)
        ante = ante_due(ANTE_EVERY_HAND, cfg.ante, first, False)
        for seat in range(n):
            self.chips[seat] -= ante
        self.pot += ante * n
        assert self._rng is not None
        if self._stacked:  # a test's deck: its cards on top, the rest shuffled
            cards = stacked_cards(self._stacked.pop(0), self._pack, self._rng)
        else:
            # B24 shuffles every deal: B18's every_hand, where rules.shuffle_due always says
            # yes; no deck is kept between deals, so there is no other case to ask it about.
            cards = self._pack[:]
            self._rng.shuffle(cards)
        order = [-1] * n
        deal_order(self.dealer, nobody_out, n, order)  # B9: the dealer's left first
        self._order = order
        self.hands = [sorted(h) for h in deal_hands(cards, order, CARDS_EACH, n)]
        self._choices = {}
        self.current_player = self._order[0]

    # ------------------------------------------------------------------ decisions
    def legal_mask(self) -> list[int]:
        """Every arrangement is legal for the player to act (none once the session is over).
        B24 has no betting, so Brag's ``rules.legal_bits`` has nothing to say here."""
        return [int(not self.session_over)] * self.config.num_actions

    def legal_actions(self) -> list[int]:
        """The legal action ids of the player to act, ascending (as ``legal_mask``)."""
        return [] if self.session_over else list(range(self.config.num_actions))

    def apply(self, action: Any) -> DealResult | None:
        """Play ``current_player``'s arrangement; the deal's result when it was the last one."""
        if self.session_over:
            raise ValueError("the session is over; start a new one")
        seat = self.current_player
        self._choices[seat] = check_arrangement(action)
        if len(self._choices) < self.num_players:
            self.current_player = self._order[len(self._choices)]
            return None
        return self._showdown()

    def _showdown(self) -> DealResult:
        cfg, n = self.config, self.num_players
        choices = tuple(self._choices[s] for s in range(n))
        result = settle_deal(cfg, self.hand_number, self.dealer, self.hands, choices, self.pot)
        for seat in range(n):  # the antes are already paid: add back what the deal pays out
            self.chips[seat] += result.deltas[seat] + cfg.ante
        self.pot = result.carried
        result = replace(result, chips=tuple(self.chips))
        last = result.deal_number + 1 >= cfg.hands_per_session
        self.hand_results.append(result)
        if last:
            self.session_over = True
            self.current_player = -1
        else:
            self._start_deal(first=False)
        return result

    # ------------------------------------------------------------------ views
    @property
    def last_result(self) -> DealResult | None:
        return self.hand_results[-1] if self.hand_results else None

    def history(self) -> list[dict[str, Any]]:
        """The session's finished deals as JSON-serialisable records, with the rules config."""
        config = self.config.to_dict()
        return [{"config": config, **r.to_dict()} for r in self.hand_results]


def stacked_deck(hands: Sequence[Sequence[int] | str], dealer: int) -> list[int]:
    """The top of a deck that deals ``hands[seat]`` (7 cards each, card ints or text) to every
    seat when ``dealer`` deals: the inverse of the deal (one card at a time from the dealer's
    left). For tests and for the best-response enumeration."""
    n = len(hands)
    seven = [parse_cards(h) for h in hands]
    if any(len(h) != CARDS_EACH for h in seven):
        raise ValueError("stacked_deck needs 7 cards for every seat")
    order = [-1] * n
    # B9: the dealer's left first, as the deal
    deal_order(_seat_number(dealer, n), (False,) * n, n, order)
    return [seven[order[i % n]][i // n] for i in range(CARDS_EACH * n)]


def _stacked_decks(deck: Any, pack: set[int]) -> list[list[int]]:
    """The ``deck`` argument as one card list per stacked deal (see ``new_session``)."""
    if deck is None:
        return []
    if isinstance(deck, (bytes, bytearray)) or not isinstance(deck, (str, Sequence, np.ndarray)):
        raise ValueError(f"deck must be card text or a list of cards, got {deck!r}")
    items = list(deck) if not isinstance(deck, str) else [deck]
    # A list of decks: every item is a sequence of cards, or card text naming several cards.
    many = bool(items) and all(
        (isinstance(d, str) and len(d.split()) > 1) or (isinstance(d, (list, tuple, np.ndarray)))
        for d in items
    )
    decks = items if many and not isinstance(deck, str) else [deck]
    out = []
    for i, d in enumerate(decks):
        try:
            cards = parse_cards(d if isinstance(d, str) else list(d))
        except ValueError as err:
            where = f"deck {i}" if len(decks) > 1 else "deck"
            raise ValueError(f"{where}: {err}") from None
        check_in_deck(cards, len(pack) // 4, "deck")  # B1
        if len(cards) > NUM_CARDS:
            raise ValueError("deck: more than 52 cards")
        out.append(cards)
    return out
