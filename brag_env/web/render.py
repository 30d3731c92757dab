"""Small HTML helpers of the templates: cards drawn as cards, rich renderables as HTML."""

from __future__ import annotations

import io
import re
from collections.abc import Iterable
from typing import Any

from markupsafe import Markup, escape
from rich.console import Console

from brag_env.cards import RANK_LABELS, SUIT_SYMBOLS

# A card as the screens print it: "10♥", "A♠" (rank label, suit symbol).
CARD = re.compile(
    "(?<![0-9A-Za-z])("
    + "|".join(sorted(map(re.escape, RANK_LABELS), key=len, reverse=True))
    + ")(["
    + SUIT_SYMBOLS
    + "])"
)
RED_SUITS = frozenset(SUIT_SYMBOLS[1:3])  # hearts, diamonds


def card_html(rank: str, suit: str) -> str:
    colour = "red" if suit in RED_SUITS else "black"
    return f'<span class="card {colour}">{rank}{suit}</span>'


def cards_in(text: str) -> Markup:
    """``text`` escaped, each card in it drawn as a card."""
    escaped = str(escape(text))
    return Markup(CARD.sub(lambda m: card_html(m.group(1), m.group(2)), escaped))


def rich_html(renderables: Iterable[Any], width: int = 110) -> Markup:
    """Rich renderables (the terminal replay's panels) as HTML: the same text, colours kept,
    every character escaped by rich."""
    console = Console(
        record=True,
        width=width,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        highlight=False,
    )
    for renderable in renderables:
        console.print(renderable)
    code = console.export_html(inline_styles=True, code_format="{code}")
    return Markup(f'<pre class="term">{code}</pre>')
