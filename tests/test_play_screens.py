"""What the play and replay screens say, read as a player would (sessions driven through stdin):
no rule IDs, one card order per hand, one name per raise, Put cards with their suits, the Put
answer addressed to the human who gives it, and singular counts."""

from __future__ import annotations

import io
import re

import pytest

from brag_env.play import main as play_main
from brag_env.replay import main as replay_main

RULE_ID = re.compile(r"\b[BP]\d{1,2}\b")
CARD = r"(?:10|[2-9JQKA])[♠♥♦♣]"


def play(argv: list[str], answers: str) -> str:
    out = io.StringIO()
    assert play_main(argv, stdin=io.StringIO(answers), stdout=out) == 0
    return out.getvalue()


def replay(argv: list[str]) -> str:
    out = io.StringIO()
    assert replay_main([*argv, "--no-pause"], stdin=io.StringIO(""), stdout=out) == 0
    return out.getvalue()


SESSIONS = [
    ["brag", "--opponents", "brag:caller", "brag:bluffer", "--hands", "4", "--seed", "3"],
    ["brag", "--opponents", "brag:caller", "--hands", "3", "--seed", "1"],
    ["put", "--opponent", "put:caller", "--seed", "1"],
    ["put", "--opponents", "put:bluffer", "put:caller", "--seed", "2"],
    ["put", "--opponents", "put:bluffer", "put:caller", "put:greedy", "--seed", "4"],
]


@pytest.mark.parametrize("argv", SESSIONS, ids=lambda a: f"{a[0]}-{len(a)}")
@pytest.mark.parametrize("answers", ["1\n", "2\n1\n"])  # "2" is asked again on one choice
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_no_rule_ids_raise_names_or_plural_markers_on_any_screen(argv, answers, tmp_path):
    history = tmp_path / "h.jsonl"
    out = play([*argv, "--history", str(history)], answers * 300)
    out += replay([str(history)])
    assert RULE_ID.search(out) is None, RULE_ID.search(out)
    for internal in ("raise_", "×", "keep_old_hand", "take_new_hand", "(s)", "(es)", " 1 hands"):
        assert internal not in out


def test_brag_hand_reads_the_same_at_the_table_at_the_see_and_in_the_replay(tmp_path):
    history = tmp_path / "h.jsonl"
    out = play(
        [
            "brag",
            "--opponents",
            "brag:caller",
            "--hands",
            "1",
            "--seed",
            "4",
            "--history",
            str(history),
        ],
        "look\n" + "see\n" * 40,
    )
    mine = re.findall(rf"Your cards: ({CARD} {CARD} {CARD})", out)
    shown = re.findall(rf"You show ({CARD} {CARD} {CARD})", out)
    assert mine and shown == [mine[-1]]
    assert f"You: {mine[-1]}" in replay([str(history)]).replace("  seat 0: ", "  You: ")


def test_a_raise_has_one_name_in_the_menu_the_moves_and_the_table():
    out = play(
        ["brag", "--opponents", "brag:caller", "brag:caller", "--hands", "1", "--seed", "2"],
        "raise x2\n" + "1\n" * 40,
    )
    assert "raise the stake to 4: pay 2  [raise x2]" in out  # the name one may type
    assert "You: raise x2 (paid 2)" in out
    assert re.search(r"You\s+you\s+blind\s+\d+\s+\d+\s+raise x2", out)  # the seat table


def test_put_cards_carry_their_suits_in_the_hand_the_menu_and_the_tricks():
    out = play(["put", "--opponent", "put:greedy", "--seed", "6"], "1\n" * 300)
    hands = re.findall(r"Your hand: (.*?)\s*│", out)
    assert hands and all(re.fullmatch(rf"{CARD}( {CARD})*", h) for h in hands)
    # Each card the human played was in the hand and in the menu just before.
    for before, card in re.findall(rf"(?s)((?:(?!You play ).)*?)You play ({CARD})", out):
        assert "Your hand: " in before and card in before.rsplit("Your hand: ", 1)[1]
        assert f") play {card}" in before
    rows = re.findall(r"│ \d\s+(?:You|seat 1)\s+(.*?)\s{2,}(?:won by|in play|tied)", out)
    rows = [row for row in rows if row != "-"]  # a trick not started yet
    assert rows and all(
        re.fullmatch(rf"(?:You|seat 1) {CARD}(, (?:You|seat 1) {CARD})*", r) for r in rows
    )


def test_an_unanswered_put_is_addressed_to_the_human_who_answers_it(tmp_path):
    history = tmp_path / "h.jsonl"
    out = play(
        ["put", "--opponent", "put:caller", "--seed", "1", "--history", str(history)], "1\n" * 300
    )
    assert "seat 1 calls Put!" in out
    assert "Put! called by seat 1: your answer: see or fold" in out
    assert "waiting for the answer" not in out
    assert "Put! called by seat 1: to answer: see or fold" in replay([str(history)])


def test_counts_of_one_are_singular():
    out = play(["brag", "--opponents", "brag:caller", "--hands", "1", "--seed", "0"], "1\n" * 20)
    assert "2 players, 1 hand, 200 chips each" in out
    assert "Session over: 1 hand played" in out and "Final chips after 1 hand\n" in out
    out = play(["put", "--opponent", "put:caller", "--seed", "0"], "1\n" * 300)
    assert "first to 5 points wins a match, 1 match, seed 0" in out
    assert "Session over: 1 match played" in out
    assert re.search(r"Matches won after 1 match and \d+ hands: ", out)
