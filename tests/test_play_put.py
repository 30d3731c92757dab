"""``python -m brag_env.play put``: scripted matches through injected stdin/stdout."""

from __future__ import annotations

import io

import pytest

from brag_env import put_v0
from brag_env.cards import format_card, parse_card
from brag_env.put.game import replay_hand
from brag_env.put.rules import PUT_RANK, RANK_NAMES, PutConfig
from brag_env.ui.put_view import forced_reason
from tests.play_cli import play, read_history


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
    assert "Matches won after 1 match " in out


@pytest.mark.parametrize(("seed", "answer"), [(8, "see"), (4, "fold")])
def test_put_call_and_answers_are_offered(tmp_path, seed, answer):
    """P4: the human calls Put at its first turn; put:caller sees it (seed 8) or folds (seed
    4), and then the cards it did not play stay hidden."""
    history = tmp_path / "put.jsonl"
    code, out = play(
        [
            "put",
            "--opponent",
            "put:caller",
            "--seed",
            str(seed),
            "--history",
            str(history),
            "--option",
            "target_points=1",
        ],
        "put\n" + "1\n" * 40,
    )
    assert code == 0
    [record] = read_history(history)
    assert record["put"]["caller"] == 0
    assert [a["answer"] for a in record["put"]["answers"]] == [answer]
    assert "call Put! (the opponent sees, for 2 points, or folds: 1 point to you)" in out
    assert "You call Put!" in out
    said = {"see": "sees the Put", "fold": "folds to the Put"}[answer]
    assert f"seat 1 {said}" in out
    assert f"Put! called by You during trick 1: seat 1 {answer}s" in out
    played = {a["card"] for a in record["actions"] if a["action"].startswith("play_")}
    unplayed = [c for c in record["deal"][1] if c not in played]
    if answer == "fold":
        assert "the Put was folded (unplayed cards stay hidden)" in out
        assert len(unplayed) == 3  # folded before playing a card
    else:
        assert "took more tricks and scores 2 points." in out
        assert unplayed == []
    for card in unplayed:
        assert format_card(parse_card(card)) not in out


def test_three_players_texts():
    """P7: the first of two answers may fold and still play on if the other sees."""
    code, out = play(
        [
            "put",
            "--opponents",
            "put:caller",
            "put:bluffer",
            "--seed",
            "4",
            "--option",
            "target_points=2",
        ],
        "1\n" * 100,
    )
    assert code == 0
    assert (
        "  2) fold: if the other player folds too the caller scores 1 point, if they see you "
        "still play on" in out
    )
    assert "You see the Put" in out and "Put! called by seat 2 during trick 1: You see" in out
    assert "You: plays" not in out and "You sees" not in out
    assert "Your last card: it is the only move." in out
    code, out = play(
        [
            "put",
            "--opponents",
            "put:greedy",
            "put:greedy",
            "--seed",
            "1",
            "--option",
            "target_points=1",
        ],
        "1\n" * 100,
    )
    assert code == 0
    assert "call Put! (both answer, unseen by each other: one see and all play for 2 points" in out
    # the original rules (P7 put_answers="in_turn") keep their text
    args = ["put", "--opponents", "put:greedy", "put:greedy", "--seed", "1"]
    code, out = play(
        [*args, "--option", "target_points=1", "--option", "put_answers=in_turn"], "1\n" * 100
    )
    assert code == 0
    assert (
        "call Put! (both others answer: one see and all play for 2 points; two folds: 1 point"
        in out
    )


def test_partners_pass_face_down(tmp_path):
    """P8: four players; the human's partner is named, its own pass and the card received are
    shown, the opponents' passes never are."""
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
    assert "in partnerships: your partner is seat 2, opposite you" in out
    assert "seat 2: put:greedy (your partner)" in out
    assert "call Put! (the next opponent answers for their side: see for 2 points" in out
    for seat in (1, 2, 3):
        # P8 optional exchange: not even whether a card was chosen shows
        face_down = f"seat {seat} chooses what to pass, face down"
        assert out.count(face_down) == len(records)
    for record in records:
        passes = {
            a["seat"]: a["card"] for a in record["actions"] if a["action"].startswith("pass_")
        }
        assert f"You pass {format_card(parse_card(passes[0]))} to your partner" in out
        passed, received = (RANK_NAMES[PUT_RANK[parse_card(passes[s])]] for s in (0, 2))
        assert f"Passed to your partner (seat 2): {passed} · received: {received}" in out
        for seat in (1, 2, 3):  # the others' passes are face down
            assert f"passes {format_card(parse_card(passes[seat]))}" not in out
    assert "You & seat 2" in out


# Three one-point matches against a random opponent (P6), the same deals for every run.
THREE_MATCHES = ["put", "--opponent", "random", "--seed", "5", "--matches", "3"]
THREE_MATCHES += ["--option", "target_points=1"]


def test_several_matches_tally_and_seeds(tmp_path):
    """P6: the tally of matches won is shown between matches; each match is dealt from the
    reset_seed its hands record."""
    history = tmp_path / "put.jsonl"
    code, out = play([*THREE_MATCHES, "--history", str(history)], "1\n" * 60)
    assert code == 0
    records = read_history(history)
    assert [r["episode"] for r in records][-1] == 2
    wins = [0, 0]
    for match in range(3):
        hands = [r for r in records if r["episode"] == match]
        wins[hands[-1]["result"]["unit"]] += 1
        if match < 2:
            assert f"Matches won so far ({match + 1} of 3): You {wins[0]} · seat 1 {wins[1]}" in out
        env = put_v0.raw_env(num_players=2, target_points=1)
        env.reset(seed=hands[0]["reset_seed"])
        assert env.game.record.to_dict()["deck"] == hands[0]["deck"]
    assert len({r["reset_seed"] for r in records}) == 3
    tally = f"You {wins[0]} · seat 1 {wins[1]}"
    assert f"Matches won after 3 matches and {len(records)} hands: {tally}" in out
    assert "Session over: all 3 matches played" in out


def test_quit_between_matches(tmp_path):
    code, out = play(THREE_MATCHES, "1\n" * 3 + "q\n")
    assert code == 0
    assert "You left the table" in out and "Session over" not in out


def test_forced_moves_are_explained():
    """A single legal move says why: the last card, or cards of one rank (P1)."""
    assert forced_reason({"hand": ["9"]}, ["play_9"]) == "Your last card: it is the only move."
    assert forced_reason({"hand": ["9", "9"]}, ["pass_9"]) == (
        "All your cards are 9s and suits never matter: one move."
    )
    assert forced_reason({"hand": ["9", "8"]}, ["play_9", "play_8"]) is None


# ------------------------------------------------------------------ issue 28: "loading ..." lines
@pytest.mark.parametrize(
    ("game", "spec", "reads"),
    [
        ("put", "put:equilibrium", True),  # the default table: no path= in the spec
        ("brag", "brag:equilibrium", True),
        ("put", "model:put_selfplay", True),
        ("put", "put:greedy", False),
        ("brag", "brag:tight", False),
        ("put", "random", False),
    ],
)
def test_the_agent_class_says_whether_a_spec_reads_a_file(game, spec, reads):
    from agents.registry import parse_spec
    from brag_env.ui.seating import reads_a_file

    assert reads_a_file(parse_spec(spec, game)) is reads


def test_put_equilibrium_is_announced_before_it_loads(monkeypatch):
    from rich.console import Console

    from brag_env.ui import seating

    built = []  # make_agent stands in: the announcement, not the 15 s load, is under test
    monkeypatch.setattr(seating, "make_agent", lambda spec, table, rng: built.append(spec.text))
    out = io.StringIO()
    table = seating.seat_players("put", ["put:equilibrium"], 0)
    seating.build_agents(table, None, 0, Console(file=out, width=80))  # type: ignore[arg-type]
    assert out.getvalue() == "loading put:equilibrium…\n" and built == ["put:equilibrium"]
