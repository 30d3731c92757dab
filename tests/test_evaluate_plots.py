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


def test_decile_series_are_the_rates_of_the_table():
    from brag_env.evaluation.plots import decile_series

    columns = ["hands", "looked", "folded", "raised", "saw", "covered", "won"]
    counts = [[0] * 7 for _ in range(10)]
    counts[0] = [4, 2, 3, 1, 0, 0, 1]
    series = decile_series("brag", {"columns": columns, "counts": counts})
    assert [name for name, _, _ in series] == ["looked", "folded", "raised open", "saw open"]
    assert [float(rates[0]) for _, rates, _ in series] == [0.5, 0.75, 0.25, 0.0]
    assert all(float(totals[0]) == 4 for _, _, totals in series)
    assert all(str(rates[1]) == "nan" for _, rates, _ in series)  # no hands: no bar
    put = [[0, 0, 0, 0] for _ in range(10)]
    put[9] = [3, 1, 1, 3]
    named = {
        n: r[9]
        for n, r, _ in decile_series(
            "put", {"columns": ["put", "no_put", "see", "fold"], "counts": put}
        )
    }
    assert named == {
        "called Put (of chances)": 0.75,
        "saw a Put (of Puts faced)": 0.25,
        "folded to a Put (of Puts faced)": 0.75,
    }


def test_decile_chart_names_are_safe_and_known_before_the_run():
    from brag_env.evaluation.plots import decile_file, plot_files

    assert decile_file(3, "runs/a b/model.zip:deterministic=true") == (
        "deciles_3_runs-a-b-model-zip-deterministic-true.png"
    )
    assert decile_file(0, "::") == "deciles_0_agent.png"
    assert plot_files(["put:greedy", "random"], round_robin=True) == [
        "payoff_matrix.png",
        "actions_by_decile.png",
        "deciles_0_put-greedy.png",
        "deciles_1_random.png",
    ]


@pytest.mark.slow  # renders PNGs
def test_every_agent_gets_its_decile_chart_and_the_names_are_known_first(tmp_path):
    from brag_env.evaluation.plots import plot_files, plot_tournament

    specs = ["brag:tight", "random", "random"]
    result = evaluate("brag", specs, 6, seed=0)
    written = plot_tournament(result, tmp_path)
    assert [p.name for p in written] == plot_files(specs, round_robin=False)
    assert [p.name for p in written][2:] == [
        "deciles_0_brag-tight.png",
        "deciles_1_random.png",
        "deciles_2_random.png",
    ]
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in written)


@pytest.mark.slow  # renders PNGs
def test_existing_decile_charts_are_not_overwritten_without_force(tmp_path, capsys):
    import evaluate as cli

    (tmp_path / "deciles_1_put-greedy.png").write_bytes(b"old")
    argv = ["--game", "put", "--agents", "random", "put:greedy", "--matches", "2"]
    argv += ["--no-progress", "--plot", str(tmp_path)]
    assert cli.main(argv) == 2
    assert "deciles_1_put-greedy.png" in capsys.readouterr().err
    assert (tmp_path / "deciles_1_put-greedy.png").read_bytes() == b"old"
    assert cli.main([*argv, "--force"]) == 0
    assert (tmp_path / "deciles_1_put-greedy.png").read_bytes()[:4] == b"\x89PNG"
