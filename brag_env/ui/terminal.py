"""Reading answers from a human and drawing cards, on a rich console.

Every front end takes its input stream and its console as arguments, so tests drive a whole
session through a ``StringIO``. Input that is not a terminal is echoed after the prompt, which
keeps a scripted transcript readable.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterable, Sequence
from typing import TextIO

from rich.console import Console
from rich.text import Text

from brag_env.cards import SUIT_SYMBOLS, format_cards, parse_cards

# Red suits (hearts, diamonds) in red, as on real cards; black suits in the default colour.
_RED_SUITS = frozenset(SUIT_SYMBOLS[1:3])
HIDDEN_CARD = "▮"
QUIT_WORDS = frozenset({"q", "quit", "exit"})


def _enable_line_editing() -> None:
    """Importing ``readline`` gives ``input()`` line editing and history where it exists (not
    on every platform, e.g. Windows without pyreadline)."""
    with contextlib.suppress(ImportError):
        import readline  # noqa: F401


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


def hand_text(cards: str | Iterable[int]) -> str:
    """A hand as every screen prints it: highest rank first (``"A♥ 10♠ 3♦"``), so the same
    hand reads the same at the table, at a see and in a replay."""
    ids = parse_cards(cards) if isinstance(cards, str) else [int(c) for c in cards]
    return format_cards(sorted(ids, key=lambda c: (-(c // 4), c % 4)))


_RAISE = re.compile(r"\braise[ _]?(?:(\d+)x?|[x×](\d+))")


def action_label(name: str) -> str:
    """An action's name as players read and type it: ``raise_2x`` -> ``raise x2``,
    ``keep_old_hand`` -> ``keep old hand``."""
    words = " ".join(name.replace("_", " ").split())
    return _RAISE.sub(lambda m: f"raise x{m.group(1) or m.group(2)}", words)


def plural(count: int, word: str, many: str | None = None) -> str:
    """``plural(1, "hand")`` -> ``"1 hand"``; ``plural(3, "match", "matches")`` -> "3 matches"."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def verb(subject: str, base: str) -> str:
    """``base`` agreeing with ``subject``: "You win", "seat 1 wins", "You & seat 2 win"."""
    if subject.startswith("You") or " & " in subject:
        return base
    return base + ("es" if base.endswith(("s", "sh", "ch")) else "s")


def share_text(fraction: float) -> str:
    """``fraction`` as a percentage that says 0% or 100% only when it is exactly that: a hand
    that 72 hands beat is at 99.7%, not 100%. Whole percents, more digits only near the ends."""
    for digits in range(4):
        text = f"{fraction:.{digits}%}"
        shown = float(text[:-1])
        if (shown == 100.0) == (fraction >= 1.0) and (shown == 0.0) == (fraction <= 0.0):
            return text
    return "over 99.99%" if fraction > 0.5 else "under 0.01%"


def hidden_cards(count: int = 3) -> str:
    return " ".join(HIDDEN_CARD for _ in range(count))


_ESCAPE = re.compile(r"(\x1b\[[0-9;?]*[A-Za-z])")


def readline_prompt(console: Console, prompt: str) -> str:
    """``prompt`` (rich markup) as the console would print it, its escape sequences between
    readline's \\001 and \\002 markers so that readline counts only the visible characters."""
    with console.capture() as captured:
        console.print(prompt, end="", markup=True, highlight=False)
    return _ESCAPE.sub("\x01\\1\x02", captured.get())


class Prompter:
    """Asks the human questions on ``console``, reading answers from ``stream``."""

    def __init__(self, console: Console, stream: TextIO | None = None) -> None:
        self.console = console
        self.stream = stream if stream is not None else sys.stdin
        try:
            self._tty = self.stream.isatty()
        except (AttributeError, ValueError):
            self._tty = False
        if self._tty and self.stream is sys.stdin:
            _enable_line_editing()

    @property
    def interactive(self) -> bool:
        """Whether a person types the answers (the stream is a terminal)."""
        return self._tty

    def ask(self, prompt: str) -> str:
        """One answer, stripped; ``EndOfInput`` when the stream is exhausted."""
        if self._tty and self.stream is sys.stdin:
            try:
                # with readline: line editing and history at a terminal. The prompt goes to
                # input() itself: printed before it, readline would not know the line holds it
                # and would not end an empty answer's line, so the next box began on it.
                line = input(readline_prompt(self.console, prompt))
            except EOFError:
                raise EndOfInput from None
            return line.strip()
        self.console.print(prompt, end="", markup=True, highlight=False)
        line = self.stream.readline()
        if not line:
            self.console.print()
            raise EndOfInput
        answer = line.strip()
        self.console.print(answer, markup=False, highlight=False)
        return answer

    def choose(self, options: Sequence[tuple[str, str]], prompt: str = "Your choice") -> int:
        """Index of the chosen option; each option is ``(name, description)``.

        The human types its number, its name (``raise x2``, also ``raise_2x`` or ``raise 2x``),
        the start of its description (``stay blind``) or a unique start of either; an answer
        that fits several choices is re-asked naming them, anything else is re-asked too. With
        a single choice, Enter takes it. ``q`` raises ``QuitRequested``.
        """
        count = len(options)
        if count == 0:
            raise ValueError("choose() needs at least one option")
        keys = "1 or Enter" if count == 1 else f"1-{count} or a name"
        while True:
            answer = self.ask(f"[bold]{prompt}[/] [dim]\\[{keys}, q quits][/]: ")
            if answer.lower() in QUIT_WORDS:
                raise QuitRequested
            if count == 1 and not answer:
                return 0
            found = match_option(answer, options)
            if isinstance(found, int):
                return found
            shown = repr(answer) if answer else "An empty line"
            if found:
                fits = ", ".join(f"{k + 1}) {action_label(options[k][0])}" for k in found)
                message = f"{shown} fits several choices ({fits}): type its number or more of it."
            else:
                message = (
                    f"{shown} is not one of the choices: type a number from 1 to {count} "
                    "(or q to quit)."
                )
            self.console.print(Text(message, style="yellow"))

    def pause(self, prompt: str) -> None:
        """Wait for Enter; ``q`` raises ``QuitRequested``."""
        if self.ask(prompt).lower() in QUIT_WORDS:
            raise QuitRequested


def _words(text: str) -> str:
    """Lower case, ``_`` as a space, single spaces, raises as ``raise x2``: how names and
    answers are compared."""
    return action_label(text.lower())


def match_option(answer: str, options: Sequence[tuple[str, str]]) -> int | list[int] | None:
    """The option an answer names: its index, the indices it fits when it is ambiguous, or
    None. Numbers are ASCII digits only ('²' or a full-width '１' are not numbers)."""
    text = answer.strip()
    if not text:
        return None
    if text.isascii() and text.isdigit():
        k = int(text)
        return k - 1 if 1 <= k <= len(options) else None
    said = _words(text)
    names = [_words(name) for name, _ in options]
    texts = [_words(description) for _, description in options]
    exact = [i for i, name in enumerate(names) if said == name]
    exact = exact or [i for i, t in enumerate(texts) if said == t.split(":")[0]]
    if len(exact) == 1:
        return exact[0]
    fits = exact or [
        i for i in range(len(options)) if names[i].startswith(said) or texts[i].startswith(said)
    ]
    if len(fits) == 1:
        return fits[0]
    return fits or None


def print_menu(console: Console, options: Sequence[tuple[str, str]]) -> None:
    """``  k) description``, with the action's name when the description does not start with
    it (so that the name one may type is on screen)."""
    for k, (name, description) in enumerate(options, 1):
        line = Text("  ")
        line.append(f"{k})", style="bold")
        line.append(f" {description}")
        if not _words(description).startswith(_words(name)):
            line.append(f"  [{action_label(name)}]", style="dim")
        console.print(line)
