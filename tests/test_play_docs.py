"""The commands of docs/play.md run exactly as written, in order, from an empty directory
(a new user's first session), with a script standing in for the person at the keyboard."""

from __future__ import annotations

import io
import json
import shlex
from pathlib import Path

import pytest

from brag_env.play import main as play_main
from brag_env.replay import main as replay_main

PAGE = Path(__file__).resolve().parents[1] / "docs" / "play.md"
MAINS = {"brag_env.play": play_main, "brag_env.replay": replay_main}


def play_section_commands() -> list[list[str]]:
    text = PAGE.read_text(encoding="utf-8")
    return [
        shlex.split(line, comments=True)
        for line in text.splitlines()
        if line.startswith("python -m brag_env.")
    ]


@pytest.mark.slow  # the quick docs test starts the same commands
def test_docs_play_and_replay_commands_work_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    commands = play_section_commands()
    # Brag and Put, then Seven-card Brag's session and its replay (B24), then the replays.
    expected = ["brag_env.play"] * 3 + ["brag_env.replay"] * 4
    assert [c[2] for c in commands] == expected
    for command in commands:
        assert command[:2] == ["python", "-m"]
        out = io.StringIO()
        # Always the first choice (fold in Brag, the best card or see in Put), Enter between
        # hands: the session runs to its end, whatever seed it picks.
        code = MAINS[command[2]](command[3:], stdin=io.StringIO("1\n" * 400), stdout=out)
        assert code == 0, command
        text = out.getvalue()
        if command[2] == "brag_env.play":
            assert "Your turn" in text and "Session over: " in text
        elif "brag7.jsonl" in command:
            assert "Discards (hidden at the table)" in text
        else:
            assert "Dealt hands (hidden at the table)" in text
    brag = [json.loads(line) for line in Path("brag.jsonl").read_text().splitlines()]
    put = [json.loads(line) for line in Path("put.jsonl").read_text().splitlines()]
    brag7 = [json.loads(line) for line in Path("brag7.jsonl").read_text().splitlines()]
    assert [r["deal_number"] for r in brag7] == list(range(5)) and brag7[0]["game"] == "brag7"
    assert [r["hand_number"] for r in brag] == list(range(10))  # ten hands, three bots
    assert all(len(r["seat_agents"]) == 4 and r["game"] == "brag" for r in brag)
    assert put[-1]["game"] == "put" and max(put[-1]["scores_after"]) >= 5  # a match to 5 (P6)
