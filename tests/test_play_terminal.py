"""The terminal front end's answers: numbers, names, ambiguity, line editing."""

from __future__ import annotations

import io
import sys

import pytest

from brag_env.ui.terminal import Prompter, QuitRequested, make_console, match_option, share_text

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


@pytest.mark.parametrize(
    ("fraction", "text"),
    [
        (0.0, "0%"),
        (1.0, "100%"),
        (0.5, "50%"),
        (0.12345, "12%"),
        (1 - 60 / 22_100, "99.7%"),  # A K Q of one suit: only 60 hands beat or tie it
        (22_096 / 22_100, "99.98%"),  # 3-3-3, the best hand: three others tie it
        (0.004, "0.4%"),
        (1 - 1e-9, "over 99.99%"),
        (1e-9, "under 0.01%"),
    ],
)
def test_share_text_says_0_or_100_percent_only_when_exact(fraction, text):
    assert share_text(fraction) == text


def test_a_strong_hand_is_not_said_to_beat_every_hand():
    from brag_env.brag.hands import hand_strength, strength_percentile
    from brag_env.cards import parse_cards
    from brag_env.ui.brag_view import own_cards_text

    cards = parse_cards("Ah Kh Qh")
    view = {
        "seats": [{"status": "looked"}],
        "own_cards": cards,
        "own_category": "running_flush",
        "own_strength": strength_percentile(hand_strength(cards)),
    }
    assert own_cards_text(view).plain.endswith("running flush, beats 99.7% of all hands")
