"""Hand histories: turn the engine's per-hand record into a JSON-serialisable dict.

The engine keeps a cheap record per finished hand (references to lists it no longer changes);
this module formats it only when :meth:`BragGame.history` is called. Cards are written as text
(``"7h 7d Kc"``, see ``brag_env.cards``) so histories are readable and ``parse_cards`` reads them
back. One hand's dict holds:

- ``config``: the rules (``BragConfig.to_dict()``), so a history replays with nothing else;
- ``hand_number``, ``num_players``, ``dealer``, ``deal_order`` (seats dealt in, from the left of
  the dealer), ``sitting_out`` (B16);
- ``shuffled``: the whole deck was shuffled right before this deal (B18). On the first hand that
  is true, unless the deal was stacked (``new_session(deck=...)``): then the given top cards are
  dealt in their given order and only the cards below them were shuffled, so it is false. Later
  hands: true after a see that revealed a prial, or always with ``shuffle="every_hand"``;
- ``stacked``: the deal came from a stacked deck (only ever on the first hand);
- ``chips_before`` (stacks before the antes), ``antes`` (B8), ``cards`` (each seat's hand as
  dealt, ``None`` for seats that sit out);
- ``keep`` (B19): ``None`` or ``{"seat", "old_hand", "new_hand", "choice"}``;
- ``actions``: every decision in order, ``{"seat", "action", "cost", "stake", "pot"}`` with the
  action's name, the chips it cost, and the stake (open units) and pot after it;
- ``looked``: ``{"seat", "action_index"}`` for each LOOK (B10);
- ``see`` (B14): ``None`` or ``{"seer", "seen", "cost", "hands", "categories"}``;
- ``winner``, ``by_see``, ``pot`` (all the chips in the middle at the end), ``bonus`` (B20
  chips per seat, empty when none was paid), ``deltas`` (chip change per seat; they sum to
  ``carried_in - carried``), ``chips_after``, ``keep_offer`` (a blind player left alone may keep
  the unseen hand next deal, B19) and ``keeper`` (that seat, or -1);
- ``shown``: every hand shown to the table (at the see, B14, and in the B16 comparisons), seat
  number as text -> card text;
- ``covers`` (B16): ``{"seat", "closed_pot"}`` per cover, in order; ``pots``: how the pot was
  shared, the side pot first, then the covered pots from the last closed outwards, each
  ``{"chips", "winner", "coverer"}`` (coverer -1 for the side pot); both empty without a cover.
  The ``winner`` of such a hand is the winner of the first covered pot;
- ``carried_in`` (B15): chips the pot started with, carried from the hand before; ``carried``:
  chips rolled over into the next deal (``winner`` is then -1), 0 when the pot was won;
- only with ``wild_cards`` other than "none" (B25): ``stood_for``, per shown hand holding wild
  cards (seat number as text), each wild card -> the card it stood for, e.g.
  ``{"1": {"9s": "Kd"}}``; the see's ``categories`` are those of the readings;
- only with ``cards_dealt`` 4 or 5 (B22): ``cards`` hold the whole deal and ``discards`` lists
  each seat's discard, in the order made (before the betting): ``{"seat", "action", "cards"}``.
  The ``actions`` are the betting only; a see's ``hands`` are the kept three cards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from brag_env.brag.rules import FIRST_RAISE, LOOK, BragConfig
from brag_env.brag.wild import config_ranking
from brag_env.cards import format_cards

if TYPE_CHECKING:
    from brag_env.brag.game import HandResult


class HandRecord(NamedTuple):
    """What the engine keeps of a finished hand; ``history.record_to_dict`` formats it."""

    order: list[int]  # seats dealt in, from the left of the dealer
    shuffled: bool
    stacked: bool
    chips_before: list[int]  # before the antes
    antes: list[int]
    dealt: list[list[int]]  # hands as dealt
    hands: list[list[int]]  # hands as played (after a B19 choice)
    keep: tuple[int, list[int], int] | None  # B19: (seat, old hand, choice action)
    betting: list[tuple[int, int, int]]
    see: tuple[int, int, int] | None  # (seer, seen, cost)
    result: HandResult
    # B22: (discarded cards per seat, (seat, discard action) in order); None with 3 cards
    discards: tuple[list[list[int]], list[tuple[int, int]]] | None = None


def cards_text(cards: list[int] | None) -> str | None:
    return None if cards is None else format_cards(cards, symbols=False)


def stood_for(order: Any, shown: dict[int, list[int]]) -> dict[str, dict[str, str]]:
    """B25: per shown hand that holds wild cards (seat as text), each wild card's text -> the
    card it stood for (``Ranking.stand_ins``)."""
    out = {}
    for seat, cards in shown.items():
        stands = order.stand_ins(cards)
        if stands:
            out[str(seat)] = {cards_text([w]): cards_text([c]) for w, c in stands.items()}
    return out


def record_to_dict(rec: HandRecord, config: BragConfig) -> dict[str, Any]:
    """Format one hand record (built by ``BragGame._finish``) as a JSON-serialisable dict."""
    names = config.action_names
    n = config.num_players
    order: list[int] = rec.order
    result: HandResult = rec.result
    stake = config.min_stake
    pot = sum(rec.antes) + result.carried_in
    actions = []
    looked = []
    keep_action = config.keep_old_hand_action
    for i, (seat, action, cost) in enumerate(rec.betting):
        if FIRST_RAISE <= action < keep_action:
            stake *= config.raise_sizes[action - FIRST_RAISE]
        pot += cost
        if action == LOOK:
            looked.append({"seat": seat, "action_index": i})
        actions.append(
            {"seat": seat, "action": names[action], "cost": cost, "stake": stake, "pot": pot}
        )
    dealt = rec.dealt
    keep = None
    if rec.keep is not None:
        seat, old, choice = rec.keep
        keep = {
            "seat": seat,
            "old_hand": cards_text(old),
            "new_hand": cards_text(dealt[seat]),
            "choice": names[choice] if choice >= 0 else None,
        }
    hand_order = config_ranking(config)  # B25: categories are those of the readings
    see = None
    if rec.see is not None:
        seer, seen, cost = rec.see
        hands = rec.hands
        see = {
            "seer": seer,
            "seen": seen,
            "cost": cost,
            "hands": {str(s): cards_text(hands[s]) for s in (seer, seen)},
            "categories": {str(s): hand_order.category(hands[s]) for s in (seer, seen)},
        }
    in_hand = set(order)
    out = {
        "config": config.to_dict(),
        "hand_number": result.hand_number,
        "num_players": n,
        "dealer": result.dealer,
        "deal_order": list(order),
        "sitting_out": [s for s in range(n) if s not in in_hand],
        "shuffled": rec.shuffled,
        "stacked": rec.stacked,
        "chips_before": list(rec.chips_before),
        "antes": list(rec.antes),
        "cards": [cards_text(dealt[s]) if s in in_hand else None for s in range(n)],
        "keep": keep,
        "actions": actions,
        "looked": looked,
        "see": see,
        "winner": result.winner,
        "by_see": result.by_see,
        "pot": result.pot,
        "bonus": list(result.bonus),
        "deltas": list(result.deltas),
        "chips_after": list(result.chips),
        "keep_offer": result.keep_offer,
        "keeper": result.keeper,
        "shown": {str(s): cards_text(c) for s, c in result.shown.items()},
        "covers": [{"seat": s, "closed_pot": closed} for s, closed in result.covers],
        "pots": [{"chips": c, "winner": w, "coverer": k} for c, w, k in result.pots],
        "carried_in": result.carried_in,
        "carried": result.carried,
    }
    if hand_order.has_wilds:  # B25: what each wild card of a shown hand stood for
        out["stood_for"] = stood_for(hand_order, result.shown)
    if rec.discards is not None:  # B22
        discarded, log = rec.discards
        out["discards"] = [
            {"seat": s, "action": names[a], "cards": cards_text(discarded[s])} for s, a in log
        ]
    return out
