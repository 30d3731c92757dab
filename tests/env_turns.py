"""Test helper: the live turns of whole PettingZoo matches, finished agents stepped past."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np


def live_turns(env, seeds) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """(seat, observation, action mask) at every decision of a match per seed; the caller
    steps the env with its action before asking for the next turn."""
    for seed in seeds:
        env.reset(seed=seed)
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            yield int(name.rsplit("_", 1)[1]), obs["observation"], obs["action_mask"]
