"""A text table of a Brag game, for ``render_mode="ansi"``/``"human"`` and terminal tools.

The default view is a spectator's: it shows what everyone at the table can see (stacks, stake,
pot, statuses, covers and the side pot (B16), the betting, and the cards shown at a see or a cover
comparison) and never a hand that is still hidden.
``reveal=True`` shows every hand, marked as such, for debugging and commentary: the hands on
the table and a blind hand kept for a pending B19 choice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from brag_env.brag.observation import STATUS_NAMES, side_pot
from brag_env.brag.wild import Ranking, stand_in_text
from brag_env.cards import format_cards

HIDDEN = "▮ ▮ ▮"
RECENT_EVENTS = 8


def _result_text(result: Any, names: Sequence[str], order: Ranking) -> list[str]:
    deltas = ", ".join(f"{names[s]} {d:+d}" for s, d in enumerate(result.deltas))
    head = f"Hand {result.hand_number + 1}: "
    if result.carried:  # B15
        lines = [f"{head}the pot of {result.carried} carries to the next deal. Changes: {deltas}"]
    elif result.pots:  # B16: side pot, then the covered pots from the last closed outwards
        shares = "; ".join(
            (f"the side pot of {c}" if k < 0 else f"the pot of {c} covered by {names[k]}")
            + f" goes to {names[w]}"
            for c, w, k in result.pots
            if c
        )
        lines = [f"{head}{shares}. Changes: {deltas}"]
    else:
        how = "at a see" if result.by_see else "as everyone else folded"
        lines = [
            f"{head}{names[result.winner]} wins the pot of {result.pot} {how}. Changes: {deltas}"
        ]
    for seat, cards in result.shown.items():
        what = order.category(cards)  # B25: the reading's category, and what each wild was
        stands = stand_in_text(order.stand_ins(cards)) if order.has_wilds else ""
        what += f"; {stands}" if stands else ""
        lines.append(f"  shown by {names[seat]}: {format_cards(cards)} ({what})")
    return lines


def render_table(
    game: Any, names: Sequence[str], action_names: Sequence[str], reveal: bool = False
) -> str:
    """The table as text: one row per seat, then stake, pot, recent betting and results."""
    cfg = game.config
    last_result = game.hand_results[-1] if game.hand_results else None
    finished = game.session_over
    # Cards of the hand on the table that were shown at its see (only once it is over).
    shown: dict[int, list[int]] = {}
    if finished and last_result is not None and last_result.hand_number == game.hand_number:
        shown = last_result.shown

    title = f"Brag · hand {game.hand_number + 1} of {cfg.hands_per_session}"
    if finished:
        title += " · session over"
    lines = [title]
    width = max(len(n) for n in names)
    lines.append(
        f"  {'seat':<{width}}    {'status':<11} {'chips':>6} {'in pot':>6}  "
        f"{'last action':<13} cards"
    )
    for s, name in enumerate(names):
        marker = ">" if s == game.current_player else " "
        dealer = "D" if s == game.dealer else " "
        status = STATUS_NAMES[game.status[s]]
        if game.covered[s] and game.covers:  # B16: out of the betting, its hand on the pot
            status = "covered"
        last = game.last_action[s]
        last_text = action_names[last] if last >= 0 else "-"
        hand = game.hands[s]
        if not hand or status == "sitting_out":
            cards = ""
        elif s in shown:
            cards = f"{format_cards(shown[s])}  (shown)"
        elif reveal:
            cards = f"{format_cards(hand)}  (hidden)"
        else:
            cards = HIDDEN
        if reveal and game.discards[s]:  # B22: put aside face down
            cards += f"  discarded {format_cards(game.discards[s])}"
        lines.append(
            f"{marker} {name:<{width}} {dealer}  {status:<11} {game.chips[s]:>6} "
            f"{game.contributed[s]:>6}  {last_text:<13} {cards}"
        )
    lines.append(f"stake {game.stake} (open; blind players pay {game.stake // 2}) · pot {game.pot}")
    if game.covers and game.pot:  # B16
        closed = ", ".join(f"{names[s]} covered {pot}" for s, pot in game.covers)
        lines.append(f"covered pots: {closed} · side pot {side_pot(game)}")
    if game.choosing and game.current_player >= 0:
        chooser = names[game.current_player]
        old = "the old blind hand"
        if reveal and game.kept_hand:  # hidden from everyone, the chooser included
            old += f" {format_cards(game.kept_hand)} (hidden)"
        lines.append(f"{chooser} chooses: keep {old} or take the new one (B19)")
    if game.discarding and game.current_player >= 0:
        count = cfg.discards
        lines.append(
            f"{names[game.current_player]} discards {count} card{'s' if count > 1 else ''} "
            "face down (B22); then the betting starts"
        )
    if game.betting:
        recent = game.betting[-RECENT_EVENTS:]
        events = ", ".join(
            f"{names[s]} {action_names[a]}" + (f" ({paid})" if paid else "")
            for s, a, paid in recent
        )
        more = "... " if len(game.betting) > RECENT_EVENTS else ""
        lines.append(f"betting: {more}{events}")
    if last_result is not None and (finished or last_result.hand_number == game.hand_number - 1):
        lines.extend(_result_text(last_result, names, game.ranking))
    return "\n".join(lines) + "\n"
