"""Test helper: a gym env with only the spaces of a table's seat, to build and save a model."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np


class SeatSpaces(gym.Env):
    """The observation (as a float32 box from 0) and action spaces of ``env``'s first seat; it
    answers every reset and step with zeros, for a model that is saved, never trained."""

    def __init__(self, env: Any) -> None:
        seat = env.possible_agents[0]
        space = env.observation_space(seat)["observation"]
        self.observation_space = gym.spaces.Box(0.0, space.high, space.shape, np.float32)
        self.action_space = gym.spaces.Discrete(env.action_space(seat).n)

    def reset(self, seed=None, options=None):
        return np.zeros(self.observation_space.shape, np.float32), {}

    def step(self, action):
        return np.zeros(self.observation_space.shape, np.float32), 0.0, True, False, {}
