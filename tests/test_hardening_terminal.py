"""Text from files on the terminal (issue 30, item 6): every control character of a hand
history (C0, DEL, C1: the introducers of ESC, CSI and OSC sequences) is shown escaped by the
replay, in its screens and its error messages; a 5,000-digit integer names its line (14)."""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from brag_env import brag_v1
from brag_env.evaluation.cli import main as evaluate_main
from brag_env.replay import main as replay_main
from tests.random_histories import random_histories

HOSTILE = [
    "\x1b]0;owned title\x07",  # OSC: the window title
    "\x1b[8mhidden",  # SGR 8: invisible text
    "\x1b]52;c;ZXZpbA==\x07",  # OSC 52: a clipboard write
    "\x9b2J",  # C1 CSI: clear the screen
    "\x1b]8;;http://x\x1b\\link",  # OSC 8 hyperlink ended by ST
]
CONTROL_BYTES = [chr(c) for c in (*range(0x20), *range(0x7F, 0xA0))]
# Unicode bidirectional controls: embeddings, overrides, isolates and marks.
BIDI = [chr(c) for c in (0x61C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))]


def _replay(path: Path) -> tuple[int, str, str]:
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        code = replay_main([str(path), "--no-pause"], stdin=io.StringIO(), stdout=out)
    return code, out.getvalue(), err.getvalue()


def _clean(text: str) -> bool:
    return not any(c in text for c in CONTROL_BYTES if c != "\n")


def _brag_lines() -> list[dict]:
    env = brag_v1.raw_env(num_players=3, hands_per_session=1)
    return random_histories(env, 4, "brag", seat_agents=HOSTILE[:3])


def _write(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_terminal_safe_escapes_every_control_and_keeps_the_rest():
    from brag_env.io import terminal_safe, terminal_safe_json

    for c in CONTROL_BYTES:
        assert terminal_safe(f"a{c}b") == f"a\\x{ord(c):02x}b"
    assert terminal_safe("A♥ 10♠ plain") == "A♥ 10♠ plain"
    for c in BIDI:  # "bob\u202eeci" would show as "bobice" reversed: a seat name spoofed
        assert terminal_safe(f"bob{c}eci") == f"bob\\u{ord(c):04x}eci"
    assert terminal_safe("\u200d\u202f\u2070 é") == "\u200d\u202f\u2070 é"  # neighbours kept
    assert terminal_safe_json({"\u202e": ["\u2066x"]}) == {"\\u202e": ["\\u2066x"]}
    assert terminal_safe_json({"k\x1b": ["\x07", 3, None]}) == {"k\\x1b": ["\\x07", 3, None]}


@pytest.mark.slow  # a whole replay: over 0.4 s
def test_brag_replay_shows_hostile_seat_names_escaped(tmp_path):
    code, out, err = _replay(_write(tmp_path / "h.jsonl", _brag_lines()))
    assert code == 0, err
    assert _clean(out) and "\\x1b]0;owned title\\x07" in out


@pytest.mark.slow  # an evaluation and a replay: over 0.4 s
def test_put_replay_shows_hostile_seat_names_escaped(tmp_path, capsys):
    path = tmp_path / "put.jsonl"
    argv = ["--game", "put", "--agents", "random", "random", "--matches", "1", "--no-progress"]
    assert evaluate_main([*argv, "--history", str(path)]) == 0
    capsys.readouterr()
    lines = [json.loads(line) for line in path.read_text().splitlines()[:1]]  # one hand
    for line in lines:
        line["seat_agents"] = HOSTILE[3:5]
    code, out, err = _replay(_write(path, lines))
    assert code == 0, err
    assert _clean(out) and "\\x9b2J" in out


def test_a_line_with_a_5000_digit_integer_names_the_file_and_line(tmp_path):
    path = tmp_path / "digits.jsonl"
    path.write_text('{"game": "brag", "episode": ' + "9" * 5000 + "}\n")
    code, _, err = _replay(path)
    assert code == 2 and f"{path} line 1 is not usable JSON" in err and err.count("\n") == 1
    assert len(err) < 400
    assert "value has 5000 digits" in err and "set_int_max_str_digits" not in err
