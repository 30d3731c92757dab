"""docs/results.md prints what its commands print (``bench/results.py``): a sample of its rows
is rerun here and compared digit for digit; the whole page is ``python bench/results.py``."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("bench_results", ROOT / "bench" / "results.py")
results = importlib.util.module_from_spec(_spec)
sys.modules["bench_results"] = results  # its dataclasses look their module up there
_spec.loader.exec_module(results)


def rows(group: str, first_cell: str | None = None) -> list:
    found = [r for r in results.ROWS if r.group == group]
    return [r for r in found if first_cell in (None, r.first_cell)]


@pytest.mark.slow  # two evaluate.py runs of 2,000 Put matches on the scalar env: seconds
@pytest.mark.parametrize(
    ("group", "first_cell"),
    [("put_baselines", "`greedy`"), ("put_duplicate", None)],
)
def test_a_sample_of_the_page_is_what_its_commands_print(group, first_cell, capsys):
    sample = rows(group, first_cell)
    assert sample
    assert results.check(sample, write=False) == 0, capsys.readouterr().out


def test_every_row_is_found_below_its_command_on_the_page():
    lines = results.PAGE.read_text(encoding="utf-8").splitlines()
    for row in results.ROWS:
        at = results.find_line(lines, row)
        assert len(results.page_row(lines[at])) >= 1, row


def test_a_changed_figure_is_reported_and_written(tmp_path, monkeypatch, capsys):
    """The comparison reads the page's cells; --write puts today's figures in their place."""
    page = tmp_path / "results.md"
    (row,) = rows("put_duplicate")
    table = f"| a | b | c |\n|---|---|---|\n| {row.first_cell} | 1% | 2% |\n"
    page.write_text(f"{row.anchor}\n\n{table}")
    monkeypatch.setattr(results, "PAGE", page)
    today = ["64.8% ± 2.1", "67.0% ± 1.5"]
    monkeypatch.setattr(results, "run_command", lambda command, cache: {})
    fake = results.Row(row.group, row.anchor, row.first_cell, row.commands, lambda r: today)
    assert results.check([fake], write=False) == 1
    assert "DIFF" in capsys.readouterr().out
    assert results.check([fake], write=True) == 0
    assert page.read_text().splitlines()[-1] == f"| {row.first_cell} | {' | '.join(today)} |"
    assert results.check([fake], write=False) == 0
