"""Learner steps per second: train.py's RLlib backend with 1, 2, 4 env runners next to SB3.

    .ci/rllib_venv.sh /tmp/rllib-venv          # Ray lives in its own venv (docs/rllib.md)
    nice /tmp/rllib-venv/bin/python bench/rllib_throughput.py --runners 1 2 4 --iterations 3

A learner step is one decision of the learner (what ``total_timesteps`` counts). Each backend
runs one warm-up iteration (RLlib: one ``algo.train()``; SB3: one rollout + update), then
``--iterations`` timed ones, sampling and PPO update included, evaluation and checkpoints
excluded. RLlib runs on a local Ray started here with as many CPUs as env runners, unless
``RAY_ADDRESS`` names a cluster. Prints a Markdown table and the load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def rllib_rate(config: Path, runners: int, iterations: int) -> tuple[float, int]:
    from brag_env.selfplay import make_aec_env
    from brag_env.training.config import load_config
    from brag_env.training.rllib_backend import build_algo_config, connect, learner_steps

    cfg = load_config(config, ["backend=rllib", f"rllib.num_env_runners={runners}"])
    players = len(make_aec_env(cfg.game, cfg.env).possible_agents)
    ray = connect(cfg)
    try:
        algo = build_algo_config(cfg, players).build_algo()
        try:
            algo.train()
            steps = 0
            start = time.perf_counter()
            for _ in range(iterations):
                steps += learner_steps(algo.train())
            seconds = time.perf_counter() - start
        finally:
            algo.stop()
    finally:
        ray.shutdown()
    return steps / seconds, steps


def sb3_rate(config: Path, iterations: int) -> tuple[float, int]:
    import torch

    import train
    from brag_env.training.config import load_config
    from brag_env.training.envs import close_quietly, make_vec_env

    cfg = load_config(config, ["backend=sb3"])
    torch.set_num_threads(cfg.torch_threads)
    venv = make_vec_env(cfg, seed=cfg.seed)
    try:
        model = train.build_model(cfg, venv, seed=cfg.seed)
        model.learn(cfg.rollout_steps, reset_num_timesteps=False)
        before = model.num_timesteps
        start = time.perf_counter()
        for _ in range(iterations):
            model.learn(cfg.rollout_steps, reset_num_timesteps=False)
        seconds = time.perf_counter() - start
    finally:
        close_quietly(venv)
    return (model.num_timesteps - before) / seconds, model.num_timesteps - before


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", type=Path, default=ROOT / "configs" / "put_ppo.yaml")
    p.add_argument("--runners", type=int, nargs="+", default=[1, 2, 4])
    p.add_argument("--iterations", type=int, default=3)
    p.add_argument("--no-sb3", action="store_true", help="skip the SB3 row")
    args = p.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    rows = []
    if not args.no_sb3:
        rate, steps = sb3_rate(args.config, args.iterations)
        rows.append(("SB3 MaskablePPO, 1 process (n_envs dummy envs)", rate, steps))
    for n in args.runners:
        rate, steps = rllib_rate(args.config, n, args.iterations)
        rows.append((f"RLlib PPO, {n} env runner(s)", rate, steps))
    print(f"config {args.config.name}, {args.iterations} timed iterations after one warm-up")
    print("| backend | learner steps/s | learner steps timed |")
    print("|---|---:|---:|")
    for name, rate, steps in rows:
        print(f"| {name} | {rate:,.0f} | {steps:,} |")
    print(f"load average (1, 5, 15 min) at the end: {os.getloadavg()}, {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
