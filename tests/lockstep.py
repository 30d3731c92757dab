"""Step a scalar ``VsPoolEnv`` and a one-table ``BatchedSelfPlayVecEnv`` side by side."""

from __future__ import annotations

from typing import Any

import numpy as np


def play_lockstep(scalar: Any, venv: Any, steps: int) -> int:
    """Play ``steps`` learner moves (the middle legal action) in both envs, which must agree on
    observations, masks, rewards, episode ends, terminal observations and the learner's seat;
    returns the episodes finished. ``venv`` must deal the scalar env's cards (a mirrored engine)."""
    obs_s, _ = scalar.reset()
    obs_b = venv.reset()
    episodes = 0
    for _ in range(steps):
        assert obs_b[0].tobytes() == obs_s.tobytes()
        mask = scalar.action_masks()
        assert np.array_equal(venv.action_masks()[0], mask)
        legal = np.flatnonzero(mask)
        action = int(legal[len(legal) // 2])  # a fixed rule: the middle legal action
        obs_s, reward_s, done_s, _, info = scalar.step(action)
        seat = info["learner_seat"]  # the step's (DummyVecEnv's infos: the finished episode's)
        if done_s:
            final = obs_s
            obs_s, _ = scalar.reset()  # before the batched env deals its next episode
            episodes += 1
        obs_b, reward_b, done_b, infos = venv.step(np.array([action]))
        assert reward_b[0] == np.float32(reward_s) and done_b[0] == done_s
        if done_s:
            assert infos[0]["terminal_observation"].tobytes() == final.tobytes()
        assert infos[0]["learner_seat"] == seat
    return episodes
