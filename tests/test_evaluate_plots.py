"""Payoff plots carry their uncertainty: every heatmap cell shows the mean, the 95% CI half-width
and the sample count; the round-robin heatmap marks the cells the text table marks."""

from __future__ import annotations

import re

import pytest
from rich.console import Console

from brag_env.evaluation import evaluate, round_robin
from brag_env.evaluation.plots import _pyplot, cell_text, round_robin_heatmap, seat_heatmap
from brag_env.evaluation.report import round_robin_table
from brag_env.evaluation.stats import Estimate


def texts(fig) -> list[str]:
    return [t.get_text() for t in fig.axes[0].texts]


def test_cell_text_shows_mean_interval_count_and_mark():
    e = Estimate(mean=0.5, half_width=0.2, n=300, std=1.0)
    assert cell_text(e) == "+0.50\n±0.20\nn=300"
    assert cell_text(e, mark=True) == "+0.50*\n±0.20\nn=300"  # the CI [0.3, 0.7] excludes 0
    assert cell_text(Estimate(-0.1, 0.2, 300, 1.0), mark=True) == "-0.10\n±0.20\nn=300"
    assert cell_text(Estimate(1.0, float("nan"), 1, float("nan"))) == "+1.00\n±?\nn=1"
    assert cell_text(None) == ""


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_payoff_by_seat_cells_carry_interval_and_count():
    result = evaluate("brag", ["brag:tight", "random", "random"], 60, seed=1)
    fig = seat_heatmap(result)
    try:
        cells = [e for a in result.agents for e in a.seat_estimates]
        assert texts(fig) == [cell_text(e) for e in cells]
        # Each seat's samples are a share of the agent's: counts add up, means match seat_payoff.
        for a in result.agents:
            assert sum(e.n for e in a.seat_estimates) == a.payoff.n
            assert [e.mean for e in a.seat_estimates] == pytest.approx(a.seat_payoff)
            assert all(e.half_width > 0 for e in a.seat_estimates)
        assert all(re.fullmatch(r"[+-]\d+\.\d\d\n±\d+\.\d\d\nn=\d+", t) for t in texts(fig))
    finally:
        _pyplot().close(fig)


def test_round_robin_heatmap_marks_the_cells_the_text_table_marks():
    result = round_robin("put", ["random", "put:greedy", "put:caller"], 40, seed=1)
    fig = round_robin_heatmap(result)
    console = Console(record=True, width=200)
    console.print(round_robin_table(result))
    table_cells = re.findall(r"[+-]\d\.\d\d\*?", console.export_text())
    try:
        heat_cells = [t.split("\n")[0] for t in texts(fig)]
        # The table's cells row by row (then each row's mean, unmarked): the same marks.
        k = len(result.labels)
        table_matrix = [c for i, c in enumerate(table_cells) if i % k != k - 1]
        assert heat_cells == table_matrix
        assert any(c.endswith("*") for c in heat_cells)  # the test exercises a marked cell
        expected = [cell_text(e, mark=True) for row in result.matrix for e in row if e]
        assert texts(fig) == expected
    finally:
        _pyplot().close(fig)
