"""Microseconds per decision of each game's baselines and of a snapshot ``ModelAgent``.

    python bench/agent_speed.py                 # 20,000 recorded decisions per agent
    python bench/agent_speed.py --decisions 5000

The decisions are recorded first (observation vector and mask of every turn of random
self-play heads-up in each game's default env of the game table, the one its shipped models
play: brag_v1, put_v1, brag7_v0), then each agent's ``act()`` is timed over all of them
(process CPU time). The model is an untrained MaskablePPO
``[128, 128]`` tanh MLP (the training configs' shape): its cost does not depend on its weights.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import make_agent, table_info_from_env
from brag_env.games import GAME_NAMES, game_spec


class Timed(NamedTuple):
    """The baselines of one game timed besides the model: the cheap rule-based ones a pool or
    a table plays (the equilibrium agents' solves and the test-only planted ones left out)."""

    game: str  # a name of the game table (brag_env/games.py)
    baselines: tuple[str, ...]


#: Every game with timed baselines; the rows follow the game table's order.
TIMED: dict[str, Timed] = {
    game_spec(timed.game).name: timed  # a name the table does not know fails here
    for timed in (
        Timed("put", ("random", "put:greedy", "put:caller", "put:bluffer")),
        Timed("brag", ("brag:caller", "brag:tight", "brag:bluffer")),
        Timed("brag7", ("brag7:strongest_first", "brag7:balanced")),
    )
}


def heads_up_env(game: str):
    """The raw env of the game's default env (the game table's: the one its models play) at
    the smallest table the rules allow, heads-up for every game."""
    spec = game_spec(game)
    module = importlib.import_module(spec.env_module)
    return module.raw_env(num_players=min(spec.num_players))


def record(env, decisions: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(observation, mask) of every decision of random play, ``decisions`` of them."""
    rng = np.random.default_rng(seed)
    out: list[tuple[np.ndarray, np.ndarray]] = []
    episode = 0
    while len(out) < decisions:
        env.reset(seed=seed + episode)
        episode += 1
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            out.append((obs["observation"].copy(), mask.copy()))
            legal = np.flatnonzero(mask)
            env.step(int(legal[rng.integers(legal.size)]))
    return out[:decisions]


def save_model(game: str, env, folder: Path) -> Path:
    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO

    space = env.observation_space(env.possible_agents[0])["observation"]
    n = env.action_space(env.possible_agents[0]).n

    class Shaped(gym.Env):
        observation_space = gym.spaces.Box(0.0, space.high, space.shape, np.float32)
        action_space = gym.spaces.Discrete(n)

    model = MaskablePPO(
        "MlpPolicy",
        Shaped(),
        policy_kwargs={"net_arch": [128, 128], "activation_fn": torch.nn.Tanh},
        seed=0,
        device="cpu",
    )
    path = folder / f"{game}.zip"
    model.save(path)
    nplayers = len(env.possible_agents)
    (folder / "config.yaml").write_text(f"game: {game}\nenv:\n  num_players: {nplayers}\n")
    return path


def time_agent(agent, samples) -> float:
    agent.reset()
    start = time.process_time()
    for obs, mask in samples:
        agent.act(obs, mask)
    return (time.process_time() - start) / len(samples) * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=20_000)
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    print(f"{'agent':<28} {'us/decision':>12}")
    for game in (name for name in GAME_NAMES if name in TIMED):
        env = heads_up_env(game)
        specs = list(TIMED[game].baselines)
        samples = record(env, args.decisions, 0)
        table = table_info_from_env(env)
        with tempfile.TemporaryDirectory() as tmp:
            specs.append(str(save_model(game, env, Path(tmp))))
            for spec in specs:
                agent = make_agent(spec, table, seed=0)
                label = f"{game}:model" if spec.endswith(".zip") else spec
                print(f"{label:<28} {time_agent(agent, samples):>12.1f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
