"""Step a scalar ``VsPoolEnv`` and a one-table ``BatchedSelfPlayVecEnv`` side by side; play a
VecEnv with random legal learner moves."""

from __future__ import annotations

from typing import Any

import numpy as np

from brag_env.brag.rules import FOLD  # Put's lockstep never folds (fold_every=0)


def play_lockstep(scalar: Any, venv: Any, steps: int, fold_every: int = 0) -> int:
    """Play ``steps`` learner moves (the middle legal action; with ``fold_every`` k, a fold
    where legal at every k-th step) in both envs, which must agree on observations, masks,
    rewards, episode ends, terminal observations and the learner's seat; returns the episodes
    finished. ``venv`` must deal the scalar env's cards (a mirrored engine). An episode that
    ends with the learner's fold at a table of three or more ends at once on the batched side
    (``BatchedBrag.settled``), so its terminal observation is the one after the fold."""
    obs_s, _ = scalar.reset()
    obs_b = venv.reset()
    episodes = 0
    for step in range(steps):
        assert obs_b[0].tobytes() == obs_s.tobytes()
        mask = scalar.action_masks()
        assert np.array_equal(venv.action_masks()[0], mask)
        legal = np.flatnonzero(mask)
        action = int(legal[len(legal) // 2])  # a fixed rule: the middle legal action
        folds = bool(fold_every) and step % fold_every == 0 and bool(mask[FOLD])
        if folds:
            action = FOLD
        obs_s, reward_s, done_s, _, info = scalar.step(action)
        seat = info["learner_seat"]  # the step's (DummyVecEnv's infos: the finished episode's)
        if done_s:
            final = obs_s
            obs_s, _ = scalar.reset()  # before the batched env deals its next episode
            episodes += 1
        obs_b, reward_b, done_b, infos = venv.step(np.array([action]))
        assert reward_b[0] == np.float32(reward_s) and done_b[0] == done_s
        if done_s and not (folds and scalar.num_players > 2):
            assert infos[0]["terminal_observation"].tobytes() == final.tobytes()
        assert infos[0]["learner_seat"] == seat
    return episodes


def play_random(venv: Any, steps: int, seed: int) -> tuple[list, list, list]:
    """Random legal learner play on any SB3 VecEnv with ``action_masks``: the per-step arrays
    (observations, rewards, dones) and the finished episodes' returns and (env, seat)."""
    rng = np.random.default_rng(seed)
    obs = venv.reset()
    trace, returns, seats = [obs.copy()], [], []
    total = np.zeros(venv.num_envs)
    for _ in range(steps):
        masks = venv.env_method("action_masks")
        actions = [int(rng.choice(np.flatnonzero(m))) for m in masks]
        obs, reward, done, infos = venv.step(np.array(actions))
        trace += [obs.copy(), reward.copy(), done.copy()]
        total += reward
        for i in np.flatnonzero(done):
            returns.append(total[i])
            seats.append((i, infos[i]["learner_seat"]))
            total[i] = 0.0
            assert infos[i]["terminal_observation"].shape == obs[i].shape
    return trace, returns, seats
