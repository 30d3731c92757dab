"""The training env vector: subprocess workers survive the terminal's Ctrl-C (SIGINT goes to the
whole process group; only the main process may act on it)."""

from __future__ import annotations

import os
import signal

import numpy as np
import pytest

from brag_env.training.config import config_from_dict
from brag_env.training.envs import close_quietly, make_vec_env


def two_put_workers():
    """A subprocess vector of two heads-up Put envs (the caller closes it)."""
    raw = {
        "game": "put",
        "env": {"num_players": 2},
        "n_envs": 2,
        "vec_env": "subproc",
        "ppo": {"n_steps": 64, "batch_size": 64},
    }
    return make_vec_env(config_from_dict(raw), seed=0)


@pytest.mark.slow
def test_subprocess_envs_ignore_sigint_and_close_cleanly():
    venv = two_put_workers()
    try:
        venv.reset()  # every worker has built its env (and set its SIGINT handler)
        for process in venv.venv.processes:
            os.kill(process.pid, signal.SIGINT)
        # The workers still answer: a step and the masks come back from both.
        masks = np.stack(venv.env_method("action_masks"))
        actions = np.array([int(np.flatnonzero(m)[0]) for m in masks])
        venv.step(actions)
        assert all(process.is_alive() for process in venv.venv.processes)
    finally:
        venv.close()
    assert not any(process.is_alive() for process in venv.venv.processes)


@pytest.mark.slow
def test_close_quietly_tolerates_dead_workers():
    venv = two_put_workers()
    venv.reset()
    for process in venv.venv.processes:
        process.kill()
        process.join()
    close_quietly(venv)  # no BrokenPipeError / ConnectionResetError


def test_b25_a_wild_card_config_trains_on_the_scalar_envs_and_batched_refuses_it():
    """B25: ``env: {wild_cards: ...}`` builds the dummy vector (the self-play env steps with
    the wild-card observation); ``vec_env: batched`` is a one-line error."""
    raw = {
        "game": "brag",
        "env": {"num_players": 2, "wild_cards": "braggers"},
        "n_envs": 2,
        "vec_env": "dummy",
        "ppo": {"n_steps": 64, "batch_size": 64},
    }
    venv = make_vec_env(config_from_dict(raw), seed=0)
    try:
        obs = venv.reset()
        env = venv.envs[0].unwrapped
        assert env.aec.unwrapped.config.wild_cards == "braggers"
        assert obs.shape[1] == env.observation_space.shape[0]
        masks = np.stack(venv.env_method("action_masks"))
        venv.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
    finally:
        close_quietly(venv)
    with pytest.raises(ValueError, match="BatchedBrag does not support wild_cards='braggers'"):
        config_from_dict({**raw, "vec_env": "batched"})
