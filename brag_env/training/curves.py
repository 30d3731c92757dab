"""Learning curves from ``evals.jsonl``: the learner's result against each opponent over training.

    python -m brag_env.training.curves runs/put_ppo                  # -> runs/put_ppo/curves.png
    python -m brag_env.training.curves runs/a runs/b -o curves.png   # several runs together

One line per (run, opponent): the mean at each evaluation with its 95% confidence band (Brag:
payoff in antes per hand; Put: match win rate), the final evaluation drawn as a larger marker. The
dashed line is the break-even level (payoff 0, win rate 50%). ``train.py`` writes ``curves.png``
into the run directory at the end of a run.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from brag_env.evaluation.plots import _pyplot
from brag_env.games import GAME_NAMES, game_spec
from brag_env.io import FileError, load_yaml
from brag_env.training.files import RunFileError, writing
from brag_env.ui.cli import quiet_on_closed_pipe


@dataclass
class Curve:
    """One (run, opponent) line: the points exactly as plotted."""

    label: str
    steps: list[int] = field(default_factory=list)
    mean: list[float] = field(default_factory=list)
    low: list[float] = field(default_factory=list)
    high: list[float] = field(default_factory=list)
    n: list[int] = field(default_factory=list)
    final: bool = False  # the last point is the final evaluation (more episodes)


def run_game(run_dir: Path) -> str:
    """The game of a run, from its ``config.yaml``."""
    path = run_dir / "config.yaml"
    try:
        game = (load_yaml(path) or {}).get("game")
    except (FileError, AttributeError):
        game = None
    if game not in GAME_NAMES:
        raise ValueError(f"{run_dir} is not a train.py run directory (no readable {path.name})")
    return game


def read_curves(run_dir: Path, prefix: str = "") -> list[Curve]:
    """The curves of one run, in the order of its first evaluation's opponents."""
    path = run_dir / "evals.jsonl"
    if not path.is_file():
        raise ValueError(f"{run_dir} has no evals.jsonl")
    curves: dict[str, Curve] = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            step, label, results = int(entry["step"]), entry["label"], entry["results"]
            rows = [(str(r["opponent"]), r) for r in results]
            points = [(float(r["mean"]), float(r["ci_low"]), float(r["ci_high"])) for _, r in rows]
        except (ValueError, KeyError, TypeError, AttributeError):
            raise ValueError(f"{path}:{number}: not an evaluation line") from None
        for (opponent, r), (mean, low, high) in zip(rows, points, strict=True):
            curve = curves.setdefault(opponent, Curve(f"{prefix}{opponent}"))
            curve.steps.append(step)
            curve.mean.append(mean)
            curve.low.append(low)
            curve.high.append(high)
            curve.n.append(int(r.get("n", 0)))
            curve.final = label == "final"
    return list(curves.values())


def collect(run_dirs: list[Path]) -> tuple[str, list[Curve]]:
    """The game and every curve of the runs; runs of different games cannot share axes."""
    if not run_dirs:
        raise ValueError("name at least one run directory")
    games = {run_game(d) for d in run_dirs}
    if len(games) > 1:
        raise ValueError(f"the runs are of different games ({', '.join(sorted(games))})")
    curves = []
    for d in run_dirs:
        curves += read_curves(d, prefix=f"{d.name}: " if len(run_dirs) > 1 else "")
    return games.pop(), curves


def curve_figure(game: str, curves: list[Curve]) -> Any:
    """One line per curve with its 95% CI band; Put in percent, Brag in antes per hand."""
    plt = _pyplot()
    put = game_spec(game).matches  # a share, shown in percent
    scale = 100.0 if put else 1.0
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for curve in curves:
        if not curve.steps:
            continue
        mean = [scale * v for v in curve.mean]
        (line,) = ax.plot(curve.steps, mean, marker="o", markersize=3, label=curve.label)
        ax.fill_between(
            curve.steps,
            [scale * v for v in curve.low],
            [scale * v for v in curve.high],
            color=line.get_color(),
            alpha=0.2,
            linewidth=0,
        )
        if curve.final:
            ax.plot(curve.steps[-1], mean[-1], marker="D", markersize=7, color=line.get_color())
    ax.axhline(50.0 if put else 0.0, color="grey", linestyle="--", linewidth=1)
    ax.set_xlabel("learner steps")
    ax.set_ylabel("match win rate, %" if put else "payoff, antes per hand")
    ax.set_title(
        f"{game}: evaluation against each opponent (band = 95% CI, diamond = final evaluation)",
        fontsize=10,
    )
    if curves:
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_runs(run_dirs: list[Path], out: Path) -> list[Curve]:
    """Draw the runs' curves into ``out`` (PNG, written atomically); returns what was drawn."""
    game, curves = collect([Path(d) for d in run_dirs])
    fig = curve_figure(game, curves)
    out = Path(out)
    tmp = out.with_name(f".{out.name}.tmp.png")
    try:
        with writing(out):
            out.parent.mkdir(parents=True, exist_ok=True)
            fig.savefig(tmp, dpi=120)
            tmp.replace(out)  # a reader never sees half a PNG
    finally:
        tmp.unlink(missing_ok=True)
        _pyplot().close(fig)
    return curves


@quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m brag_env.training.curves",
        description="Plot the learning curves (evals.jsonl) of one or more train.py runs.",
    )
    p.add_argument("runs", nargs="+", help="run directories (runs/<name>)")
    p.add_argument("-o", "--out", help="PNG to write (default: <run>/curves.png for one run)")
    p.add_argument("--force", action="store_true", help="replace an existing --out file")
    args = p.parse_args(argv)
    runs = [Path(r) for r in args.runs]
    if args.out is None and len(runs) > 1:
        print(f"{p.prog}: error: several runs need -o FILE", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else runs[0] / "curves.png"
    try:
        if args.out and out.exists() and not args.force:
            raise ValueError(f"{out} exists; add --force to replace it")
        if out.is_dir():
            raise ValueError(f"{out} is a directory")
        curves = plot_runs(runs, out)
    except ValueError as e:
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return 2
    except RunFileError as e:
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return 1
    print(f"{out}: {len(curves)} curve(s) from {len(runs)} run(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
