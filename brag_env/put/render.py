"""A spectator's text view of a Put match (cards with suit symbols)."""

from __future__ import annotations

from collections.abc import Sequence

from brag_env.cards import format_card, format_cards
from brag_env.put.game import PHASE_NAMES, PHASE_OVER, PutGame
from brag_env.put.rules import ACTION_NAMES, PUT_RANK


def _sorted_hand(cards: Sequence[int]) -> list[int]:
    return sorted(cards, key=lambda c: (PUT_RANK[c], c))


def render_table(game: PutGame, names: Sequence[str], reveal: bool = False) -> str:
    """The table: scores, hands (hidden as ▮ unless ``reveal``), the Put, tricks, who acts."""
    cfg = game.config
    n = game.n
    lines = [
        f"Put — hand {game.hand_number + 1}, dealer {names[game.dealer]}, "
        f"first to {cfg.target_points} points"
    ]
    if cfg.partnerships:
        sides = [f"{names[u]} & {names[u + 2]}: {game.scores[u]}" for u in range(2)]
        lines.append("Score: " + " · ".join(sides))
    else:
        lines.append("Score: " + " · ".join(f"{names[s]} {game.scores[s]}" for s in range(n)))
    width = max(len(name) for name in names)
    for s in range(n):
        cards = _sorted_hand(game.hands[s])
        shown = format_cards(cards) if reveal else " ".join("▮" for _ in cards)
        tricks = game.tricks_won[s]
        lines.append(f"  {names[s]:<{width}}  {shown:<12} tricks {tricks}")
    if game.put_caller >= 0:
        answers = ", ".join(f"{names[s]} {ACTION_NAMES[a]}" for s, a in game.record.answers)
        lines.append(f"Put! called by {names[game.put_caller]}: {answers or 'waiting'}")
    record = game.record
    if record is not None:
        for t, (leader, plays, winner) in enumerate(record.tricks):
            cards = ", ".join(f"{names[s]} {format_card(c)}" for s, c in plays)
            outcome = f"won by {names[winner]}" if winner >= 0 else "tied"
            lines.append(f"Trick {t + 1} (led by {names[leader]}): {cards} — {outcome}")
    if game.trick:
        cards = ", ".join(f"{names[s]} {format_card(c)}" for s, _, c in game.trick)
        lines.append(f"Trick {game.trick_no + 1} (led by {names[game.leader]}): {cards}")
    if game.phase == PHASE_OVER:
        if game.winner >= 0:
            winners = " & ".join(names[s] for s in game.winners())
            lines.append(f"Match over: {winners} won")
    else:
        line = f"To act: {names[game.current_player]} ({PHASE_NAMES[game.phase]})"
        if reveal:  # the legal plays would give the hidden hand away
            line += ": " + ", ".join(ACTION_NAMES[a] for a in game.legal_actions())
        lines.append(line)
    return "\n".join(lines) + "\n"
