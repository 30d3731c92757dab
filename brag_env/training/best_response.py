"""The report of a learned best response (``br.target``): a lower bound on the target's
exploitability.

A best response is the most a player can gain against a fixed opponent. Training a fresh learner
against the frozen target alone finds *a* response, rarely the best one, so its payoff against
the target is a lower bound on the target's exploitability: the exact figure is at least the
learner's true mean, and that mean is at least the low end of its 95% interval (with 97.5%
confidence). In a zero-sum game with rotating seats the target's own payoff against copies of
itself is 0, so the learner's payoff is the gain.

- Brag: antes per hand, the learner in one seat, the target in every other (``run_headsup``).
- Put: points per hand (the env's ``reward="points"`` split of ``put_stats``) and the match
  win rate. Heads-up the bound is the mean of the points per hand as non-dealer and as dealer,
  each over the hands the learner played in that role: the same average of the two seats as the
  exact exploitability of ``python -m brag_env.exploit`` (docs/solver.md), which a plain mean
  over hands would only approach, since a match need not deal both roles equally often.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from brag_env.evaluation import run_headsup, run_tournament
from brag_env.evaluation.games import PutAdapter
from brag_env.evaluation.put_stats import PutCollector
from brag_env.evaluation.runner import unit_totals
from brag_env.evaluation.stats import Estimate, ratio_ci, z_value
from brag_env.games import game_spec

ROLES = ("non_dealer", "dealer")


class _RoleCollector(PutCollector):
    """``PutCollector`` that also keeps agent 0's points per hand by role, heads-up."""

    def __init__(self, env: Any, num_agents: int) -> None:
        super().__init__(env, num_agents)
        self.role_hands: list[tuple[int, int, float]] = []  # (match group, role, points)

    def _end_hand(self, game: Any, record: Any) -> None:
        super()._end_hand(game, record)
        episode = self._episode
        assert episode is not None
        if game.n != 2:  # dealer and non-dealer are the two roles of a heads-up hand only
            return
        _, unit, points = record.result
        seat = episode.seats.index(0)
        value = 0.0 if unit < 0 else float(points) if game.unit_of[seat] == unit else -float(points)
        self.role_hands.append((episode.group, int(seat == record.dealer), value))


class _RoleAdapter(PutAdapter):
    """Put, heads-up, with the collector above; ``last`` is the collector of the last run."""

    last: _RoleCollector | None = None

    def collector(self, env: Any, num_agents: int) -> _RoleCollector:
        self.last = _RoleCollector(env, num_agents)
        return self.last


def role_balanced(hands: list[tuple[int, int, float]], confidence: float = 0.95) -> Estimate:
    """(mean as non-dealer + mean as dealer) / 2, each a ratio over the matches, with the
    delta-method CI over matches (the two means share matches, so they are not independent:
    each match contributes its linearised residual of both)."""
    if not hands:
        return Estimate(math.nan, math.nan, 0, math.nan, confidence, 0)
    groups = np.array([h[0] for h in hands], dtype=np.int64)
    roles = np.array([h[1] for h in hands], dtype=np.int64)
    values = np.array([h[2] for h in hands], dtype=np.float64)
    units = np.unique(groups)
    index = np.searchsorted(units, groups)
    residual = np.zeros(units.size)
    mean = 0.0
    for role in (0, 1):
        pick = roles == role
        if not pick.any():
            return Estimate(math.nan, math.nan, int(values.size), math.nan, confidence, units.size)
        sums = np.bincount(index[pick], weights=values[pick], minlength=units.size)
        counts = np.bincount(index[pick], minlength=units.size).astype(np.float64)
        r = float(sums.sum() / counts.sum())
        mean += r / 2
        residual += (sums - r * counts) / counts.mean() / 2
    k = int(units.size)
    if k < 2:
        return Estimate(mean, math.nan, int(values.size), math.nan, confidence, k)
    std = math.sqrt(float(residual @ residual) / (k - 1))
    return Estimate(
        mean, z_value(confidence) * std / math.sqrt(k), int(values.size), std, confidence, k
    )


def _figure(estimate: Estimate, unit: str) -> dict[str, Any]:
    return {
        "mean": estimate.mean,
        "ci_low": estimate.low,
        "ci_high": estimate.high,
        "n": estimate.n,
        "unit": unit,
    }


def best_response_report(
    game: str,
    model_path: str,
    target: str,
    episodes: int,
    seed: int,
    env_config: dict[str, Any],
    deterministic: bool = False,
) -> dict[str, Any]:
    """The learner (``model_path``) against the target in every other seat: ``bound`` is the
    lower bound on the target's exploitability, ``figures`` every number measured."""
    start = time.perf_counter()
    spec = f"{model_path}:deterministic=true" if deterministic else str(model_path)
    rules = game_spec(game)
    num_players = int(env_config.get("num_players", rules.default_num_players))
    figures: dict[str, dict[str, Any]] = {}
    if not rules.matches:  # the payoff per hand is the bound
        r = run_headsup(game, spec, target, episodes, seed=seed, env_config=env_config)
        figures["payoff"] = {k: r[k] for k in ("mean", "ci_low", "ci_high", "n")}
        figures["payoff"]["unit"] = rules.payoff_unit
        bound_key = "payoff"
    else:
        adapter = _RoleAdapter()
        options = {k: v for k, v in env_config.items() if k != "num_players"}
        result = run_tournament(
            adapter,
            [spec] + [target] * (num_players - 1),
            episodes,
            seed,
            options={**options, "num_players": num_players},
        )
        learner = result.agents[0]
        figures["points_per_hand"] = _figure(learner.metrics["points_per_hand"], "points/hand")
        figures["match_win_rate"] = _figure(learner.metrics["match_win"], "share of matches")
        bound_key = "points_per_hand"
        if num_players == 2:
            hands = adapter.last.role_hands if adapter.last else []
            for role in (0, 1):
                picked = [h for h in hands if h[1] == role]
                sums, counts = unit_totals([h[0] for h in picked], [h[2] for h in picked])
                figures[f"points_per_hand_{ROLES[role]}"] = _figure(
                    ratio_ci(sums, counts), "points/hand"
                )
            figures["points_per_hand_role_balanced"] = _figure(role_balanced(hands), "points/hand")
            bound_key = "points_per_hand_role_balanced"
    bound = figures[bound_key]
    unit = bound["unit"]
    return {
        "target": target,
        "game": game,
        "num_players": num_players,
        "learner": str(model_path),
        "seed": seed,
        "label": f"lower bound on the exploitability of {target} ({unit}): the learner's mean "
        f"against it with its 95% CI",
        "bound_metric": bound_key,
        "bound": bound,
        "figures": figures,
        "seconds": round(time.perf_counter() - start, 2),
    }


def target_result(report: dict[str, Any], game: str) -> dict[str, Any]:
    """The report as a row of the final evaluation (``evaluate_model``'s result shape): Brag
    the payoff per hand, Put the match win rate, as for every other opponent."""
    rules = game_spec(game)
    f = report["figures"]["match_win_rate" if rules.matches else "payoff"]
    metric = "match win rate" if rules.matches else f"payoff ({rules.payoff_unit})"
    row = {"metric": metric, **{k: f[k] for k in ("mean", "ci_low", "ci_high", "n")}}
    return {**row, "opponent": report["target"], "seconds": report["seconds"]}


def _text(f: dict[str, Any]) -> str:
    if f["unit"] == "share of matches":
        return (
            f"{100 * f['mean']:.1f}% [95% CI {100 * f['ci_low']:.1f}%, {100 * f['ci_high']:.1f}%]"
        )
    return f"{f['mean']:+.4f} {f['unit']} [95% CI {f['ci_low']:+.4f}, {f['ci_high']:+.4f}]"


def format_report(report: dict[str, Any]) -> str:
    """A few lines for the terminal: the labelled bound first, then every figure."""
    bound = report["bound"]
    lines = [
        f"learned best response to {report['target']} ({report['game']}, "
        f"{report['num_players']} players, evaluation seed {report['seed']}):",
        f"  lower bound on the exploitability of {report['target']}: {_text(bound)}, "
        f"n={bound['n']} ({report['bound_metric'].replace('_', ' ')}; below 0 it bounds nothing)",
    ]
    for key, f in report["figures"].items():
        lines.append(f"  {key.replace('_', ' ')}: {_text(f)}, n={f['n']}")
    return "\n".join(lines)
