"""Golden trajectories of ``brag_v0``: record them once, then prove v0 never changes (issue 11).

``python -m tests.brag_v0_golden --write`` recorded ``tests/fixtures/brag_v0_golden.json`` from
the engine as it was before covering the pot (B16) and carried pots (B15) were built, so that
figures measured on ``brag_v0`` stay reproducible. Each game is a seeded random play of
``brag_v0.env()``; its digest covers, at every step, the acting agent, its observation vector
and action mask, every agent's reward, termination and truncation flags, and the action taken.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

FIXTURE = Path(__file__).with_name("fixtures") / "brag_v0_golden.json"

# (options, number of seeded games): 2, 4 and 8 players, single hands and sessions.
CASES: list[tuple[dict[str, Any], int]] = [
    ({"num_players": 2}, 60),
    ({"num_players": 4}, 60),
    ({"num_players": 8}, 30),
    ({"num_players": 2, "hands_per_session": 20, "starting_chips": 40}, 40),
    ({"num_players": 4, "hands_per_session": 10, "starting_chips": 30}, 40),
    (
        {
            "num_players": 8,
            "hands_per_session": 6,
            "starting_chips": 20,
            "ante_mode": "after_prial",
        },
        20,
    ),
    ({"num_players": 3, "hands_per_session": 12, "raise_sizes": [2, 3], "prial_bonus": 3}, 30),
    ({"num_players": 4, "hands_per_session": 8, "allow_blind": False, "shuffle": "every_hand"}, 20),
]


def trajectory_digest(env_module: Any, options: dict[str, Any], seed: int) -> tuple[str, int]:
    """sha256 of one seeded random game of ``env_module.env(**options)`` and its step count."""
    env = env_module.env(**options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    h = hashlib.sha256()
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        h.update(agent.encode())
        h.update(np.asarray(obs["observation"], dtype=np.float32).tobytes())
        h.update(np.asarray(obs["action_mask"], dtype=np.int8).tobytes())
        for a in env.possible_agents:
            h.update(np.float64(env.rewards.get(a, 0.0)).tobytes())
            h.update(bytes([env.terminations.get(a, True), env.truncations.get(a, True)]))
        if term or trunc:
            action = None
        else:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(rng.choice(legal))
        h.update(b"-" if action is None else bytes([action]))
        env.step(action)
        steps += 1
    env.close()
    return h.hexdigest(), steps


def record() -> dict[str, Any]:
    from brag_env import brag_v0

    games = []
    for options, count in CASES:
        for seed in range(count):
            digest, steps = trajectory_digest(brag_v0, options, seed)
            games.append({"options": options, "seed": seed, "steps": steps, "sha256": digest})
    return {"env": "brag_v0", "games": games}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="(re)write the fixture")
    parser.add_argument("--force", action="store_true", help="overwrite an existing fixture")
    args = parser.parse_args()
    data = record()
    if args.write:
        if FIXTURE.exists() and not args.force:
            raise SystemExit(f"{FIXTURE} exists: pass --force to overwrite it")
        tmp = FIXTURE.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1) + "\n")
        tmp.replace(FIXTURE)
    print(f"{len(data['games'])} games, {sum(g['steps'] for g in data['games'])} steps")


if __name__ == "__main__":
    main()
