"""Matplotlib figures (Agg backend, files only): payoff heatmaps and per-decile action charts.

Per agent, ``deciles_<i>_<label>.png`` shows its rates by strength decile (``decile_chart``):
Brag, the share of its hands in each decile in which it looked, folded, raised open and saw
open (``hands_by_decile``); Put, its Put rate (of the turns where Put was legal) and its see
and fold rates (of the Puts it answered). ``plot_files`` names every file a run will write, so
the command line can refuse existing ones before the run.

Every payoff cell carries its uncertainty: the mean, the 95% CI half-width and the number of
samples it rests on (``cell_text``); in the round-robin matrix a ``*`` marks a mean whose CI
excludes 0, the same mark as the text table (``report.significance_mark``).
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import numpy as np

from agents.registry import parse_spec
from brag_env.evaluation.games import ADAPTERS
from brag_env.evaluation.report import significance_mark
from brag_env.evaluation.runner import RoundRobinResult, TournamentResult
from brag_env.evaluation.stats import Estimate
from brag_env.extras import require
from brag_env.games import game_spec
from brag_env.io import write_output


def _pyplot() -> Any:
    require("plot", "--plot", "matplotlib")
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _render(fig: Any) -> bytes:
    """The figure as a PNG, rendered in memory."""
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=120, format="png")
    return buffer.getvalue()


def _write_all(pngs: dict[Path, bytes]) -> list[Path]:
    """Write every rendered PNG atomically (``brag_env.io``), all or none: when one fails (a
    full disk), those this call wrote already are removed again, so a failed ``--plot`` leaves
    no image of its own behind."""
    written: list[Path] = []
    try:
        for path, data in pngs.items():
            write_output(path, data, "--plot")
            written.append(path)
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        raise
    return written


#: Bars resting on fewer decisions than this are drawn faded: their shares are mostly noise.
SPARSE = 30


def cell_text(e: Estimate | None, mark: bool = False) -> str:
    """``+0.42*`` / ``±0.11`` / ``n=480`` (three lines); "" for an empty cell."""
    if e is None or e.n == 0:
        return ""
    head = f"{e.mean:+.2f}" + (significance_mark(e) if mark else "")
    spread = f"±{e.half_width:.2f}" if e.units >= 2 else "±?"
    return f"{head}\n{spread}\nn={e.n}"


def _heatmap(
    plt: Any,
    matrix: np.ndarray,
    texts: list[list[str]],
    rows: list[str],
    cols: list[str],
    title: str,
    label: str,
    axis_labels: tuple[str, str] = ("", ""),
) -> Any:
    fig, ax = plt.subplots(figsize=(2.2 + 1.2 * len(cols), 1.6 + 0.9 * len(rows)))
    finite = matrix[np.isfinite(matrix)]
    bound = float(np.abs(finite).max()) if finite.size else 1.0
    image = ax.imshow(matrix, cmap="RdBu", vmin=-bound or -1, vmax=bound or 1, aspect="auto")
    ax.set_xticks(range(len(cols)), cols, rotation=30, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    ax.set_ylabel(axis_labels[0])
    ax.set_xlabel(axis_labels[1])
    for (i, j), value in np.ndenumerate(matrix):
        if np.isfinite(value) and texts[i][j]:
            dark = abs(value) > 0.6 * (bound or 1)  # white text on the darkest cells
            color = "white" if dark else "black"
            ax.text(j, i, texts[i][j], ha="center", va="center", fontsize=7, color=color)
    fig.colorbar(image, ax=ax, label=label)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig


def _counted_bars(
    ax: Any, x: np.ndarray, heights: np.ndarray, counts: np.ndarray, **kw: Any
) -> Any:
    """Bars with their decision counts written above; sparse ones faded (``SPARSE``)."""
    bars = ax.bar(x, np.nan_to_num(heights), **kw)
    for bar, count in zip(bars, counts, strict=True):
        if count < SPARSE:
            bar.set_alpha(0.3)
    return bars


def _label_counts(ax: Any, x: np.ndarray, tops: np.ndarray, counts: np.ndarray) -> None:
    for xi, top, count in zip(x, tops, counts, strict=True):
        ax.text(
            xi,
            min(float(np.nan_to_num(top)), 1.0) + 0.02,
            f"{int(count)}",
            ha="center",
            va="bottom",
            fontsize=6,
            color="black" if count >= SPARSE else "grey",
        )


def _decile_chart(plt: Any, game: str, agents: list[tuple[str, dict[str, Any]]]) -> Any:
    """One panel per agent: the share of each action by hand-strength decile.

    The number above a bar is how many decisions it rests on; bars with fewer than ``SPARSE``
    decisions are faded.
    """
    fig, axes = plt.subplots(
        len(agents), 1, figsize=(8, 2.6 * len(agents)), squeeze=False, sharex=True
    )
    for ax, (label, table) in zip(axes[:, 0], agents, strict=True):
        counts = np.asarray(table["counts"], dtype=np.float64)
        rows, columns = table["rows"], table["columns"]
        x = np.arange(len(rows), dtype=np.float64)
        if game_spec(game).paired_deciles:
            # Two kinds of decision: calling Put (put/no_put) and answering one (see/fold).
            chances = counts[:, 0] + counts[:, 1]
            answers = counts[:, 2] + counts[:, 3]
            with np.errstate(invalid="ignore", divide="ignore"):
                put_rate = np.where(chances > 0, counts[:, 0] / chances, np.nan)
                fold_rate = np.where(answers > 0, counts[:, 3] / answers, np.nan)
            _counted_bars(ax, x - 0.2, put_rate, chances, width=0.4, label="calls Put (of chances)")
            _counted_bars(
                ax, x + 0.2, fold_rate, answers, width=0.4, label="folds to Put (of Puts faced)"
            )
            _label_counts(ax, x - 0.2, put_rate, chances)
            _label_counts(ax, x + 0.2, fold_rate, answers)
        else:
            totals = counts.sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                shares = np.where(totals[:, None] > 0, counts / totals[:, None], 0.0)
            bottom = np.zeros(len(rows))
            for k, name in enumerate(columns):
                _counted_bars(ax, x, shares[:, k], totals, bottom=bottom, label=name)
                bottom += shares[:, k]
            _label_counts(ax, x, np.where(totals > 0, 1.0, 0.0), totals)
        ax.set_xticks(range(len(rows)), rows)
        ax.set_ylim(0, 1.12)
        ax.set_ylabel("share")
        ax.set_title(label, fontsize=10)
    from matplotlib.patches import Patch

    handles = [  # solid swatches: a faded first bar must not fade the legend
        Patch(facecolor=bars.patches[0].get_facecolor()[:3], label=bars.get_label())
        for bars in axes[0, 0].containers
    ]
    fig.legend(handles=handles, loc="upper center", ncols=4, fontsize=8, frameon=False)
    axes[-1, 0].set_xlabel(
        "hand-strength decile (d0 weakest"
        + ("; 'blind' = decided without looking" if game_spec(game).blind_play else "")
        + f")\nnumber above a bar = decisions it rests on; faded = fewer than {SPARSE}"
    )
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.3 / (2.6 * len(agents))))
    return fig


# Per-agent decile charts, per game (each adapter's ``decile_series``): the behaviour table they
# read and, for each series, its legend, its numerator column and its denominator columns.
_DECILE_SERIES: dict[str, tuple[str, list[tuple[str, str, tuple[str, ...]]]]] = {
    name: (cls.decile_series[0], list(cls.decile_series[1]))
    for name, cls in ADAPTERS.items()
    if cls.decile_series is not None
}


def decile_file(index: int, label: str) -> str:
    """``deciles_0_brag-tight.png``: the agent's number, then its label in safe characters."""
    slug = re.sub(r"[^A-Za-z0-9_]+", "-", label).strip("-")[:48] or "agent"
    return f"deciles_{index}_{slug}.png"


def plot_files(specs: list[str], round_robin: bool) -> list[str]:
    """The names of every file ``--plot`` writes for these agent specs (before the run)."""
    first = "payoff_matrix.png" if round_robin else "payoff_by_seat.png"
    labels = [parse_spec(spec).label for spec in specs]
    return [first, "actions_by_decile.png"] + [decile_file(i, x) for i, x in enumerate(labels)]


def decile_series(game: str, table: dict[str, Any]) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(name, rate per decile (NaN where no count), count per decile) for each plotted series."""
    _, series = _DECILE_SERIES[game]
    counts = np.asarray(table["counts"], dtype=np.float64)
    columns = table["columns"]
    out = []
    for name, numerator, denominator in series:
        totals = sum(counts[:, columns.index(c)] for c in denominator)
        with np.errstate(invalid="ignore", divide="ignore"):
            rates = np.where(totals > 0, counts[:, columns.index(numerator)] / totals, np.nan)
        out.append((name, rates, totals))
    return out


def decile_chart(game: str, label: str, table: dict[str, Any]) -> Any:
    """One agent's rates by strength decile as grouped bars, each with its count above it."""
    plt = _pyplot()
    series = decile_series(game, table)
    fig, ax = plt.subplots(figsize=(8, 3.4))
    x = np.arange(10, dtype=np.float64)
    width = 0.8 / len(series)
    for k, (name, rates, totals) in enumerate(series):
        offset = x + (k - (len(series) - 1) / 2) * width
        _counted_bars(ax, offset, rates, totals, width=width, label=name)
        _label_counts(ax, offset, rates, totals)
    ax.set_xticks(range(10), [f"d{d}" for d in range(10)])
    ax.set_ylim(0, 1.3)  # room for the legend above the tallest bars
    ax.set_yticks(np.linspace(0, 1, 6))
    spec = game_spec(game)
    unit = spec.behaviour_unit
    ax.set_ylabel(f"share of its {unit}" if unit == "hands" else "share")
    strength = spec.behaviour_strength
    ax.set_xlabel(
        f"strength decile of {strength} (d0 weakest)"
        + f"\nnumber above a bar = {unit} it rests on; faded = fewer than {SPARSE}"
    )
    ax.set_title(f"{label}: by strength decile", fontsize=10)
    ax.legend(fontsize=7, ncols=len(series), loc="upper left", frameon=False)
    fig.tight_layout()
    return fig


def _render_decile_charts(
    game: str, out: Path, agents: list[tuple[int, str, dict[str, Any]]], pngs: dict[Path, bytes]
) -> None:
    """``decile_chart`` for every (index, label, behaviour) that has the game's table."""
    if game not in _DECILE_SERIES:
        return
    key = _DECILE_SERIES[game][0]
    for index, label, behaviour in agents:
        if key not in behaviour:
            continue
        fig = decile_chart(game, label, behaviour[key])
        pngs[out / decile_file(index, label)] = _render(fig)
        _pyplot().close(fig)


def _merge_tables(tables: list[dict[str, Any]]) -> dict[str, Any] | None:
    if not tables:
        return None
    counts = np.sum([np.asarray(t["counts"]) for t in tables], axis=0)
    return {**tables[0], "counts": counts.tolist()}


def seat_heatmap(result: TournamentResult) -> Any:
    """Agent x seat: each cell the agent's mean payoff in that seat, its 95% CI and count."""
    labels = [f"{a.index}: {a.label}" for a in result.agents]
    seats = [f"seat {s}" for s in range(len(result.agents))]
    cells = [a.seat_estimates for a in result.agents]
    matrix = np.array([[np.nan if e.n == 0 else e.mean for e in row] for row in cells], dtype=float)
    return _heatmap(
        _pyplot(),
        matrix,
        [[cell_text(e) for e in row] for row in cells],
        labels,
        seats,
        f"{result.game}: mean payoff by seat\n(± 95% CI half-width, n samples)",
        result.payoff_unit,
    )


def plot_tournament(result: TournamentResult, directory: str | Path) -> list[Path]:
    """``payoff_by_seat.png`` (agent x seat heatmap) and ``actions_by_decile.png``."""
    plt = _pyplot()
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    labels = [f"{a.index}: {a.label}" for a in result.agents]
    pngs: dict[Path, bytes] = {}  # rendered first, then written all at once
    fig = seat_heatmap(result)
    pngs[out / "payoff_by_seat.png"] = _render(fig)
    plt.close(fig)
    tables = [
        (label, a.behaviour["actions_by_decile"])
        for label, a in zip(labels, result.agents, strict=True)
        if "actions_by_decile" in a.behaviour
    ]
    if tables:
        fig = _decile_chart(plt, result.game, tables)
        pngs[out / "actions_by_decile.png"] = _render(fig)
        plt.close(fig)
    agents = [(a.index, a.label, a.behaviour) for a in result.agents]
    _render_decile_charts(result.game, out, agents, pngs)
    return _write_all(pngs)


def round_robin_heatmap(result: RoundRobinResult) -> Any:
    """The payoff matrix; a cell's ``*`` is the text table's (its 95% CI excludes 0)."""
    matrix = np.array(
        [[np.nan if e is None else e.mean for e in row] for row in result.matrix], dtype=float
    )
    unit = result.matches[0].payoff_unit if result.matches else "payoff"
    names = [f"#{i} {label}" for i, label in enumerate(result.labels)]
    others = result.table_size - 1
    return _heatmap(
        _pyplot(),
        matrix,
        [[cell_text(e, mark=True) for e in row] for row in result.matrix],
        names,
        names,
        f"{result.game} round robin, tables of {result.table_size}\n"
        "(± 95% CI half-width, n samples; * = CI excludes 0)",
        unit,
        (
            "agent (its payoff)",
            f"opponent ({others} cop{'y' if others == 1 else 'ies'} at the table)",
        ),
    )


def plot_round_robin(result: RoundRobinResult, directory: str | Path) -> list[Path]:
    """``payoff_matrix.png`` and ``actions_by_decile.png`` (each agent over all its tables)."""
    plt = _pyplot()
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    names = [f"#{i} {label}" for i, label in enumerate(result.labels)]
    pngs: dict[Path, bytes] = {}  # rendered first, then written all at once
    fig = round_robin_heatmap(result)
    pngs[out / "payoff_matrix.png"] = _render(fig)
    plt.close(fig)
    merged = []
    pooled: list[tuple[int, str, dict[str, Any]]] = []  # each agent over all its tables
    keys = ("actions_by_decile", "hands_by_decile")
    for i in range(len(result.labels)):
        own = [
            agent.behaviour
            for match in result.matches
            for agent in match.agents
            if agent.spec == result.pool[i]
        ]
        tables = {key: _merge_tables([b[key] for b in own if key in b]) for key in keys}
        if tables["actions_by_decile"] is not None:
            merged.append((names[i], tables["actions_by_decile"]))
        pooled.append((i, result.labels[i], {k: t for k, t in tables.items() if t is not None}))
    if merged:
        fig = _decile_chart(plt, result.game, merged)
        pngs[out / "actions_by_decile.png"] = _render(fig)
        plt.close(fig)
    _render_decile_charts(result.game, out, pooled, pngs)
    return _write_all(pngs)
