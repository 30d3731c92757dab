"""Reading answers from a human and drawing cards, on a rich console.

Every front end takes its input stream and its console as arguments, so tests drive a whole
session through a ``StringIO``. Input that is not a terminal is echoed after the prompt, which
keeps a scripted transcript readable.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from brag_env.cards import SUIT_SYMBOLS

# Red suits (hearts, diamonds) in red, as on real cards; black suits in the default colour.
_RED_SUITS = frozenset(SUIT_SYMBOLS[1:3])
HIDDEN_CARD = "▮"
QUIT_WORDS = frozenset({"q", "quit", "exit"})


class EndOfInput(Exception):
    """The input stream ended (Ctrl-D, or the end of a script)."""


class QuitRequested(Exception):
    """The human typed ``q``."""


def make_console(file: TextIO | None = None, width: int | None = None) -> Console:
    """A console for the front ends; ``file``/``width`` fix the output for tests."""
    if file is None:
        return Console(highlight=False)
    return Console(
        file=file, width=width or 120, highlight=False, color_system=None, force_terminal=False
    )


def card_text(cards: str | Sequence[str]) -> Text:
    """Cards such as ``"A♥ 10♠"`` as rich text, red suits in red."""
    tokens = cards.split() if isinstance(cards, str) else list(cards)
    text = Text()
    for i, token in enumerate(tokens):
        if i:
            text.append(" ")
        style = "bold red" if token and token[-1] in _RED_SUITS else "bold"
        text.append(token, style=style)
    return text


def verb(subject: str, base: str) -> str:
    """``base`` agreeing with ``subject``: "You win", "seat 1 wins", "You & seat 2 win"."""
    if subject.startswith("You") or " & " in subject:
        return base
    return base + ("es" if base.endswith(("s", "sh", "ch")) else "s")


def hidden_cards(count: int = 3) -> str:
    return " ".join(HIDDEN_CARD for _ in range(count))


class Prompter:
    """Asks the human questions on ``console``, reading answers from ``stream``."""

    def __init__(self, console: Console, stream: TextIO | None = None) -> None:
        self.console = console
        self.stream = stream if stream is not None else sys.stdin
        try:
            self._tty = self.stream.isatty()
        except (AttributeError, ValueError):
            self._tty = False

    @property
    def interactive(self) -> bool:
        """Whether a person types the answers (the stream is a terminal)."""
        return self._tty

    def ask(self, prompt: str) -> str:
        """One answer, stripped; ``EndOfInput`` when the stream is exhausted."""
        self.console.print(prompt, end="", markup=True, highlight=False)
        if self._tty and self.stream is sys.stdin:
            try:
                line = input()  # line editing and history on a real terminal
            except EOFError:
                raise EndOfInput from None
            return line.strip()
        line = self.stream.readline()
        if not line:
            self.console.print()
            raise EndOfInput
        answer = line.strip()
        self.console.print(answer, markup=False, highlight=False)
        return answer

    def choose(self, options: Sequence[tuple[str, str]], prompt: str = "Your choice") -> int:
        """Index of the chosen option; each option is ``(name, description)``.

        The human types its number, its name or a unique start of the name; anything else is
        re-asked. ``q`` raises ``QuitRequested``.
        """
        count = len(options)
        if count == 0:
            raise ValueError("choose() needs at least one option")
        while True:
            answer = self.ask(f"[bold]{prompt}[/] [dim]\\[1-{count}, q quits][/]: ")
            if answer.lower() in QUIT_WORDS:
                raise QuitRequested
            index = _match_option(answer, options)
            if index is not None:
                return index
            shown = repr(answer) if answer else "An empty line"
            self.console.print(
                f"[yellow]{escape(shown)} is not one of the choices: type a number from 1 to "
                f"{count} (or q to quit).[/]",
                highlight=False,
            )

    def pause(self, prompt: str) -> None:
        """Wait for Enter; ``q`` raises ``QuitRequested``."""
        if self.ask(prompt).lower() in QUIT_WORDS:
            raise QuitRequested


def _match_option(answer: str, options: Sequence[tuple[str, str]]) -> int | None:
    text = answer.strip().lower()
    if not text:
        return None
    if text.isdigit():
        k = int(text)
        return k - 1 if 1 <= k <= len(options) else None
    names = [name.lower() for name, _ in options]
    if text in names:
        return names.index(text)
    starts = [i for i, name in enumerate(names) if name.startswith(text)]
    return starts[0] if len(starts) == 1 else None
