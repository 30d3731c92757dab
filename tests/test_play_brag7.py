"""``python -m brag_env.play brag7`` (B24): scripted sessions through injected stdin/stdout."""

from __future__ import annotations

from tests.play_cli import play


def test_b24_a_session_in_the_terminal_shows_each_showdown():
    argv = ["brag7", "--opponents", "brag7:balanced", "random", "--hands", "3", "--seed", "4"]
    code, out = play(argv, "1\n1\n\n" * 3)
    assert code == 0
    assert out.count("Your turn") == 3 and out.count("showdown (pot") == 3
    assert "Session over: 3 deals played" in out
    # The first question offers the 35 first hands, strongest first; the second the 4 left.
    assert "35) " in out and "First hand [1-35" in out and "Second hand [1-4" in out
    # Chips are conserved: the summary's changes add up to zero.
    changes = out.rsplit("Chips won or lost", 1)[1].split(":", 1)[1]
    assert sum(int(part.split()[-1]) for part in changes.split("·")) == 0


def test_b24_the_human_sees_only_its_own_cards_before_the_showdown():
    argv = ["brag7", "--opponents", "random", "--hands", "1", "--seed", "9", "--seat", "1"]
    code, out = play(argv, "1\n1\n")
    assert code == 0
    before, showdown = out.split("showdown (pot", 1)
    row = next(line for line in showdown.splitlines() if "seat 0" in line)
    theirs = {t for t in row.replace("|", " ").split() if t[-1] in "♠♥♦♣"}
    assert len(theirs) == 6  # its two hands (the discard is never shown)
    shown_before = {t for t in before.replace("|", " ").split() if t and t[-1] in "♠♥♦♣"}
    assert shown_before and not (theirs & shown_before)


def test_bad_setup_is_one_line():
    code, _ = play(["brag7", "--opponents", "random", "--option", "lowball=2"], "")
    assert code == 2
    code, _ = play(["brag7", "--opponents", *(["random"] * 7)], "")
    assert code == 2


def test_quit_leaves_the_table():
    code, out = play(["brag7", "--opponents", "random", "--seed", "1"], "q\n")
    assert code == 0 and "You left the table" in out
