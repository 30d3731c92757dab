"""The README's Brag example runs and prints what its comments say (the French example)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_brag_example(capsys: pytest.CaptureFixture[str]) -> None:
    section = README.read_text().split("\n## Brag\n", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert code is not None
    assert len(code.group(1).strip().splitlines()) <= 12
    exec(compile(code.group(1), "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "4♠ 6♠ 9♠" in out
    assert "{'player_0': -55.0, 'player_1': -10.0, 'player_2': -5.0, 'player_3': 70.0}" in out
