"""The terminal front end's answers: numbers, names, ambiguity, line editing."""

from __future__ import annotations

import io
import sys

import pytest

from brag_env.ui.terminal import Prompter, QuitRequested, make_console, match_option

OPTIONS = [
    ("fold", "fold: give up this hand"),
    ("stay", "stay blind: pay 1"),
    ("see", "see: pay 2, then both hands are shown"),
    ("raise_2x", "raise the stake to 4: pay 2"),
    ("raise_3x", "raise the stake to 6: pay 3"),
]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("2", 1),
        (" 5 ", 4),
        ("6", None),
        ("0", None),
        ("²", None),  # a digit to str.isdigit, not a number we read
        ("１", None),  # full-width one
        ("٣", None),  # Arabic-Indic three
        ("STAY", 1),
        ("stay blind", 1),  # the menu's words
        ("raise_3x", 4),
        ("raise 3x", 4),
        ("raise x3", 4),  # as the screens name it
        ("raise ×3", 4),
        ("Raise_3", 4),
        ("raise the stake to 6", 4),
        ("raise", [3, 4]),
        ("s", [1, 2]),
        ("st", 1),
        ("x", None),
        ("", None),
    ],
)
def test_match_option(answer, expected):
    assert match_option(answer, OPTIONS) == expected


def test_choose_reasks_until_a_clear_answer():
    out = io.StringIO()
    prompter = Prompter(make_console(out), io.StringIO("²\nraise\nraise_3\n"))
    assert prompter.choose(OPTIONS) == 4
    text = out.getvalue()
    assert "'²' is not one of the choices" in text
    assert "'raise' fits several choices (4) raise x2, 5) raise x3)" in text


def test_single_choice_takes_enter_and_q_quits():
    prompter = Prompter(make_console(io.StringIO()), io.StringIO("\nq\n"))
    assert prompter.choose(OPTIONS[:1]) == 0
    with pytest.raises(QuitRequested):
        prompter.choose(OPTIONS)


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_line_editing_at_a_terminal(monkeypatch):
    """At a terminal stdin, readline is loaded (input() then edits lines); where it cannot be
    imported the prompter still works."""
    pytest.importorskip("readline")
    tty = _Tty("")
    monkeypatch.setattr(sys, "stdin", tty)
    monkeypatch.delitem(sys.modules, "readline", raising=False)
    Prompter(make_console(io.StringIO()), tty)
    assert "readline" in sys.modules
    monkeypatch.setitem(sys.modules, "readline", None)  # import readline -> ImportError
    Prompter(make_console(io.StringIO()), tty)
