"""``python -m brag_env.replay`` on Put hand histories from evaluate and from play."""

from __future__ import annotations

import io
import json
from collections import Counter

import pytest

from brag_env.cards import parse_card
from brag_env.evaluation import evaluate
from brag_env.play import main as play_main
from brag_env.put.rules import PUT_RANK, RANK_NAMES
from brag_env.replay import load_histories
from brag_env.replay import main as replay_main
from brag_env.ui.put_replay import config_for, put_steps


def replay(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    code = replay_main(argv, stdin=io.StringIO(""), stdout=out)
    return code, out.getvalue()


@pytest.fixture(scope="module", params=[2, 3])
def eval_file(request, tmp_path_factory):
    players = request.param
    path = tmp_path_factory.mktemp("put") / f"put{players}.jsonl"
    agents = ["put:bluffer", "put:greedy", "random"][:players]
    with path.open("w") as history:
        evaluate("put", agents, players, seed=4, history=history)
    return path


def _ranks(cards) -> Counter:
    return Counter(RANK_NAMES[PUT_RANK[parse_card(c)]] for c in cards)


def test_steps_hold_exactly_what_the_player_knew(eval_file):
    """P1-P4: own cards by rank, minus those played; the tricks and the Put as at the table."""
    records = load_histories(eval_file)
    puts = 0
    for record in records:
        config = config_for(record, {})
        steps = put_steps(record, config)
        assert [s.action for s in steps] == [a["action"] for a in record["actions"]]
        in_hand = {seat: list(cards) for seat, cards in enumerate(record["deal"])}
        for step, act in zip(steps, record["actions"], strict=True):
            assert step.seat == act["seat"] and step.action in step.legal
            assert Counter(step.view["hand"]) == _ranks(in_hand[step.seat])
            scores = [
                record["scores_before"][(step.seat + r) % config.num_players]
                for r in range(config.num_players)
            ]
            assert step.view["scores"] == scores  # relative to the acting seat
            if act["action"].startswith("play_"):
                in_hand[act["seat"]].remove(act["card"])
            puts += step.view["put"]["caller"] is not None
    assert puts  # some decisions were taken under a Put


@pytest.mark.slow
def test_prints_every_step_and_the_dealt_hands(eval_file):
    records = [json.loads(line) for line in eval_file.read_text().splitlines()]
    code, out = replay([str(eval_file)])
    assert code == 0
    assert out.count("to act ─") == sum(len(r["actions"]) for r in records)
    assert out.count("Dealt hands (hidden at the table):") == len(records)
    assert out.count("Put hand") == len(records)


def test_replays_a_partnership_match_from_play(tmp_path):
    """P8: the pass decisions replay too; the human's seat is labelled."""
    history = tmp_path / "p4.jsonl"
    play_main(
        [
            "put",
            "--opponents",
            "put:greedy",
            "random",
            "put:caller",
            "--seed",
            "2",
            "--option",
            "target_points=2",
            "--history",
            str(history),
        ],
        stdin=io.StringIO("1\n" * 200),
        stdout=io.StringIO(),
    )
    records = [json.loads(line) for line in history.read_text().splitlines()]
    assert records and records[0]["config"]["target_points"] == 2
    code, out = replay([str(history), "--hand", "1"])
    assert code == 0
    assert "seat 0: human · seat 1: put:greedy · seat 2: random · seat 3: put:caller" in out
    assert "Passed to the" not in out.split("Step 5")[0]  # nothing passed yet
    for seat in range(4):  # each seat's own pass, in the third person (not "your partner")
        assert f"Passed to the partner (seat {(seat + 2) % 4})" in out
    assert "your partner" not in out
    assert out.count("to act ─") == len(records[0]["actions"])


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_dealt_hands_strongest_first(eval_file):
    """P1: the hands shown after each hand are in rank order, strongest first."""
    code, out = replay([str(eval_file)])
    assert code == 0
    shown = 0
    for block in out.split("Dealt hands (hidden at the table):")[1:]:
        for line in block.splitlines()[1:]:
            if not line.startswith("  seat "):
                break
            ranks = [PUT_RANK[parse_card(c)] for c in line.split(": ", 1)[1].split()]
            assert ranks == sorted(ranks)
            shown += 1
    players = json.loads(eval_file.read_text().splitlines()[0])["num_players"]
    assert shown == players * out.count("Dealt hands (hidden at the table):")


def test_tampered_history_is_refused(eval_file, tmp_path, capsys):
    record = json.loads(eval_file.read_text().splitlines()[0])
    record["scores_after"] = [s + 1 for s in record["scores_after"]]
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(record) + "\n")
    code, _ = replay([str(path)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "line 1: hand 1: scores_after differs" in err
