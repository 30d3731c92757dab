"""An ``evaluate.py --json`` report read for the results page.

A tournament report gives the payoff table (mean, 95% CI, samples; Put: match wins and points
per hand, as the terminal table), the payoff by seat as a heat map and the behaviour statistics
(``evaluation.report.BEHAVIOUR_COLUMNS``, the same rows and the same formatting as the terminal
report). A round-robin report gives its matrix as a heat map, each cell with its CI and a ``*``
when the CI excludes 0 (``report.significance_mark``, as the text table and the PNG).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from brag_env.evaluation.report import (
    BEHAVIOUR_COLUMNS,
    ci_text,
    interval_text,
    rate_text,
    significance_mark,
)
from brag_env.evaluation.stats import Estimate
from brag_env.games import GAMES
from brag_env.io import MAX_JSON_BYTES, FileError, loads_bounded


def estimate(data: Any, what: str) -> Estimate:
    """An ``Estimate`` from its ``to_dict`` (JSON has null for an undefined half-width)."""
    if not isinstance(data, Mapping):
        raise ValueError(f"{what} is not an estimate (mean, half_width, n)")

    def number(key: str) -> float:
        value = data.get(key)
        if value is None:
            return math.nan
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{what}: {key} must be a number, got {value!r}")
        return float(value)

    n = data.get("n")
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"{what}: n must be a count, got {n!r}")
    units = data.get("units", n)
    units = units if isinstance(units, int) and not isinstance(units, bool) else n
    return Estimate(
        number("mean"), number("half_width"), n, number("std"), number("confidence"), units
    )


def heat(value: float | None, scale: float) -> str:
    """A cell's background: green for a gain, red for a loss, paler towards 0."""
    if value is None or not math.isfinite(value) or scale <= 0:
        return "transparent"
    strength = min(1.0, abs(value) / scale)
    hue = 130 if value >= 0 else 0
    return f"hsl({hue}, 60%, {95 - 40 * strength:.0f}%)"


def _list(report: Mapping[str, Any], key: str) -> list[Any]:
    value = report.get(key)
    if not isinstance(value, list):
        raise ValueError(f"the report has no list {key!r}: is it a report that evaluate.py wrote?")
    return value


def tournament(report: Mapping[str, Any]) -> dict[str, Any]:
    game = report.get("game")
    agents = _list(report, "agents")
    spec = GAMES.get(game) if isinstance(game, str) else None
    put = spec is not None and spec.matches  # the match win rate is the headline
    rows, seats, behaviour = [], [], []
    scale = 0.0
    for k, agent in enumerate(agents):
        if not isinstance(agent, Mapping):
            raise ValueError(f"agent {k} of the report is not an object")
        label = str(agent.get("label", agent.get("spec", f"agent {k}")))
        metrics = agent.get("metrics") or {}
        if put and "match_win" in metrics:
            wins = estimate(metrics["match_win"], f"agent {k} match_win")
            points = estimate(metrics.get("points_per_hand"), f"agent {k} points_per_hand")
            cells = [
                ci_text(wins, 1, percent=True),
                interval_text(wins, 1, percent=True),
                ci_text(points, 2),
            ]
            n = wins.n
        else:
            payoff = estimate(agent.get("payoff"), f"agent {k} payoff")
            cells = [ci_text(payoff), interval_text(payoff)]
            n = payoff.n
        rows.append({"index": k, "label": label, "cells": cells, "n": n})
        by_seat = agent.get("seat_payoff") or []
        seats.append({"label": label, "values": by_seat})
        scale = max([scale] + [abs(v) for v in by_seat if isinstance(v, int | float)])
    for seat_row in seats:
        seat_row["cells"] = [
            {"text": "-" if v is None else f"{v:+.2f}", "colour": heat(v, scale)}
            for v in seat_row.pop("values")
        ]
    for key, title in BEHAVIOUR_COLUMNS.get(str(game), []):
        values = [(a.get("behaviour") or {}).get(key) for a in agents]
        if all(v is None for v in values):
            continue
        behaviour.append(
            {
                "title": title,
                "cells": [rate_text(v, key) if isinstance(v, int | float) else "-" for v in values],
            }
        )
    if put and rows and len(rows[0]["cells"]) == 3:
        columns = ["match wins ± 95% CI", "95% CI", "points/hand ± CI"]
    else:
        columns = [f"{report.get('payoff_unit', 'payoff')} ± 95% CI", "95% CI"]
    return {
        "kind": "tournament",
        "game": game,
        "columns": columns,
        "rows": rows,
        "seats": seats,
        "num_seats": max((len(s["cells"]) for s in seats), default=0),
        "behaviour": behaviour,
        "labels": [r["label"] for r in rows],
        "note": report.get("ci_method"),
        "samples": report.get("samples_per_agent"),
        "unit": report.get("sample_unit"),
        "seed": report.get("seed"),
    }


def round_robin(report: Mapping[str, Any]) -> dict[str, Any]:
    labels = [str(x) for x in _list(report, "labels")]
    matrix = _list(report, "matrix")
    if len(matrix) != len(labels) or any(
        not isinstance(row, list) or len(row) != len(labels) for row in matrix
    ):
        raise ValueError("the round-robin matrix is not one row and one column per agent")
    estimates = [
        [
            None if cell is None else estimate(cell, f"matrix[{i}][{j}]")
            for j, cell in enumerate(row)
        ]
        for i, row in enumerate(matrix)
    ]
    scale = max(
        [abs(e.mean) for row in estimates for e in row if e is not None and math.isfinite(e.mean)]
        or [0.0]
    )
    rows = []
    for i, row in enumerate(estimates):
        cells = []
        for e in row:
            if e is None or e.n == 0:
                cells.append({"text": "-", "ci": "", "colour": "transparent"})
            else:
                cells.append(
                    {
                        "text": f"{e.mean:+.2f}{significance_mark(e)}",
                        "ci": interval_text(e, 2),
                        "n": e.n,
                        "colour": heat(e.mean, scale),
                    }
                )
        mean = (report.get("mean_vs_pool") or [None] * len(labels))[i]
        rows.append(
            {"label": labels[i], "cells": cells, "mean": "-" if mean is None else f"{mean:+.2f}"}
        )
    return {
        "kind": "round_robin",
        "game": report.get("game"),
        "labels": labels,
        "rows": rows,
        "definition": report.get("definition"),
        "table_size": report.get("table_size"),
    }


def read_report(raw: bytes | str, name: str) -> dict[str, Any]:
    """The page's view of a report file; ``ValueError`` (one line) for anything else."""
    try:
        report = loads_bounded(raw, name, MAX_JSON_BYTES)
    except FileError as error:
        raise ValueError(str(error)) from None
    if not isinstance(report, Mapping):
        raise ValueError(f"{name} is not a report that evaluate.py wrote (not a JSON object)")
    try:
        if "matrix" in report:
            return round_robin(report)
        return tournament(report)
    except (TypeError, KeyError, AttributeError) as error:
        raise ValueError(f"{name} is not a report that evaluate.py wrote ({error})") from None
