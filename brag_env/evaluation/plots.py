"""Matplotlib figures (Agg backend, files only): payoff heatmaps and per-decile action charts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from brag_env.evaluation.runner import RoundRobinResult, TournamentResult


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _heatmap(
    plt: Any, matrix: np.ndarray, rows: list[str], cols: list[str], title: str, label: str
) -> Any:
    fig, ax = plt.subplots(figsize=(1.6 + 1.1 * len(cols), 1.2 + 0.6 * len(rows)))
    finite = matrix[np.isfinite(matrix)]
    bound = float(np.abs(finite).max()) if finite.size else 1.0
    image = ax.imshow(matrix, cmap="RdBu", vmin=-bound or -1, vmax=bound or 1, aspect="auto")
    ax.set_xticks(range(len(cols)), cols, rotation=30, ha="right")
    ax.set_yticks(range(len(rows)), rows)
    for (i, j), value in np.ndenumerate(matrix):
        if np.isfinite(value):
            ax.text(j, i, f"{value:+.2f}", ha="center", va="center", fontsize=8)
    fig.colorbar(image, ax=ax, label=label)
    ax.set_title(title)
    fig.tight_layout()
    return fig


def _decile_chart(plt: Any, game: str, agents: list[tuple[str, dict[str, Any]]]) -> Any:
    """One panel per agent: the share of each action by hand-strength decile."""
    fig, axes = plt.subplots(
        len(agents), 1, figsize=(8, 2.4 * len(agents)), squeeze=False, sharex=True
    )
    for ax, (label, table) in zip(axes[:, 0], agents, strict=True):
        counts = np.asarray(table["counts"], dtype=np.float64)
        rows, columns = table["rows"], table["columns"]
        if game == "put":
            # Two kinds of decision: calling Put (put/no_put) and answering one (see/fold).
            chances = counts[:, 0] + counts[:, 1]
            answers = counts[:, 2] + counts[:, 3]
            with np.errstate(invalid="ignore", divide="ignore"):
                put_rate = np.where(chances > 0, counts[:, 0] / chances, np.nan)
                fold_rate = np.where(answers > 0, counts[:, 3] / answers, np.nan)
            x = np.arange(len(rows))
            ax.bar(x - 0.2, put_rate, 0.4, label="calls Put (of chances)")
            ax.bar(x + 0.2, fold_rate, 0.4, label="folds to Put (of Puts faced)")
        else:
            totals = counts.sum(axis=1, keepdims=True)
            with np.errstate(invalid="ignore", divide="ignore"):
                shares = np.where(totals > 0, counts / totals, 0.0)
            bottom = np.zeros(len(rows))
            for k, name in enumerate(columns):
                ax.bar(range(len(rows)), shares[:, k], bottom=bottom, label=name)
                bottom += shares[:, k]
        ax.set_xticks(range(len(rows)), rows)
        ax.set_ylim(0, 1)
        ax.set_ylabel("share")
        ax.set_title(label, fontsize=10)
    axes[0, 0].legend(loc="upper left", fontsize=8, ncols=4)
    axes[-1, 0].set_xlabel(
        "hand-strength decile (d0 weakest"
        + (", 'blind' = decisions made without looking)" if game == "brag" else ")")
    )
    fig.tight_layout()
    return fig


def _merge_tables(tables: list[dict[str, Any]]) -> dict[str, Any] | None:
    if not tables:
        return None
    counts = np.sum([np.asarray(t["counts"]) for t in tables], axis=0)
    return {**tables[0], "counts": counts.tolist()}


def plot_tournament(result: TournamentResult, directory: str | Path) -> list[Path]:
    """``payoff_by_seat.png`` (agent x seat heatmap) and ``actions_by_decile.png``."""
    plt = _pyplot()
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    labels = [f"{a.index}: {a.label}" for a in result.agents]
    seats = [f"seat {s}" for s in range(len(result.agents))]
    matrix = np.array(
        [[np.nan if v is None else v for v in a.seat_payoff] for a in result.agents], dtype=float
    )
    written = []
    fig = _heatmap(
        plt, matrix, labels, seats, f"{result.game}: mean payoff by seat", result.payoff_unit
    )
    written.append(out / "payoff_by_seat.png")
    fig.savefig(written[-1], dpi=120)
    plt.close(fig)
    tables = [
        (label, a.behaviour["actions_by_decile"])
        for label, a in zip(labels, result.agents, strict=True)
        if "actions_by_decile" in a.behaviour
    ]
    if tables:
        fig = _decile_chart(plt, result.game, tables)
        written.append(out / "actions_by_decile.png")
        fig.savefig(written[-1], dpi=120)
        plt.close(fig)
    return written


def plot_round_robin(result: RoundRobinResult, directory: str | Path) -> list[Path]:
    """``payoff_matrix.png`` and ``actions_by_decile.png`` (each agent over all its tables)."""
    plt = _pyplot()
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    matrix = np.array(
        [[np.nan if e is None else e.mean for e in row] for row in result.matrix], dtype=float
    )
    unit = result.matches[0].payoff_unit if result.matches else "payoff"
    fig = _heatmap(
        plt,
        matrix,
        result.labels,
        result.labels,
        f"{result.game} round robin (row vs column)",
        unit,
    )
    written = [out / "payoff_matrix.png"]
    fig.savefig(written[-1], dpi=120)
    plt.close(fig)
    merged = []
    for i, label in enumerate(result.labels):
        own = []
        for match in result.matches:
            for agent in match.agents:
                if agent.spec == result.pool[i] and "actions_by_decile" in agent.behaviour:
                    own.append(agent.behaviour["actions_by_decile"])
        table = _merge_tables(own)
        if table is not None:
            merged.append((label, table))
    if merged:
        fig = _decile_chart(plt, result.game, merged)
        written.append(out / "actions_by_decile.png")
        fig.savefig(written[-1], dpi=120)
        plt.close(fig)
    return written
