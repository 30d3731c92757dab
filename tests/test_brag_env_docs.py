"""The Brag example of docs/envs.md: it runs, prints what its comments say (the French example), and
uses the deck of the French example scenario and of the rules document (B9 deal order)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from brag_env.cards import parse_cards

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "envs.md"
SCENARIO = ROOT / "seeds" / "scenarios" / "brag_french_example.json"
RULES = ROOT / "seeds" / "rules" / "brag.md"


def _brag_code() -> str:
    section = PAGE.read_text(encoding="utf-8").split("\n## Brag\n", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert code is not None
    return code.group(1)


def test_docs_brag_example(capsys: pytest.CaptureFixture[str]) -> None:
    code = _brag_code()
    lines = code.strip().splitlines()
    assert len([line for line in lines if line.strip()]) <= 10, "keep it to ten lines of code"
    assert max(len(line) for line in lines) <= 100
    exec(compile(code, "docs/envs.md", "exec"), {})
    out = capsys.readouterr().out
    assert "4♠ 6♠ 9♠" in out
    assert "{'player_0': -55.0, 'player_1': -10.0, 'player_2': -5.0, 'player_3': 70.0}" in out


def test_docs_deck_is_the_french_example_deck() -> None:
    """One deck for the French example everywhere: docs, scenario file, rules document."""
    readme_deck = re.search(r'"deck": "([^"]+)"', _brag_code())
    assert readme_deck is not None
    scenario = json.loads(SCENARIO.read_text(encoding="utf-8"))
    assert parse_cards(readme_deck.group(1)) == parse_cards(scenario["deck"])
    assert f"`{scenario['deck']}`" in RULES.read_text(encoding="utf-8")
    actions = re.search(r'plan = "([^"]+)"', _brag_code())
    assert actions is not None and actions.group(1).split() == scenario["actions"]
