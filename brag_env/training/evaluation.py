"""Evaluation of the learner against the baselines, through the evaluator ``evaluate.py`` uses.

Each opponent spec gets one table: the learner (a saved model file, as an agent spec) against
``num_players - 1`` copies of it, seats rotating (``brag_env.evaluation.run_headsup``). The numbers
are therefore the ones ``evaluate.py`` prints: Brag, the mean payoff per hand in antes; Put, the
match win rate; each with its 95% confidence interval.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich import box
from rich.markup import escape
from rich.table import Table

from brag_env.evaluation import few_sessions_warning, run_headsup
from brag_env.evaluation.batched import run_headsup_batched, supports_headsup_batched
from brag_env.games import game_spec


def evaluate_model(
    game: str,
    model_path: str | Path,
    opponents: Sequence[str],
    episodes: int,
    seed: int,
    env_config: dict[str, Any],
    deterministic: bool = False,
    batched: bool = False,
) -> list[dict[str, Any]]:
    """One result dict per opponent: ``opponent, metric, mean, ci_low, ci_high, n, seconds``.

    ``batched``: play each opponent's matches on the batched engine when it supports them
    (``brag_env.evaluation.batched``: heads-up Put, Three-card Brag), else as usual.
    """
    spec = f"{model_path}:deterministic=true" if deterministic else str(model_path)
    results = []
    for opponent in opponents:
        start = time.perf_counter()
        if batched and supports_headsup_batched(game, [spec, opponent], env_config):
            result = run_headsup_batched(spec, opponent, episodes, seed, env_config, game)
        else:
            result = run_headsup(game, spec, opponent, episodes, seed=seed, env_config=env_config)
        result["opponent"] = opponent
        result["seconds"] = round(time.perf_counter() - start, 2)
        results.append(result)
    return results


def beats(result: dict[str, Any], game: str) -> bool:
    """Whether the whole 95% interval is on the winning side (payoff > 0, win rate > 50%)."""
    return result["ci_low"] > (0.5 if game_spec(game).matches else 0.0)


def format_short(results: Sequence[dict[str, Any]], game: str) -> str:
    """One line: mean and 95% CI half-width per opponent, ``random +0.41±0.09 | ...``."""
    if game_spec(game).matches:
        return " | ".join(
            f"{r['opponent']} {100 * r['mean']:.0f}%±{50 * (r['ci_high'] - r['ci_low']):.0f}"
            for r in results
        )
    return " | ".join(
        f"{r['opponent']} {r['mean']:+.2f}±{(r['ci_high'] - r['ci_low']) / 2:.2f}" for r in results
    )


def final_table(results: Sequence[dict[str, Any]], game: str) -> Table:
    """A rich table, one row per opponent, aligned like ``evaluate.py``'s report."""
    spec = game_spec(game)
    put = spec.matches
    table = Table(box=box.SIMPLE_HEAD, caption="beats = the whole 95% CI on the winning side")
    table.add_column("opponent", style="bold", no_wrap=True)
    payoff = f"payoff, {spec.payoff_unit}"
    table.add_column("match win rate" if put else payoff, justify="right")
    table.add_column("95% CI", justify="right", no_wrap=True)
    table.add_column("n", justify="right")
    table.add_column("beats", justify="center")
    for r in results:
        if put:
            mean = f"{100 * r['mean']:.1f}%"
            ci = f"[{100 * r['ci_low']:.1f}%, {100 * r['ci_high']:.1f}%]"
        else:
            mean = f"{r['mean']:+.3f}"
            ci = f"[{r['ci_low']:+.3f}, {r['ci_high']:+.3f}]"
        table.add_row(
            escape(str(r["opponent"])), mean, ci, str(r["n"]), "yes" if beats(r, game) else "no"
        )
    return table


def print_final(
    results: Sequence[dict[str, Any]],
    game: str,
    seed: int,
    episodes: int | None = None,
    env_config: dict[str, Any] | None = None,
) -> None:
    """The final evaluation's header and rich table, for every training backend. The evaluator
    plays whole seat rotations, so n may exceed the number of episodes asked for. Given the
    ``episodes`` asked for, a Seven-card Brag table resting on too few sessions gets a
    one-line warning on stderr (``few_sessions_warning``)."""
    from rich.console import Console

    counts = sorted({int(r["n"]) for r in results})
    n = str(counts[0]) if len(counts) == 1 else "-".join(map(str, (counts[0], counts[-1])))
    unit = game_spec(game).samples
    print(f"final evaluation, seed {seed} ({n} {unit} per opponent):")
    Console(soft_wrap=False).print(final_table(results, game))
    few_sessions = episodes and few_sessions_warning(game, episodes, env_config)
    if few_sessions:
        print(f"warning: {few_sessions}", file=sys.stderr)
