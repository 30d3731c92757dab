"""Who sits where in every episode: seat rotation and duplicate deals.

Agent ``a`` sits in seat ``(a + r) % n`` in rotation ``r``; the rotation advances every episode,
so over any ``n`` consecutive episodes every agent sits in every seat exactly once. The episode
count is rounded up to a multiple of ``n`` for that balance.

In duplicate mode one deal group is ``n`` episodes that reset the env with the SAME seed (same
deal, same dealer) under the ``n`` rotations: every agent plays every seat's cards of that deal
once. The group, not the episode, is then the independent sample for confidence intervals.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_DEALS, _AGENTS = 0, 1  # SeedSequence spawn keys, so the streams never overlap


@dataclass(frozen=True)
class Episode:
    """One episode: its reset seed, its deal group, and ``seats[s]`` = the agent in seat ``s``."""

    index: int
    group: int
    rotation: int
    reset_seed: int
    seats: tuple[int, ...]


def seats_for_rotation(num_agents: int, rotation: int) -> tuple[int, ...]:
    """``seats[s]`` = the agent index in seat ``s``: agent a sits in seat (a + rotation) % n."""
    return tuple((s - rotation) % num_agents for s in range(num_agents))


def balanced_count(episodes: int, num_agents: int) -> int:
    """``episodes`` rounded up to a multiple of ``num_agents`` (at least one full rotation)."""
    if episodes < 1:
        raise ValueError(f"the number of episodes must be at least 1, got {episodes}")
    return -(-episodes // num_agents) * num_agents


def make_schedule(
    num_agents: int, episodes: int, seed: int, duplicate: bool = False
) -> list[Episode]:
    """The episodes of an evaluation: ``episodes`` rounded up to a multiple of ``num_agents``."""
    if num_agents < 1:
        raise ValueError(f"need at least one agent, got {num_agents}")
    total = balanced_count(episodes, num_agents)
    groups = total // num_agents if duplicate else total
    deal_rng = np.random.default_rng(np.random.SeedSequence([seed, _DEALS]))
    reset_seeds = deal_rng.integers(0, 2**31 - 1, size=groups).tolist()
    schedule = []
    for i in range(total):
        group = i // num_agents if duplicate else i
        rotation = i % num_agents
        schedule.append(
            Episode(
                i,
                group,
                rotation,
                int(reset_seeds[group]),
                seats_for_rotation(num_agents, rotation),
            )
        )
    return schedule


def agent_seeds(seed: int, num_agents: int) -> list[np.random.Generator]:
    """One independent generator per agent, derived from the evaluation seed."""
    children = np.random.SeedSequence([seed, _AGENTS]).spawn(num_agents)
    return [np.random.default_rng(child) for child in children]
