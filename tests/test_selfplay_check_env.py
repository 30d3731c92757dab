"""The single-agent view passes gymnasium's and SB3's env checkers with ``dict_obs=True`` and
``illegal_action="penalty"``; an illegal action then ends the episode with the given penalty."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import brag_env  # noqa: F401  (registers the gymnasium ids)

IDS = ["brag_env/BragVsPool-v0", "brag_env/PutVsPool-v0", "brag_env/Brag7VsPool-v0"]
CHECKED = {"dict_obs": True, "illegal_action": "penalty"}


CHECKERS = {
    "gymnasium": lambda env: gymnasium_check_env(env, skip_render_check=True),
    "sb3": lambda env: sb3_check_env(env, warn=True),
}


@pytest.mark.parametrize("checker", sorted(CHECKERS))
@pytest.mark.parametrize("env_id", IDS)
def test_env_checkers_pass_without_warnings(env_id, checker):
    env = gymnasium.make(env_id, opponents=["random"], seed=0, **CHECKED).unwrapped
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        CHECKERS[checker](env)


@pytest.mark.parametrize("env_id", IDS)
def test_dict_observation_carries_the_mask_of_action_masks(env_id):
    env = gymnasium.make(env_id, opponents=["random"], seed=3, dict_obs=True).unwrapped
    obs, _ = env.reset(seed=3)
    for _ in range(200):
        assert env.observation_space.contains(obs)
        assert np.array_equal(obs["action_mask"].astype(bool), env.action_masks())
        obs, _, terminated, _, _ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        if terminated:
            assert not obs["action_mask"].any()  # nothing is legal after the end
            obs, _ = env.reset()


def _illegal(env) -> int:
    return int(np.flatnonzero(~env.action_masks())[0])


def test_brag_illegal_action_penalty_is_minus_starting_chips_times_scale():
    env = gymnasium.make(
        "brag_env/BragVsPool-v0",
        env_config={"num_players": 2, "starting_chips": 300},
        opponents=["brag:caller"],
        reward_scale=0.1,
        illegal_action="penalty",
    ).unwrapped
    env.reset(seed=1)
    _, reward, terminated, truncated, info = env.step(_illegal(env))
    assert reward == pytest.approx(-30.0)
    assert (terminated, truncated, info["illegal"]) == (True, False, True)
    assert not env.action_masks().any()
    _, info = env.reset()  # a new episode starts normally
    assert env.action_masks().any() and "illegal" not in info


def test_put_illegal_action_penalty_is_minus_one_or_the_given_penalty():
    env = gymnasium.make("brag_env/PutVsPool-v0", illegal_action="penalty").unwrapped
    env.reset(seed=2)
    assert env.step(_illegal(env))[1] == -1.0
    env = gymnasium.make(
        "brag_env/PutVsPool-v0", illegal_action="penalty", illegal_penalty=-5, reward_scale=2
    ).unwrapped
    env.reset(seed=2)
    assert env.step(_illegal(env))[1] == -10.0


def test_default_still_raises_on_an_illegal_action():
    env = gymnasium.make("brag_env/PutVsPool-v0").unwrapped
    env.reset(seed=0)
    with pytest.raises(ValueError, match="not legal for the learner"):
        env.step(_illegal(env))


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"illegal_penalty": float("nan")}, "illegal_penalty"),
    ],
)
def test_bad_illegal_options_are_one_line_errors(kwargs, field):
    with pytest.raises(ValueError, match=field):
        gymnasium.make("brag_env/PutVsPool-v0", **kwargs)
