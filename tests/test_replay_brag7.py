"""``python -m brag_env.replay`` on Seven-card Brag deals (B24), from play and evaluate.py."""

from __future__ import annotations

import contextlib
import io
import json

from brag_env.play import main as play_main
from brag_env.replay import main as replay_main


def _replay(path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        code = replay_main([str(path), "--no-pause"], stdin=io.StringIO(""), stdout=out)
    return code, out.getvalue(), err.getvalue()


def test_b24_a_played_session_replays_deal_by_deal(tmp_path):
    history = tmp_path / "brag7.jsonl"
    argv = ["brag7", "--opponents", "brag7:balanced", "--hands", "3", "--seed", "5"]
    out = io.StringIO()
    code = play_main(
        [*argv, "--history", str(history)], stdin=io.StringIO("1\n1\n\n" * 3), stdout=out
    )
    assert code == 0
    lines = [json.loads(line) for line in history.read_text().splitlines()]
    assert [r["deal_number"] for r in lines] == [0, 1, 2]
    assert all(r["game"] == "brag7" and r["seat_agents"][0] == "human" for r in lines)
    code, text, _ = _replay(history)
    assert code == 0
    assert text.count("arranges") == 6 and text.count("showdown (pot") == 3
    assert "Discards (hidden at the table)" in text


def test_b24_a_tampered_deal_is_a_one_line_error(tmp_path):
    history = tmp_path / "brag7.jsonl"
    argv = ["brag7", "--opponents", "random", "--hands", "1", "--seed", "2"]
    play_main([*argv, "--history", str(history)], stdin=io.StringIO("1\n1\n"), stdout=io.StringIO())
    record = json.loads(history.read_text())
    record["winner"] = 1 - record["winner"] if record["winner"] >= 0 else 0
    history.write_text(json.dumps(record) + "\n")
    code, _, err = _replay(history)
    assert code == 2
    assert "line 1: winner does not match the deal played again" in err
    assert len(err.strip().splitlines()) == 1
    record["arrangements"] = [0, "x"]
    history.write_text(json.dumps(record) + "\n")
    code, _, err = _replay(history)
    assert code == 2 and "arrangements must hold whole numbers" in err


def test_b24_chips_that_do_not_add_up_are_a_one_line_error(tmp_path):
    """B24 moves chips only between the stacks and the pot: +5 on every seat in the second
    deal of a real history (the showdown itself untouched) is caught, naming that deal."""
    history = tmp_path / "brag7.jsonl"
    argv = ["brag7", "--opponents", "brag7:balanced", "--hands", "3", "--seed", "5"]
    play_main(
        [*argv, "--history", str(history)], stdin=io.StringIO("1\n1\n\n" * 3), stdout=io.StringIO()
    )
    assert _replay(history)[0] == 0
    records = [json.loads(line) for line in history.read_text().splitlines()]
    records[1]["chips"] = [c + 5 for c in records[1]["chips"]]
    history.write_text("".join(json.dumps(r) + "\n" for r in records))
    code, _, err = _replay(history)
    assert code == 2
    assert "line 2: deal_number 1: chips" in err and "must be the table's" in err
    assert len(err.strip().splitlines()) == 1
    records[1]["chips"] = [-1, sum(records[1]["chips"]) - 10 + 1]
    history.write_text("".join(json.dumps(r) + "\n" for r in records))
    code, _, err = _replay(history)
    assert code == 2 and "none below 0" in err
