"""put_v0 stays the original Put: seeded random matches replayed against digests recorded
before put_v1 existed (actions, masks, every agent's observation, rewards, the ansi render).

Regenerate only for a deliberate change of put_v0 (which must then become a new version):
``python tests/test_put_v0_golden.py --force``.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from brag_env import put_v0

FIXTURE = Path(__file__).parent / "fixtures" / "put_v0_golden.json"
CASES = [
    (n, reward, seed) for n in (2, 3, 4) for reward in ("match", "points") for seed in range(4)
]


def trajectory(num_players: int, reward: str, seed: int) -> dict:
    """Digest of one seeded match of random legal play (the action picker has its own seed)."""
    env = put_v0.raw_env(num_players=num_players, reward=reward, render_mode="ansi")
    env.reset(seed=seed)
    pick = np.random.default_rng(10_000 + seed)
    digest = hashlib.sha256()
    actions: list[int] = []
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        totals[agent] += rew
        for other in env.possible_agents:
            seen = env.observe(other)
            digest.update(seen["observation"].tobytes())
            digest.update(seen["action_mask"].tobytes())
        digest.update(repr(sorted(env.rewards.items())).encode())
        if term or trunc:
            env.step(None)
            continue
        digest.update(env.render().encode())
        legal = np.flatnonzero(obs["action_mask"])
        action = int(legal[int(pick.random() * legal.size)])
        actions.append(action)
        env.step(action)
    return {
        "steps": len(actions),
        "actions_sha256": hashlib.sha256(bytes(actions)).hexdigest(),
        "stream_sha256": digest.hexdigest(),
        "returns": [totals[a] for a in env.possible_agents],
    }


def _key(num_players: int, reward: str, seed: int) -> str:
    return f"{num_players}p-{reward}-{seed}"


@pytest.mark.parametrize(("num_players", "reward", "seed"), CASES)
def test_put_v0_bit_identical_to_recorded(num_players, reward, seed):
    golden = json.loads(FIXTURE.read_text())
    assert trajectory(num_players, reward, seed) == golden[_key(num_players, reward, seed)]


if __name__ == "__main__":
    if FIXTURE.exists() and "--force" not in sys.argv:
        sys.exit(f"{FIXTURE} exists; pass --force to overwrite it")
    data = {_key(*case): trajectory(*case) for case in CASES}
    tmp = FIXTURE.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(FIXTURE)
