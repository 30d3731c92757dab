"""Test helpers of the terminal front end: a scripted ``python -m brag_env.play`` run, and the
hand histories it wrote."""

from __future__ import annotations

import io
import json
from pathlib import Path

from brag_env.play import main


def play(argv: list[str], answers: str) -> tuple[int, str]:
    """Run the play command with ``answers`` as its stdin: its exit code and everything it
    printed."""
    out = io.StringIO()
    code = main(argv, stdin=io.StringIO(answers), stdout=out)
    return code, out.getvalue()


def read_history(path: Path) -> list[dict]:
    """The records of a ``--history`` file, one a line."""
    return [json.loads(line) for line in path.read_text().splitlines()]
