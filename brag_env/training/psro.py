"""PSRO for heads-up Put: best responses trained with train.py, added to a population under a
meta-solver, every policy and mix measured exactly (docs/training.md, "PSRO").

    python -m brag_env.training.psro --config configs/put_psro_small.yaml --iterations 8 --out DIR
    python -m brag_env.training.psro --config configs/put_psro_small.yaml --iterations 8 \\
        --out DIR --meta nash --init last --steps 150000

Policy-Space Response Oracles (Lanctot et al., "A Unified Game-Theoretic Approach to Multiagent
Reinforcement Learning", NeurIPS 2017). The population starts with one agent spec (``random``).
Iteration k:

1. the meta-solver gives the population's weights: ``uniform`` (PSRO-uniform, fictitious play
   over policies) or ``nash`` (a Nash equilibrium of the empirical zero-sum game between the
   policies, one small linear programme, scipy's ``linprog``);
2. ``train.py`` trains one learner, fresh or warm-started from the last one (``br.init``),
   against that meta-mix frozen for the whole iteration: ``pool.opponents`` is the list of the
   population's specs, each repeated in proportion to its weight (the pool draws an entry
   uniformly per hand, ``brag_env.selfplay.OpponentPool``), no snapshots;
3. its ``model.zip`` joins the population; the exact payoff of every pair of policies
   (``brag_env.put.solver``: one hand at 0-0, the deal alternating) extends the empirical game;
   the meta-solver's new weights give the mix measured: its exact exploitability (the
   reach-weighted average of the policies, ``diagnose.average``, as ``python -m
   brag_env.exploit put A B ...`` forms it, with these weights) and the newest policy's alone.

``DIR/psro.json`` is rewritten (atomically) after every iteration: the population, the payoff
matrix, the weights and one row per iteration. ``DIR/iter_KK/`` is iteration K's train.py run.
A DIR that holds a PSRO run is refused unless ``--force`` (which starts over).
"""

from __future__ import annotations

import json
import re
import resource
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from brag_env.exploit import agent_profile, model_observation
from brag_env.games import game_spec
from brag_env.put.rules import PutConfig
from brag_env.put.solver.diagnose import average, pair
from brag_env.put.solver.game import HandGame, exploitability
from brag_env.put.solver.passes import expected_values
from brag_env.training.cli import find_config
from brag_env.training.cli import main as train_main
from brag_env.training.config import MAX_SPECS, TrainConfig, load_config
from brag_env.training.files import write_file
from brag_env.ui.cli import OneLineParser, one_line, quiet_on_closed_pipe

PROG = "python -m brag_env.training.psro"
META_SOLVERS = ("uniform", "nash")
INITS = ("fresh", "last")
ITER_DIR = re.compile(r"iter_\d+")


# --- meta-solvers -------------------------------------------------------------------------------


def uniform_weights(payoffs: np.ndarray) -> np.ndarray:
    """PSRO-uniform: every policy alike."""
    n = payoffs.shape[0]
    return np.full(n, 1.0 / n)


def nash_weights(payoffs: np.ndarray) -> np.ndarray:
    """A maximin mix of the symmetric zero-sum game ``payoffs[i, j]`` (the row policy's points
    a hand against the column policy): maximise v subject to sum_i x_i payoffs[i, j] >= v for
    every column j, x a distribution. In a symmetric zero-sum game this is a Nash equilibrium."""
    try:
        from scipy.optimize import linprog
    except ImportError:
        raise ValueError("--meta nash needs scipy (pip install scipy)") from None
    n = payoffs.shape[0]
    # Variables (x_1..x_n, v); linprog minimises, so the objective is -v.
    cost = np.zeros(n + 1)
    cost[-1] = -1.0
    upper = np.hstack([-payoffs.T, np.ones((n, 1))])  # v - x . payoffs[:, j] <= 0
    equal = np.hstack([np.ones((1, n)), np.zeros((1, 1))])
    bounds = [(0.0, None)] * n + [(None, None)]
    result = linprog(cost, A_ub=upper, b_ub=np.zeros(n), A_eq=equal, b_eq=[1.0], bounds=bounds)
    if not result.success:
        raise ValueError(f"the meta-game's linear programme failed: {result.message}")
    x = np.clip(result.x[:n], 0.0, None)
    return x / x.sum()


def meta_weights(meta: str, payoffs: np.ndarray) -> np.ndarray:
    return uniform_weights(payoffs) if meta == "uniform" else nash_weights(payoffs)


def pool_counts(weights: np.ndarray, slots: int) -> np.ndarray:
    """Whole numbers of pool entries, ``slots`` in all, in proportion to ``weights`` (largest
    remainders): the pool draws an entry uniformly, so a policy's share is its count / slots."""
    if slots < 1:
        raise ValueError(f"--pool-slots must be >= 1, got {slots}")
    exact = np.asarray(weights, dtype=float) * slots
    counts = np.floor(exact).astype(int)
    order = np.argsort(-(exact - counts), kind="stable")
    counts[order[: slots - counts.sum()]] += 1
    return counts


def pool_specs(population: list[str], weights: np.ndarray, meta: str, slots: int) -> list[str]:
    """``pool.opponents`` for the meta-mix: uniform lists each policy once, nash repeats each
    in proportion to its weight (policies rounded to no entry are left out)."""
    if meta == "uniform":
        return list(population)
    counts = pool_counts(weights, slots)
    return [spec for spec, count in zip(population, counts, strict=True) for _ in range(count)]


# --- the exact empirical game -------------------------------------------------------------------


class ExactGame:
    """The one-hand Put game at 0-0 of a training table, with the exact strategy of every
    policy added, their pair payoffs and mix exploitabilities (``brag_env.put.solver``)."""

    def __init__(self, env: dict[str, Any]) -> None:
        self.config = PutConfig.from_dict(env)
        self.game = HandGame.build(self.config, (0, 0))
        self.strategies: list[Any] = []

    def add(self, spec: str) -> None:
        config = model_observation([spec], self.config)
        self.strategies.append(agent_profile(spec, config, self.game))

    def value(self, i: int, j: int) -> float:
        """Policy i's expected points a hand against policy j, each dealing half the hands."""

        tree, points = self.game.tree, self.game.points
        s_i, s_j = self.strategies[i], self.strategies[j]
        as_non_dealer = expected_values(tree, pair(tree, s_i, s_j), points)[0]
        as_dealer = expected_values(tree, pair(tree, s_j, s_i), points)[1]
        return (as_non_dealer + as_dealer) / 2

    def payoffs(self, old: np.ndarray) -> np.ndarray:
        """``old`` (the matrix of all but the newest policy) grown by the newest's row and
        column: zero-sum, so the column is minus the row."""
        n = len(self.strategies)
        new = np.zeros((n, n))
        new[: n - 1, : n - 1] = old
        for j in range(n - 1):
            new[n - 1, j] = self.value(n - 1, j)
            new[j, n - 1] = -new[n - 1, j]
        return new

    def measure(self, weights: np.ndarray | None = None, index: int | None = None) -> Any:
        """Exact exploitability (``Exploitability``) of policy ``index``, or of the mix."""

        if index is not None:
            return exploitability(self.game, self.strategies[index])
        kept = [(s, w) for s, w in zip(self.strategies, weights, strict=True) if w > 0]
        mix = average(self.game.tree, [s for s, _ in kept], [w for _, w in kept])
        return exploitability(self.game, mix)


# --- the driver ---------------------------------------------------------------------------------


@dataclass
class Psro:
    config: str
    out: Path
    iterations: int
    meta: str = "uniform"
    init: str = "fresh"
    steps: int | None = None
    seed: int | None = None
    initial: str = "random"
    pool_slots: int = 32
    overrides: list[str] = field(default_factory=list)
    force: bool = False


def check_setup(job: Psro) -> TrainConfig:
    """Everything refused before anything is written: the config and its table, the options,
    a DIR that already holds a PSRO run (without --force)."""
    if job.iterations < 1:
        raise ValueError(f"--iterations must be >= 1, got {job.iterations}")
    if job.meta not in META_SOLVERS:
        raise ValueError(f"--meta must be one of {', '.join(META_SOLVERS)}, got {job.meta!r}")
    if job.init not in INITS:
        raise ValueError(f"--init must be one of {', '.join(INITS)}, got {job.init!r}")
    if job.steps is not None and job.steps < 1:
        raise ValueError(f"--steps must be >= 1, got {job.steps}")
    if not 1 <= job.pool_slots <= MAX_SPECS:  # pool.opponents holds at most 64 specs
        raise ValueError(f"--pool-slots must be between 1 and 64, got {job.pool_slots}")
    if job.meta == "uniform" and job.iterations > MAX_SPECS:  # the last pool: every policy
        raise ValueError(
            f"--meta uniform lists every policy in pool.opponents (at most {MAX_SPECS}): "
            f"--iterations must be <= {MAX_SPECS}, got {job.iterations}"
        )
    cfg = load_config(find_config(job.config), train_overrides(job, [job.initial], None))
    env = cfg.env
    solved = game_spec(cfg.game).exact_solver  # the exact solver's games (today Put)
    if not solved or env.get("num_players", 2) != 2 or env.get("reward") != "points":
        raise ValueError(
            "PSRO is measured by the exact solver: the config must be heads-up Put "
            "(game: put, env.num_players 2) with env.reward: points"
        )
    if cfg.br.target is not None or cfg.pool.snapshot_every:
        raise ValueError(
            "PSRO trains against a frozen meta-mix: the config needs br.target null and "
            "pool.snapshot_every 0"
        )
    if job.out.exists() and not job.out.is_dir():
        raise ValueError(f"--out {job.out} is a file")
    held = job.out.is_dir() and any(
        path.name == "psro.json" or ITER_DIR.fullmatch(path.name) for path in job.out.iterdir()
    )
    if held and not job.force:
        raise ValueError(f"{job.out} already holds a PSRO run: pass --force to start over")
    return cfg


def train_overrides(job: Psro, opponents: list[str], init: str | None) -> list[str]:
    """The ``--set`` items of one iteration's train.py run (after the user's own)."""
    items = list(job.overrides)
    if job.steps is not None:
        items.append(f"total_timesteps={job.steps}")
    items.append(f"pool.opponents={json.dumps(opponents)}")  # JSON is YAML: paths quoted
    items.append(f"br.init={json.dumps(init)}")  # null: fresh weights
    return items


def train_iteration(job: Psro, k: int, opponents: list[str], init: str | None, seed: int) -> Path:
    """Iteration k's learner: one train.py run in DIR/iter_KK, seeded ``seed``; returns its
    model.zip."""
    run_dir = job.out / f"iter_{k:02d}"
    argv = ["--config", job.config, "--out", str(run_dir), "--progress", "off"]
    argv += ["--seed", str(seed)]
    for item in train_overrides(job, opponents, init):
        argv += ["--set", item]
    status = train_main(argv)
    if status != 0:
        raise RuntimeError(f"iteration {k}: train.py stopped with exit status {status}")
    return run_dir / "model.zip"


def cpu_minutes() -> float:
    """User + system CPU time of this process (train.py runs inside it) in minutes."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return (usage.ru_utime + usage.ru_stime) / 60


def run(job: Psro) -> dict[str, Any]:
    cfg = check_setup(job)
    if job.force and job.out.is_dir():  # start over: only what this driver wrote
        (job.out / "psro.json").unlink(missing_ok=True)
        for path in job.out.iterdir():
            if path.is_dir() and ITER_DIR.fullmatch(path.name):
                shutil.rmtree(path)
    job.out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    game = ExactGame(cfg.env)
    population = [job.initial]
    game.add(job.initial)
    payoffs = np.zeros((1, 1))
    weights = meta_weights(job.meta, payoffs)
    record: dict[str, Any] = {
        "config": job.config,
        "overrides": job.overrides,
        "meta": job.meta,
        "init": job.init,
        "env": cfg.env,
        "rows": [],
    }
    for k in range(1, job.iterations + 1):
        opponents = pool_specs(population, weights, job.meta, job.pool_slots)
        init = population[-1] if job.init == "last" and k > 1 else None
        seed = (cfg.seed if job.seed is None else job.seed) + k - 1  # new deals each iteration
        model = train_iteration(job, k, opponents, init, seed)
        population.append(str(model))
        game.add(str(model))
        payoffs = game.payoffs(payoffs)
        trained_against = weights
        weights = meta_weights(job.meta, payoffs)
        mix = game.measure(weights)
        newest = game.measure(index=len(population) - 1)
        row = {
            "iteration": k,
            "cpu_minutes": round(cpu_minutes(), 2),
            "wall_minutes": round((time.perf_counter() - started) / 60, 2),
            "mix": mix.as_dict(),
            "newest": newest.as_dict(),
            # the newest's points a hand against the mix it trained against (its BR gain)
            "newest_vs_trained_mix": float(payoffs[-1, :-1] @ trained_against),
            "trained_against": [float(w) for w in trained_against],  # nash: before rounding
        }
        record["rows"].append(row)
        record.update(population=population, weights=weights.tolist(), payoffs=payoffs.tolist())
        write_file(job.out / "psro.json", json.dumps(record, indent=1) + "\n")
        print(
            f"{PROG}: iteration {k}: {row['cpu_minutes']:.1f} CPU-min, mix exploitability "
            f"{mix.exploitability:.4f}, newest alone {newest.exploitability:.4f}, newest against "
            f"the mix it trained against {row['newest_vs_trained_mix']:+.4f}",
            flush=True,
        )
    return record


def format_table(record: dict[str, Any]) -> str:
    lines = [
        "| iteration | CPU-min so far | mix exploitability | newest policy alone |",
        "|---:|---:|---:|---:|",
    ]
    for row in record["rows"]:
        lines.append(
            f"| {row['iteration']} | {row['cpu_minutes']:.1f} | "
            f"{row['mix']['exploitability']:.3f} | {row['newest']['exploitability']:.3f} |"
        )
    return "\n".join(lines)


def parse_args(argv: list[str] | None) -> Psro:
    p = OneLineParser(prog=PROG, description=__doc__.split("\n")[0])
    p.add_argument("--config", required=True, help="train.py config (heads-up Put, points)")
    p.add_argument("--out", required=True, help="directory of the PSRO run")
    p.add_argument("--iterations", type=int, required=True, help="learners to train and add")
    p.add_argument("--meta", default="uniform", help="meta-solver: uniform or nash")
    p.add_argument("--init", default="fresh", help="each learner: fresh, or last (br.init)")
    p.add_argument("--steps", type=int, help="learner steps per iteration (the config's else)")
    p.add_argument("--seed", type=int, help="iteration 1's seed (k: + k - 1; default: config's)")
    p.add_argument("--initial", default="random", help="the first policy (an agent spec)")
    p.add_argument("--pool-slots", type=int, default=32, help="nash: pool entries (<= 64)")
    p.add_argument("--set", action="append", default=[], dest="overrides", metavar="KEY=VALUE")
    p.add_argument("--force", action="store_true", help="start over in a DIR holding a run")
    a = p.parse_args(argv)
    return Psro(
        a.config, Path(a.out), a.iterations, a.meta, a.init, a.steps, a.seed, a.initial,
        a.pool_slots, a.overrides, a.force,
    )  # fmt: skip


@quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    job = parse_args(argv)
    try:
        record = run(job)
    except BrokenPipeError:
        raise  # stdout's reader has gone: quiet_on_closed_pipe ends the command
    except (ValueError, RuntimeError, OSError) as error:
        print(f"{PROG}: error: {one_line(error)}", file=sys.stderr)
        return 2
    print(format_table(record))
    return 0


if __name__ == "__main__":
    sys.exit(main())
