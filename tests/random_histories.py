"""Test helpers: the hand histories of a match of random legal play, as the play and evaluate
commands write them, and a copy of a record with one nested entry replaced."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np


def random_histories(env: Any, seed: int, game: str, **fields: Any) -> list[dict]:
    """Play one episode of ``env`` (reset with ``seed``) by uniformly random legal actions drawn
    from ``default_rng(seed)``; its hand histories, each led by game, episode 0, reset_seed
    and ``fields``."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for agent in env.agent_iter():
        _, _, done, cut, _ = env.last(observe=False)
        if done or cut:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    info = {"game": game, "episode": 0, "reset_seed": seed, **fields}
    return [{**info, **h} for h in env.hand_histories()]


def replaced(record: dict, path: tuple, value: Any) -> dict:
    """A deep copy of ``record`` whose entry at ``path`` (keys and indices) is ``value``."""
    record = copy.deepcopy(record)
    node = record
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return record
