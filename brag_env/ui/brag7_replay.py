"""Seven-card Brag (B24) deals from a history file, as each player saw its decision.

A deal record (``brag_env.brag7.game.DealResult.to_dict``) is first played again by
``check_deal_record``, which must reproduce it. A step is one seat's decision, in the order the
seats chose (from the dealer's left): what it knew was its own seven cards and the pot (B24
shows nothing of the other choices), and the arrangement it chose. After the deal come the
showdown as the table saw it and then the discards, which nobody else saw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from brag_env.brag.hands import hand_category
from brag_env.brag7.game import DealResult, check_deal_record
from brag_env.brag7.render import result_lines
from brag_env.brag7.rules import Brag7Config
from brag_env.ui.terminal import hand_text

# The keys every Seven-card Brag deal record has.
REQUIRED_KEYS = (
    "num_players",
    "deal_number",
    "dealer",
    "dealt",
    "arrangements",
    "first_hands",
    "second_hands",
    "discards",
    "winner",
    "pot",
    "deltas",
)


@dataclass(frozen=True)
class Brag7Step:
    """``seat`` held ``cards`` with ``pot`` in the middle and chose ``first`` and ``second``."""

    seat: int
    cards: tuple[int, ...]
    pot: int
    first: tuple[int, ...]
    second: tuple[int, ...]


def config_for(record: Mapping[str, Any], overrides: Mapping[str, Any]) -> Brag7Config:
    """The rules of a deal: its ``config``, then ``overrides``, the record's player count."""
    options = dict(record.get("config") or {})
    options.update(overrides)
    options["num_players"] = record["num_players"]
    return Brag7Config.from_dict(options)


def brag7_steps(
    record: Mapping[str, Any], config: Brag7Config
) -> tuple[DealResult, list[Brag7Step]]:
    """The deal played again (``ValueError`` if the record does not add up) and its steps."""
    result = check_deal_record(dict(record), config)
    n = config.num_players
    steps = [
        Brag7Step(
            seat=s,
            cards=result.dealt[s],
            pot=result.pot,
            first=result.first_hands[s],
            second=result.second_hands[s],
        )
        for s in ((result.dealer + 1 + k) % n for k in range(n))
    ]
    return result, steps


def _hand(cards: Sequence[int]) -> str:
    return f"{hand_text(cards)} ({hand_category(cards).replace('_', ' ')})"


def step_panel(step: Brag7Step, names: Sequence[str], players: Sequence[str]) -> RenderableType:
    body = Text.assemble(
        ("Cards: ", "bold"),
        hand_text(step.cards),
        f"   pot {step.pot}\n",
        ("Chose: ", "bold"),
        f"first {_hand(step.first)} · second {_hand(step.second)}",
    )
    title = f"{names[step.seat]} ({players[step.seat]}) arranges"
    return Panel(body, title=title, title_align="left")


def deal_result(result: DealResult, names: Sequence[str]) -> Text:
    return Text("\n".join(result_lines(result, names)))


def hidden_cards(result: DealResult, names: Sequence[str]) -> Group:
    """After the deal: every seat's discard (nobody else saw it)."""
    lines: list[RenderableType] = [Text("Discards (hidden at the table):", style="bold")]
    for seat, card in enumerate(result.discards):
        lines.append(Text(f"  {names[seat]}: {hand_text([card])}"))
    return Group(*lines)
