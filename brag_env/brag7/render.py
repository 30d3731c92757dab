"""A text table of a Seven-card Brag session (``render_mode="ansi"``/``"human"``).

The default view is a spectator's: stacks, the dealer, the pot, who is to arrange, and the
last showdown (both hands of every player, B24). ``reveal=True`` also shows every player's
seven cards of the current deal, marked as such.
"""

from __future__ import annotations

from collections.abc import Sequence

from brag_env.brag.hands import hand_category
from brag_env.brag7.game import Brag7Game, DealResult
from brag_env.cards import format_cards

HIDDEN = "▮" * 7


def _hand(cards: Sequence[int]) -> str:
    """A hand highest rank first, with its category: ``Q♣ J♣ 10♣ (running flush)``."""
    ordered = sorted(cards, key=lambda c: (-(c >> 2), c & 3))
    return f"{format_cards(ordered)} ({hand_category(cards).replace('_', ' ')})"


def result_lines(result: DealResult, names: Sequence[str]) -> list[str]:
    """The showdown of one deal as text lines."""
    lines = [f"Deal {result.deal_number + 1} showdown (pot {result.pot}; * = best hand):"]
    for s, name in enumerate(names):
        first = _hand(result.first_hands[s]) + (" *" if s in result.first_best else "")
        second = _hand(result.second_hands[s]) + (" *" if s in result.second_best else "")
        lines.append(f"  {name:<10} {first:<30}|  {second}")
    if result.scooped:
        lines.append(f"  {names[result.winner]} won both hands and took the pot of {result.pot}")
    elif any(result.shares):
        shares = ", ".join(f"{names[s]} {c}" for s, c in enumerate(result.shares))
        lines.append(f"  no scoop: the session ends, the pot is shared ({shares})")
    else:
        lines.append(f"  no scoop: the pot of {result.carried} stays for the next deal")
    return lines


def render_table(game: Brag7Game, names: Sequence[str], reveal: bool = False) -> str:
    cfg = game.config
    lines = [
        f"Seven-card Brag, deal {game.hand_number + 1}/{cfg.hands_per_session}, pot {game.pot}"
        + (" (lowball)" if cfg.lowball else "")
    ]
    for s, name in enumerate(names):
        cards = format_cards(game.hands[s]) + " (revealed)" if reveal and game.hands else HIDDEN
        tags = (" D" if s == game.dealer else "  ") + (" <" if s == game.current_player else "")
        lines.append(f"  {name:<10} {game.chips[s]:>5} chips  {cards}{tags}")
    if game.session_over:
        lines.append("  the session is over")
    if game.last_result is not None:
        lines += result_lines(game.last_result, names)
    return "\n".join(lines) + "\n"
