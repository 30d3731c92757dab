"""Rich views of a Brag table: one seat's knowledge, and the public end of a hand.

The table view is drawn from a DECODED OBSERVATION (``brag_v1.decode_observation``) of one seat,
so it can only show what that seat knows: its own cards once it has looked (B10), every seat's
status, chips and bets, the stake and pot, the public betting and the cards shown at sees since
the last shuffle (B18). Seats in an observation are relative to the observer; ``names`` are
indexed by absolute seat.

The end of a hand is drawn from the public parts of a hand history (``brag_env.brag.history``):
who won and how, the hands shown at a see (B14) and in cover comparisons (B16), how covered
pots were shared, a pot carried to the next deal (B15), the chip changes. The dealt cards in the
history are never read here: a hand won by folds shows nothing (B15).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from brag_env.brag.rules import BragConfig
from brag_env.brag.wild import Ranking, ranking, stand_in_text
from brag_env.cards import parse_cards
from brag_env.ui.terminal import (
    action_label,
    card_text,
    hand_text,
    hidden_cards,
    share_text,
    verb,
)

CATEGORY_TEXT = {
    "prial": "prial",
    "running_flush": "running flush",
    "run": "run",
    "flush": "flush",
    "pair": "pair",
    "high_card": "high card",
}
STATUS_TEXT = {"blind": "blind", "open": "open", "folded": "folded", "sitting_out": "out"}
RECENT_EVENTS = 8


def raise_multiplier(action: str) -> int:
    """``"raise_4x"`` -> 4."""
    return int(action[len("raise_") : -1])


def event_text(action: str, paid: int) -> str:
    """One public betting event, e.g. ``"raise x2 (paid 4)"``."""
    if action.startswith("raise_"):
        return f"{action_label(action)} (paid {paid})"
    return {
        "fold": "fold",
        "stay": f"stay (paid {paid})",
        "look": "look at the cards",
        "see": f"see (paid {paid})",
        "keep_old_hand": "keep the old blind hand",
        "take_new_hand": "take the new hand",
        "cover": f"cover the pot (paid {paid})",
    }.get(action, action)


def last_action_text(action: str | None) -> str:
    """A seat's last action for the table's column."""
    if action is None:
        return "-"
    if action.startswith("raise_"):
        return action_label(action)
    return {
        "keep_old_hand": "kept old hand",
        "take_new_hand": "took new hand",
        "cover": "covered",
    }.get(action, action)


def option_text(action: str, blind: bool, stake: int, chips: int = 0) -> str:
    """A legal action as a menu entry, with what it costs (B11, B13, B14)."""
    if action == "fold":
        return "fold: give up this hand"
    if action == "stay":
        return f"stay blind: pay {stake // 2}" if blind else f"stay: pay {stake}"
    if action == "look":
        return "look at your cards (then decide again)"
    if action == "see":
        cost = stake if blind else 2 * stake
        return f"see: pay {cost}, then both hands are shown"
    if action.startswith("raise_"):
        new = raise_multiplier(action) * stake
        return f"raise the stake to {new}: pay {new // 2 if blind else new}"
    if action == "keep_old_hand":
        return "keep your old blind hand (unseen)"
    if action == "take_new_hand":
        return "take the newly dealt hand (unseen)"
    if action == "cover":
        return f"cover the pot: put in your last {chips} chips and stop betting"
    return action


def discard_text(action: str, own_cards: str) -> str:
    """B22: a discard action (``discard_1_4``: positions in the deal, lowest card first, as
    ``own_cards`` lists them) as the cards it puts aside and the three it keeps."""
    cards = own_cards.split()
    out = {int(i) - 1 for i in action.split("_")[1:]}
    thrown = " ".join(c for i, c in enumerate(cards) if i in out)
    kept = " ".join(c for i, c in enumerate(cards) if i not in out)
    # Shown highest rank first, as every hand on the screens.
    return f"discard {hand_text(thrown)} face down, keep {hand_text(kept)}"


def action_options(view: Mapping[str, Any], legal: Sequence[str]) -> list[tuple[str, str]]:
    """``(name, description)`` per legal action, for ``Prompter.choose``."""
    me = view["seats"][0]
    blind = me["status"] == "blind"
    return [
        (name, discard_text(name, view["own_cards"]))
        if name.startswith("discard_")
        else (name, option_text(name, blind, view["stake"], me["chips"]))
        for name in legal
    ]


def forced_reason(view: Mapping[str, Any], legal: Sequence[str]) -> str | None:
    """Why the observer has a single choice (B16: too few chips to stay), what covering the pot
    means when it is offered, else None."""
    me = view["seats"][0]
    if "cover" in legal:
        blind = me["status"] == "blind"
        cost = view["stake"] // 2 if blind else view["stake"]
        look = " You may also look at your cards first." if "look" in legal else ""
        return (
            f"You hold {me['chips']} chips and staying {'blind' if blind else 'open'} costs "
            f"{cost}, so you may COVER THE POT: you put in all you have and bet no more; "
            f"the pot as it stands now ({view['pot'] + me['chips']} chips with yours) is closed "
            "with your hand face down on it. The others bet on into a side pot; whoever wins "
            "that must then show a better hand than yours to take the covered pot (equal hands "
            f"go against you). Or fold.{look}"
        )
    if len(legal) != 1:
        return None
    if legal[0] == "fold":
        blind = me["status"] == "blind"
        cost = view["stake"] // 2 if blind else view["stake"]
        how = "blind" if blind else "open"
        return (
            f"You hold {me['chips']} chips and staying {how} costs {cost}: folding is your "
            "only move."
        )
    return "This is your only legal move."


def _absolute(me: int, relative: int, n: int) -> int:
    return (me + relative) % n


def own_cards_note(view: Mapping[str, Any]) -> str:
    """What the observer's cards are (B2 category and strength, B22 before the discard), or
    why it has none to show: not looked yet (B10), folded blind, sitting out (B16)."""
    status = view["seats"][0]["status"]
    if view["own_cards"] is None:
        if status == "sitting_out":
            return "none in play"
        if status == "folded":
            return "folded without looking"
        return "blind: not looked at yet"
    if view["own_category"] is None:  # B22: the whole deal, before the discard
        return "dealt: keep three, discard the rest face down"
    category = CATEGORY_TEXT.get(view["own_category"] or "", view["own_category"] or "")
    return f"{category}, beats {share_text(view['own_strength'] or 0.0)} of all hands"


def own_cards_text(view: Mapping[str, Any], you: str = "Your") -> Text:
    """The observer's cards, or that it has not looked."""
    status = view["seats"][0]["status"]
    note = own_cards_note(view)
    text = Text(f"{you} cards: ", style="bold")
    if view["own_cards"] is None:
        if status in ("folded", "sitting_out"):
            text.append(note)
        else:
            text.append(hidden_cards(), style="bold")
            text.append(f"  {note}", style="italic")
        return text
    text.append_text(card_text(hand_text(view["own_cards"])))
    text.append(f"  {note}")
    if view.get("own_wild"):  # B25: which of them are wild
        text.append("  · wild: ")
        text.append_text(card_text(hand_text(view["own_wild"])))
    if view["own_category"] is not None and view.get("own_discards"):
        text.append("  · discarded: ")
        text.append_text(card_text(view["own_discards"]))
    return text


def seat_table(
    view: Mapping[str, Any],
    me: int,
    names: Sequence[str],
    players: Sequence[str],
    config: BragConfig,
) -> Table:
    """Every seat as ``me`` sees it, in absolute seat order; ``players`` says who plays it."""
    n = config.num_players
    table = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    for column, justify in (
        ("", "left"),
        ("seat", "left"),
        ("player", "left"),
        ("", "left"),
        ("status", "left"),
        ("chips", "right"),
        ("in pot", "right"),
        ("last action", "left"),
    ):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    rows = sorted(view["seats"], key=lambda row: _absolute(me, row["relative_seat"], n))
    for row in rows:
        seat = _absolute(me, row["relative_seat"], n)
        status = row["status"] or ""
        if row.get("covered"):  # B16: out of the betting, the hand waits on its pot
            status = "covered"
        style = "dim" if status in ("folded", "sitting_out") else ""
        if row["relative_seat"] == 0:
            style += " bold"
        table.add_row(
            "▶" if row["to_act"] else "",
            names[seat],
            Text(players[seat]),  # a spec or a model's path: never read as markup
            "D" if row["dealer"] else "",
            STATUS_TEXT.get(status, status),
            str(row["chips"]),
            str(row["chips_in"]),
            last_action_text(row["last_action"]),
            style=style.strip() or None,
        )
    return table


def recent_events(
    view: Mapping[str, Any], me: int, names: Sequence[str], n: int, limit: int = RECENT_EVENTS
) -> list[str]:
    """This hand's latest public events, oldest first (from the observation's history)."""
    events = view["history"][:limit]
    return [
        f"{names[_absolute(me, e['relative_seat'], n)]}: {event_text(e['action'], e['paid'])}"
        for e in reversed(events)
    ]


def table_notes(
    view: Mapping[str, Any], me: int, names: Sequence[str], config: BragConfig
) -> dict[str, str]:
    """The plain lines under the seats as seat ``me`` knows them, by what they tell: ``stake``
    (the stake, what staying costs, the pot), ``covers`` (B16), ``carried`` (B15), ``events``
    (this hand's latest public events) and ``choice`` (B19). A line that does not apply is
    left out. The terminal and the web table both show these."""
    n = config.num_players
    stake = view["stake"]
    costs = f"open players pay {stake}, blind players {stake // 2}"
    if not config.allow_blind:  # B10 variant: everyone is open from the start
        costs = f"staying costs {stake}"
    notes = {"stake": f"Stake {stake} ({costs}) · pot {view['pot']}"}
    covers = sorted(
        (row["covered_pot"], _absolute(me, row["relative_seat"], n))
        for row in view["seats"]
        if row.get("covered")
    )
    if covers:  # B16
        closed = " · ".join(f"{names[seat]} covered a pot of {pot}" for pot, seat in covers)
        notes["covers"] = f"{closed} · side pot {view.get('side_pot', 0)}"
    chips_in = sum(row["chips_in"] for row in view["seats"])
    if view["pot"] > chips_in and not covers:  # B15: a carried pot (pot beyond this deal's bets)
        notes["carried"] = f"Carried from the last deal: {view['pot'] - chips_in} chips."
    events = recent_events(view, me, names, n)
    if events:
        more = "… " if len(view["history"]) > len(events) else ""
        notes["events"] = "This hand: " + more + " · ".join(events)
    if view["choice_pending"]:
        notes["choice"] = (
            "Keep the unseen hand that won the last hand by folds, or take the new one?"
        )
    return notes


def table_view(
    view: Mapping[str, Any],
    me: int,
    names: Sequence[str],
    players: Sequence[str],
    config: BragConfig,
    you: str = "Your",
) -> Group:
    """The whole table as seat ``me`` knows it (``players``: who plays each seat)."""
    notes = table_notes(view, me, names, config)
    parts: list[RenderableType] = [seat_table(view, me, names, players, config)]
    parts.append(Text(notes["stake"], style="bold"))
    parts.extend(Text(notes[key]) for key in ("covers", "carried") if key in notes)
    if view["shown_cards"]:
        line = Text("Shown since the last shuffle: ")
        line.append_text(card_text(view["shown_cards"]))
        parts.append(line)
    parts.extend(Text(notes[key]) for key in ("events", "choice") if key in notes)
    parts.append(own_cards_text(view, you))
    return Group(*parts)


def shown_text(cards: str) -> str:
    """History card text (``"Ah 3d"``) with suit symbols, in the screens' order."""
    return hand_text(cards)


def hand_result(record: Mapping[str, Any], names: Sequence[str], lowball: bool = False) -> Group:
    """The public outcome of a finished hand (never its hidden cards)."""
    order = record_ranking(record, lowball)
    winner = record["winner"]
    lines: list[RenderableType] = []
    see = record.get("see")
    pots = record.get("pots") or []
    if record["by_see"] and see is not None:
        seer, seen = see["seer"], see["seen"]
        lines.append(Text(f"{names[seer]} paid {see['cost']} to see {names[seen]}:"))
        strengths = []
        for seat in (seer, seen):
            cards = see["hands"][str(seat)]
            strengths.append(order.strength(parse_cards(cards)))
            line = Text(f"  {names[seat]} {verb(names[seat], 'show')} ")
            line.append_text(card_text(shown_text(cards)))
            line.append(f"  {CATEGORY_TEXT.get(see['categories'][str(seat)], '')}")
            line.append(_stood_for(record, seat))
            lines.append(line)
        tie = " (equal hands: the player seen wins ties)" if strengths[0] == strengths[1] else ""
        if not pots:
            lines.append(
                Text(
                    f"{names[winner]} {verb(names[winner], 'win')} the pot of "
                    f"{record['pot']}{tie}.",
                    style="bold green",
                )
            )
    if pots:  # B16: the side pot, then each covered pot from the last closed outwards
        lines.extend(_cover_lines(record, pots, names, order))
    elif record.get("carried"):  # B15
        lines.append(
            Text(
                f"Nobody wins: the pot of {record['carried']} stays on the table for the next "
                "deal; no cards are shown.",
                style="bold",
            )
        )
    elif not (record["by_see"] and see is not None):
        lines.append(
            Text(
                f"{names[winner]} {verb(names[winner], 'win')} the pot of {record['pot']}: "
                "everyone else folded, no cards are shown.",
                style="bold green",
            )
        )
    bonus = record.get("bonus") or []
    if any(bonus):
        lines.append(
            Text(f"Prial bonus: {names[winner]} {verb(names[winner], 'collect')} {bonus[winner]}.")
        )
    if record.get("keep_offer"):
        keeper = record.get("keeper", winner)
        lines.append(
            Text(
                f"{names[keeper]} {verb(names[keeper], 'choose')} at the next deal between "
                "these unseen cards and a fresh hand, as the pot was "
                f"{'carried' if record.get('carried') else 'won'} without looking."
            )
        )
    changes = ", ".join(
        f"{names[s]} {d:+d}" for s, d in enumerate(record["deltas"]) if d or s == winner >= 0
    )
    lines.append(Text(f"Chip changes: {changes}"))
    return Group(*lines)


def record_ranking(record: Mapping[str, Any], lowball: bool = False) -> Ranking:
    """The hand order a history was played with (B21, B25: its config's ``wild_cards``)."""
    return ranking(str((record.get("config") or {}).get("wild_cards", "none")), lowball)


def _stood_for(record: Mapping[str, Any], seat: Any) -> str:
    """B25: " (9♠ as K♠)" for a shown hand with wild cards, from the history; else ""."""
    stands = (record.get("stood_for") or {}).get(str(seat))
    return f" ({stand_in_text(stands)})" if stands else ""


def _cover_lines(
    record: Mapping[str, Any],
    pots: Sequence[Mapping[str, Any]],
    names: Sequence[str],
    order: Ranking,
) -> list[RenderableType]:
    """B16: the hands shown for the covered pots and who took each pot."""
    lines: list[RenderableType] = []
    shown = record.get("shown") or {}
    see = record.get("see") or {}
    for seat, cards in sorted(shown.items(), key=lambda item: int(item[0])):
        if str(seat) in (see.get("hands") or {}):
            continue  # already printed with the see
        name = names[int(seat)]
        line = Text(f"  {name} {verb(name, 'show')} ")
        line.append_text(card_text(shown_text(cards)))
        line.append(f"  {CATEGORY_TEXT.get(order.category(parse_cards(cards)), '')}")
        line.append(_stood_for(record, seat))
        lines.append(line)
    for pot in pots:
        if not pot["chips"]:  # nothing was bet after that cover
            continue
        if pot["coverer"] < 0:
            what = f"The side pot of {pot['chips']}"
        else:
            what = f"The pot of {pot['chips']} covered by {names[pot['coverer']]}"
        lines.append(Text(f"{what} goes to {names[pot['winner']]}.", style="bold green"))
    return lines


def standings(chips: Sequence[int], starting_chips: int, names: Sequence[str], title: str) -> Group:
    """Running chip totals: every seat's stack and its gain or loss in the session."""
    table = Table(box=None, header_style="bold")
    table.add_column("seat")
    table.add_column("chips", justify="right")
    table.add_column("session", justify="right")
    best = max(chips)
    for seat, stack in enumerate(chips):
        table.add_row(
            names[seat],
            str(stack),
            f"{stack - starting_chips:+d}",
            style="bold" if stack == best else None,
        )
    return Group(Text(title, style="bold"), table)
