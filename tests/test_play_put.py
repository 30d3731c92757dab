"""``python -m brag_env.play put``: scripted matches through injected stdin/stdout."""

from __future__ import annotations

import io
import json

from brag_env.cards import format_card, parse_card
from brag_env.play import main
from brag_env.put.game import replay_hand
from brag_env.put.rules import PutConfig


def play(argv: list[str], answers: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(argv, stdin=io.StringIO(answers), stdout=out)
    return code, out.getvalue()


def read_history(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_match_with_a_wrong_answer_reveals_every_played_card(tmp_path):
    """P3-P6: a match to 3 points; the end of each hand shows its cards and the score."""
    history = tmp_path / "put.jsonl"
    answers = "seven\n" + "1\n" * 200  # then always the first choice (a card, or see a Put)
    code, out = play(
        [
            "put",
            "--opponent",
            "put:caller",
            "--seed",
            "3",
            "--option",
            "target_points=3",
            "--history",
            str(history),
        ],
        answers,
    )
    assert code == 0
    assert "'seven' is not one of the choices" in out
    records = read_history(history)
    assert records and records[-1]["scores_after"][records[-1]["result"]["unit"]] >= 3
    config = PutConfig.from_dict(records[0]["config"])
    for record in records:
        again = replay_hand(record, config)
        assert again == {key: record[key] for key in again}
        for trick in record["tricks"]:  # every card played is revealed at the hand's end
            for play_ in trick["cards"]:
                assert format_card(parse_card(play_["card"])) in out
        scores = " · ".join(
            f"{name} {score}"
            for name, score in zip(("You", "seat 1"), record["scores_after"], strict=True)
        )
        assert f"Score: {scores} (first to 3)" in out
    assert "Match 1 is over" in out
    assert "Matches won after 1 match(es)" in out


def test_put_call_and_answers_are_offered(tmp_path):
    """P4: the human may call Put at its turn; a Put against it offers see or fold."""
    history = tmp_path / "put.jsonl"
    # Call Put at the first chance, then always the first choice.
    code, out = play(
        [
            "put",
            "--opponent",
            "put:caller",
            "--seed",
            "8",
            "--history",
            str(history),
            "--option",
            "target_points=1",
        ],
        "put\n" + "1\n" * 40,
    )
    assert code == 0
    record = read_history(history)[0]
    assert record["put"]["caller"] == 0
    assert "call Put! (the other side sees for 2 points or folds and gives you 1 point)" in out
    assert "You: calls Put!" in out
    answer = record["put"]["answers"][0]["answer"]
    assert f"seat 1: {'sees the Put' if answer == 'see' else 'folds to the Put'}" in out
    if answer == "fold":  # P4: the hand ends; unplayed cards stay hidden
        assert "the Put was folded" in out


def test_partners_pass_face_down(tmp_path):
    """P8: four players; only the human's own passed card is named."""
    history = tmp_path / "put4.jsonl"
    code, out = play(
        [
            "put",
            "--opponents",
            "put:greedy",
            "put:greedy",
            "put:greedy",
            "--seed",
            "1",
            "--option",
            "target_points=2",
            "--history",
            str(history),
        ],
        "1\n" * 200,
    )
    assert code == 0
    records = read_history(history)
    assert "partnerships (P8)" in out
    assert out.count("passes a card face down to the partner") == 3 * len(records)
    for record in records:
        mine = next(a for a in record["actions"] if a["seat"] == 0)
        assert f"You: passes {format_card(parse_card(mine['card']))} to the partner" in out
    assert "You & seat 2" in out


def test_several_matches_and_quit(tmp_path):
    code, out = play(
        [
            "put",
            "--opponent",
            "random",
            "--seed",
            "5",
            "--matches",
            "3",
            "--option",
            "target_points=1",
        ],
        "1\n" * 12 + "q\n",
    )
    assert code == 0
    assert "Match 1 is over" in out
    assert "You left the table" in out
