"""Learning curves from evals.jsonl: what is drawn is what the runs measured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from brag_env.training import curves

POINTS = {  # step: (label, {opponent: (mean, low, high, n)})
    512: ("eval", {"random": (0.55, 0.45, 0.65, 100), "put:greedy": (0.40, 0.30, 0.50, 100)}),
    1024: ("eval", {"random": (0.70, 0.61, 0.79, 100), "put:greedy": (0.52, 0.42, 0.62, 100)}),
    1536: ("final", {"random": (0.72, 0.68, 0.76, 400), "put:greedy": (0.55, 0.50, 0.60, 400)}),
}


def make_run(path: Path, game: str = "put", points=POINTS) -> Path:
    path.mkdir(parents=True)
    (path / "config.yaml").write_text(f"name: {path.name}\ngame: {game}\n")
    lines = []
    for step, (label, results) in points.items():
        rows = [
            {"opponent": o, "metric": "m", "mean": m, "ci_low": lo, "ci_high": hi, "n": n}
            for o, (m, lo, hi, n) in results.items()
        ]
        lines.append(json.dumps({"step": step, "label": label, "results": rows}))
    (path / "evals.jsonl").write_text("\n".join(lines) + "\n")
    return path


def test_one_run_one_curve_per_opponent_with_its_intervals(tmp_path):
    run = make_run(tmp_path / "a")
    (random, greedy) = curves.read_curves(run)
    assert random.label == "random" and greedy.label == "put:greedy"
    assert random.steps == [512, 1024, 1536]
    assert random.mean == [0.55, 0.70, 0.72] and random.low == [0.45, 0.61, 0.68]
    assert greedy.high == [0.50, 0.62, 0.60] and greedy.n == [100, 100, 400]
    assert random.final and greedy.final


def test_the_figure_draws_the_means_and_bands_of_every_run(tmp_path):
    a, b = make_run(tmp_path / "a"), make_run(tmp_path / "b")
    game, drawn = curves.collect([a, b])
    fig = curves.curve_figure(game, drawn)
    try:
        ax = fig.axes[0]
        lines = [line for line in ax.get_lines() if line.get_label() in {c.label for c in drawn}]
        assert [line.get_label() for line in lines] == [
            "a: random", "a: put:greedy", "b: random", "b: put:greedy"
        ]  # fmt: skip
        assert list(lines[0].get_ydata()) == pytest.approx([55.0, 70.0, 72.0])  # Put: percent
        assert list(lines[0].get_xdata()) == [512, 1024, 1536]
        band = ax.collections[0].get_paths()[0].vertices  # the 95% CI band of the first curve
        assert band[:, 1].min() == pytest.approx(45.0) and band[:, 1].max() == pytest.approx(79.0)
        assert [line.get_ydata()[0] for line in ax.get_lines() if line.get_linestyle() == "--"] == [
            50.0
        ]  # break-even: a 50% win rate
    finally:
        curves._pyplot().close(fig)


def test_brag_curves_are_in_antes_and_break_even_at_zero(tmp_path):
    brag = make_run(tmp_path / "brag", game="brag")
    game, drawn = curves.collect([brag])
    fig = curves.curve_figure(game, drawn)
    try:
        ax = fig.axes[0]
        assert list(ax.get_lines()[0].get_ydata()) == pytest.approx([0.55, 0.70, 0.72])
        assert "antes" in ax.get_ylabel()
    finally:
        curves._pyplot().close(fig)


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_command_writes_the_plot_and_refuses_what_it_cannot_do(tmp_path, capsys):
    a, b = make_run(tmp_path / "a"), make_run(tmp_path / "b")
    out = tmp_path / "both.png"
    assert curves.main([str(a), str(b), "-o", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "4 curve(s) from 2 run(s)" in capsys.readouterr().out
    assert curves.main([str(a), str(b), "-o", str(out)]) == 2  # exists: --force
    assert "add --force" in capsys.readouterr().err
    assert curves.main([str(a), str(b), "-o", str(out), "--force"]) == 0
    assert curves.main([str(a)]) == 0 and (a / "curves.png").is_file()  # one run: its own dir

    brag = make_run(tmp_path / "brag", game="brag")
    assert curves.main([str(a), str(brag), "-o", str(tmp_path / "x.png")]) == 2
    assert "different games (brag, put)" in capsys.readouterr().err
    (b / "evals.jsonl").write_text('{"step": 1}\n')
    assert curves.main([str(b)]) == 2
    err = capsys.readouterr().err
    assert f"{b / 'evals.jsonl'}:1: not an evaluation line" in err and err.count("\n") == 1
    assert curves.main([str(tmp_path / "nothing")]) == 2
    assert "not a train.py run directory" in capsys.readouterr().err


def test_empty_run_draws_nothing_but_still_writes(tmp_path):
    run = make_run(tmp_path / "a", points={})
    assert curves.plot_runs([run], run / "curves.png") == []
    assert (run / "curves.png").read_bytes()[:4] == b"\x89PNG"
