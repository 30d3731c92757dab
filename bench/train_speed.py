"""Learner steps/s of train.py's ``learn()``: ``vec_env: dummy`` against ``vec_env: batched``.

    python bench/train_speed.py                                   # configs/put_ppo.yaml
    python bench/train_speed.py --steps 40960 --batched n_envs=256 ppo.n_steps=8
    python bench/train_speed.py --batched n_envs=256 ppo.n_steps=8 --batched n_envs=1024 ...

Both variants build the venv and the model exactly as train.py does (``make_vec_env``,
``build_model``) and run ``model.learn(steps)`` with no evaluation or checkpoints. The batched
variants take extra ``--batched KEY=VALUE`` overrides, one flag per variant (more tables, since
a batched step costs about the same for 16 tables as for 256). Where the time goes:
``collect_rollouts`` (env and rollout forward passes) and ``train`` (PPO updates) are timed
inside ``learn``; the env alone is timed after, stepping the same venv with uniform legal
learner actions for as many steps. Process CPU time; the machine's load average is printed
with the table.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from brag_env.training.cli import build_model  # noqa: E402
from brag_env.training.config import load_config  # noqa: E402
from brag_env.training.envs import close_quietly, make_vec_env  # noqa: E402


def run(config: Path, overrides: list[str], steps: int) -> dict[str, float]:
    import torch

    cfg = load_config(config, overrides)
    torch.set_num_threads(cfg.torch_threads)
    venv = make_vec_env(cfg, seed=cfg.seed)
    model = build_model(cfg, venv, seed=cfg.seed)
    spent = {"rollout": 0.0, "update": 0.0}

    def timed(name, fn):
        def wrapper(*args, **kwargs):
            start = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] += time.process_time() - start

        return wrapper

    model.collect_rollouts = timed("rollout", model.collect_rollouts)
    model.train = timed("update", model.train)
    start = time.process_time()
    model.learn(steps)
    total = time.process_time() - start
    done = model.num_timesteps
    # the env alone: uniform legal actions through the same venv
    rng = np.random.default_rng(0)
    venv.reset()
    env_steps = 0
    start = time.process_time()
    while env_steps < done:
        masks = np.stack(venv.env_method("action_masks"))
        u = rng.random(masks.shape[0])
        counts = masks.sum(axis=1)
        pick = (masks.cumsum(axis=1) > (u * counts).astype(int)[:, None]).argmax(axis=1)
        venv.step(pick)
        env_steps += masks.shape[0]
    env_time = time.process_time() - start
    close_quietly(venv)
    return {
        "steps": done,
        "steps_per_s": done / total,
        "rollout": spent["rollout"] / total,
        "update": spent["update"] / total,
        "env_us_per_step": env_time / env_steps * 1e6,
        "learn_us_per_step": total / done * 1e6,
        "n_envs": cfg.n_envs,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(ROOT / "configs" / "put_ppo.yaml"))
    parser.add_argument("--steps", type=int, default=40_960)
    parser.add_argument(
        "--batched",
        nargs="*",
        action="append",
        metavar="KEY=VALUE",
        help="overrides of one batched variant; repeat the flag to compare several in one run",
    )
    args = parser.parse_args(argv)
    variants = args.batched or [["n_envs=256", "ppo.n_steps=8"]]
    rows = {"dummy": run(Path(args.config), ["vec_env=dummy"], args.steps)}
    for k, overrides in enumerate(variants, 1):
        rows[f"batched{k}"] = run(Path(args.config), ["vec_env=batched", *overrides], args.steps)
    print(f"config {Path(args.config).name}")
    for k, overrides in enumerate(variants, 1):
        print(f"batched{k}: {' '.join(overrides)}")
    print(f"load average {os.getloadavg()[0]:.1f}")
    head = f"{'vec_env':<9} {'n_envs':>6} {'steps':>7} {'steps/s':>8} {'env us/step':>12}"
    print(head + f" {'learn us/step':>14} {'rollout':>8} {'update':>7} {'/ dummy':>8}")
    base = rows["dummy"]["steps_per_s"]
    for name, r in rows.items():
        print(
            f"{name:<9} {r['n_envs']:>6} {r['steps']:>7} {r['steps_per_s']:>8.0f} "
            f"{r['env_us_per_step']:>12.1f} {r['learn_us_per_step']:>14.1f} "
            f"{r['rollout']:>8.0%} {r['update']:>7.0%} {r['steps_per_s'] / base:>7.2f}x"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
