"""The README's "## Play" commands run as written (a new user's first session)."""

from __future__ import annotations

import io
import shlex
from pathlib import Path

from brag_env.play import main as play_main
from brag_env.replay import main as replay_main

README = Path(__file__).resolve().parents[1] / "README.md"


def play_section_commands() -> list[list[str]]:
    text = README.read_text(encoding="utf-8").split("\n## Play\n", 1)[1].split("\n## ", 1)[0]
    commands = []
    for line in text.splitlines():
        if line.startswith("python -m brag_env."):
            commands.append(shlex.split(line, comments=True))
    return commands


def test_readme_play_and_replay_commands_work(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    commands = play_section_commands()
    plays = [c for c in commands if c[2] == "brag_env.play"]
    replays = [c for c in commands if c[2] == "brag_env.replay"]
    assert {c[3] for c in plays} == {"brag", "put"} and len(replays) == 3
    for command in plays:
        out = io.StringIO()
        # The first choice 20 times (several hands), then leave; keep the hands for replay.
        argv = [*command[3:], "--seed", "1", "--history", "session.jsonl"]
        assert play_main(argv, stdin=io.StringIO("1\n" * 20 + "q\n"), stdout=out) == 0
        assert "Your turn" in out.getvalue()
        assert len(Path("session.jsonl").read_text().splitlines()) >= 3
    for command in replays:
        out = io.StringIO()
        code = replay_main(command[3:], stdin=io.StringIO(""), stdout=out)
        assert code == 0
        assert "Dealt hands (hidden at the table)" in out.getvalue()
