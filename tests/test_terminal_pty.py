"""The front ends at a real terminal (a pseudo-terminal), where readline handles the answers.

Enter on an empty answer must end the prompt's line: with the prompt printed before input()
instead of given to it, readline did not know the line held anything and wrote no newline,
so the next step's box began on the prompt line and every box after it broke.
"""

from __future__ import annotations

import os
import select
import sys
import time
from pathlib import Path

import pytest

from brag_env.evaluation import evaluate

pty = pytest.importorskip("pty")
pytest.importorskip("readline")
ROOT = Path(__file__).resolve().parents[1]
PROMPT_END = "q: quit"
BOX_TOP = "╭─ Step 2"


def read_until(fd: int, seen: bytearray, text: str, deadline: float) -> str:
    """Everything read from the terminal until ``text`` appears (or the deadline passes)."""
    while text not in seen.decode("utf-8", "replace") and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                seen.extend(os.read(fd, 65536))
            except OSError:  # the child closed the terminal
                break
    return seen.decode("utf-8", "replace")


@pytest.mark.slow  # a new interpreter at a pseudo-terminal: about 2 s
def test_enter_at_the_replay_prompt_ends_the_line_before_the_next_box(tmp_path):
    history = tmp_path / "match.jsonl"
    with history.open("w") as out:
        evaluate("put", ["put:greedy", "random"], 1, seed=1, history=out)
    pid, fd = pty.fork()
    if pid == 0:  # the child: the replay viewer, its stdin and stdout the terminal
        os.environ.update(PYTHONPATH=str(ROOT), COLUMNS="80", TERM="xterm")
        try:
            os.execv(sys.executable, [sys.executable, "-m", "brag_env.replay", str(history)])
        finally:
            os._exit(127)  # never back into pytest
    seen = bytearray()
    deadline = time.monotonic() + 120
    try:
        read_until(fd, seen, PROMPT_END, deadline)
        os.write(fd, b"\r")  # Enter: the next step
        text = read_until(fd, seen, BOX_TOP, deadline)
        os.write(fd, b"q\r")
        read_until(fd, seen, "Replay stopped", deadline)
    finally:
        os.waitpid(pid, 0)
        os.close(fd)
    assert BOX_TOP in text, text[-500:]
    between = text[text.index(PROMPT_END) : text.index(BOX_TOP)]
    assert "\n" in between, repr(between)
