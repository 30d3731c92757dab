"""Evaluation of the learner against the baselines, through the evaluator ``evaluate.py`` uses.

Each opponent spec gets one table: the learner (a saved model file, as an agent spec) against
``num_players - 1`` copies of it, seats rotating (``brag_env.evaluation.run_headsup``). The numbers
are therefore the ones ``evaluate.py`` prints: Brag, the mean payoff per hand in antes; Put, the
match win rate; each with its 95% confidence interval.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from brag_env.evaluation import run_headsup


def evaluate_model(
    game: str,
    model_path: str | Path,
    opponents: Sequence[str],
    episodes: int,
    seed: int,
    env_config: dict[str, Any],
    deterministic: bool = False,
) -> list[dict[str, Any]]:
    """One result dict per opponent: ``opponent, metric, mean, ci_low, ci_high, n, seconds``."""
    spec = f"{model_path}:deterministic=true" if deterministic else str(model_path)
    results = []
    for opponent in opponents:
        start = time.perf_counter()
        result = run_headsup(game, spec, opponent, episodes, seed=seed, env_config=env_config)
        result["opponent"] = opponent
        result["seconds"] = round(time.perf_counter() - start, 2)
        results.append(result)
    return results


def beats(result: dict[str, Any], game: str) -> bool:
    """Whether the whole 95% interval is on the winning side (payoff > 0, win rate > 50%)."""
    return result["ci_low"] > (0.5 if game == "put" else 0.0)


def format_short(results: Sequence[dict[str, Any]], game: str) -> str:
    """One line: mean and 95% CI half-width per opponent, ``random +0.41±0.09 | ...``."""
    if game == "put":
        return " | ".join(
            f"{r['opponent']} {100 * r['mean']:.0f}%±{50 * (r['ci_high'] - r['ci_low']):.0f}"
            for r in results
        )
    return " | ".join(
        f"{r['opponent']} {r['mean']:+.2f}±{(r['ci_high'] - r['ci_low']) / 2:.2f}" for r in results
    )


def format_table(results: Sequence[dict[str, Any]], game: str, title: str) -> str:
    """A small fixed-width table, one row per opponent."""
    unit = "match win rate" if game == "put" else "payoff, antes/hand"
    lines = [title, f"  {'opponent':<20} {unit:>20}   95% CI                 n  beats"]
    for r in results:
        if game == "put":
            mean = f"{100 * r['mean']:.1f}%"
            ci = f"[{100 * r['ci_low']:.1f}%, {100 * r['ci_high']:.1f}%]"
        else:
            mean = f"{r['mean']:+.3f}"
            ci = f"[{r['ci_low']:+.3f}, {r['ci_high']:+.3f}]"
        mark = "yes" if beats(r, game) else "no"
        lines.append(f"  {r['opponent']:<20} {mean:>20}   {ci:<20} {r['n']:>6}  {mark}")
    return "\n".join(lines)


def format_final(results: Sequence[dict[str, Any]], game: str, seed: int) -> str:
    """The final evaluation's table, titled with the episodes played per opponent (the
    evaluator plays whole seat rotations, so n may exceed the number asked for)."""
    counts = sorted({int(r["n"]) for r in results})
    n = str(counts[0]) if len(counts) == 1 else "-".join(map(str, (counts[0], counts[-1])))
    unit = "matches" if game == "put" else "hands"
    return format_table(results, game, f"final evaluation, seed {seed} ({n} {unit} per opponent):")
