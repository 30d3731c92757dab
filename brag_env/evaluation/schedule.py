"""Who sits where in every episode: a balanced seating design, and duplicate deals.

A *seating* lists the agent in each seat. The *design* of a table of ``n`` is a list of seatings
built from *base orders* (the agents in order round the table), each turned through all ``n``
rotations, so every agent sits in every seat equally often:

- ``n <= 4``: every circular order, hence all ``n!`` seatings (2, 6, 24). With four Put players
  every pair of agents are partners (seats 0 and 2, 1 and 3) equally often (P8).
- ``n >= 5``: ``n!`` is too many (120 to 40,320), so a fixed set of base orders in which every
  agent has every other agent as its left-hand neighbour equally often (once each for 5, 7 and
  8 players: 20, 42 and 56 seatings; twice for 6, where a once-each set does not exist: 60).

So over one design an agent meets every seat and acts right after every other agent equally
often; with cyclic rotations alone its neighbours would never change. Episodes walk through the
design in order, and the episode count is rounded up to a whole number of designs.

In duplicate mode one *deal group* is one design's worth of episodes that reset the env with the
SAME seed: the same deal and dealer, played under every seating of the design. The group, not the
episode, is then the independent sample for confidence intervals. The env's reset seed fixes the
whole deck only for the first hand of an episode: in a Brag session of several hands, later hands
depend on play (the B18 shuffle rule, B19 hand choices and players sitting out, B16), so
duplicate deals are exact only for each session's first hand.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import numpy as np

from brag_env.config_checks import is_int

_DEALS, _AGENTS = 0, 1  # SeedSequence spawn keys, so the streams never overlap

# Base orders for 5 to 8 agents: each ordered pair of agents is adjacent round the table (the
# second on the first's left) exactly once, twice for 6 agents (found by a backtracking search;
# tests/test_evaluate_stats.py checks the property).
_BASE_ORDERS: dict[int, tuple[tuple[int, ...], ...]] = {
    5: ((0, 3, 1, 2, 4), (0, 1, 4, 3, 2), (0, 2, 3, 4, 1), (0, 4, 2, 1, 3)),
    6: (
        (0, 3, 1, 2, 5, 4),
        (0, 3, 5, 2, 1, 4),
        (0, 2, 5, 1, 4, 3),
        (0, 1, 2, 4, 5, 3),
        (0, 5, 4, 3, 2, 1),
        (0, 2, 4, 1, 3, 5),
        (0, 1, 5, 3, 4, 2),
        (0, 4, 2, 3, 1, 5),
        (0, 4, 5, 1, 3, 2),
        (0, 5, 2, 3, 4, 1),
    ),
    7: (
        (0, 5, 1, 6, 4, 3, 2),
        (0, 2, 3, 6, 1, 4, 5),
        (0, 3, 1, 2, 5, 4, 6),
        (0, 4, 1, 5, 2, 6, 3),
        (0, 6, 5, 3, 4, 2, 1),
        (0, 1, 3, 5, 6, 2, 4),
    ),
    8: (
        (0, 5, 6, 3, 7, 2, 1, 4),
        (0, 4, 2, 3, 5, 7, 1, 6),
        (0, 3, 2, 7, 5, 4, 6, 1),
        (0, 7, 6, 2, 4, 1, 5, 3),
        (0, 6, 7, 4, 3, 1, 2, 5),
        (0, 2, 6, 5, 1, 3, 4, 7),
        (0, 1, 7, 3, 6, 4, 5, 2),
    ),
}
MAX_AGENTS = 8


@dataclass(frozen=True)
class Episode:
    """One episode: its reset seed, its deal group, and ``seats[s]`` = the agent in seat ``s``.

    ``seating`` is the index of ``seats`` in the table's design (``seating_design``).
    """

    index: int
    group: int
    seating: int
    reset_seed: int
    seats: tuple[int, ...]


def base_orders(num_agents: int) -> tuple[tuple[int, ...], ...]:
    """The design's base orders: every circular order up to 4 agents, the fixed sets above."""
    if not 1 <= num_agents <= MAX_AGENTS:
        raise ValueError(f"a seating design needs 1 to {MAX_AGENTS} agents, got {num_agents}")
    if num_agents in _BASE_ORDERS:
        return _BASE_ORDERS[num_agents]
    rest = itertools.permutations(range(1, num_agents))
    return tuple((0, *order) for order in rest)


@functools.cache
def seating_design(num_agents: int) -> tuple[tuple[int, ...], ...]:
    """All seatings of the design: ``design[k][s]`` = the agent in seat ``s`` in seating ``k``.

    Each base order is turned through every rotation: in rotation ``r`` the order's ``i``-th agent
    sits in seat ``(i + r) % n``.
    """
    n = num_agents
    return tuple(
        tuple(order[(s - r) % n] for s in range(n)) for order in base_orders(n) for r in range(n)
    )


def design_size(num_agents: int) -> int:
    """Seatings in one design (episodes are rounded up to a multiple of it)."""
    return len(seating_design(num_agents))


def balanced_count(episodes: int, num_agents: int) -> int:
    """``episodes`` rounded up to a whole number of designs (at least one)."""
    if episodes < 1:
        raise ValueError(f"the number of episodes must be at least 1, got {episodes}")
    size = design_size(num_agents)
    return -(-episodes // size) * size


def make_schedule(
    num_agents: int, episodes: int, seed: int, duplicate: bool = False
) -> list[Episode]:
    """The episodes of an evaluation: ``episodes`` rounded up to a whole number of designs."""
    if not is_int(seed) or seed < 0:
        raise ValueError(f"the seed must be a whole number >= 0, got {seed!r}")
    design = seating_design(num_agents)
    size = len(design)
    total = balanced_count(episodes, num_agents)
    groups = total // size if duplicate else total
    deal_rng = np.random.default_rng(np.random.SeedSequence([seed, _DEALS]))
    reset_seeds = deal_rng.integers(0, 2**31 - 1, size=groups).tolist()
    schedule = []
    for i in range(total):
        group = i // size if duplicate else i
        k = i % size
        schedule.append(Episode(i, group, k, int(reset_seeds[group]), design[k]))
    return schedule


def agent_seeds(seed: int, num_agents: int) -> list[np.random.Generator]:
    """One independent generator per agent, derived from the evaluation seed."""
    children = np.random.SeedSequence([seed, _AGENTS]).spawn(num_agents)
    return [np.random.default_rng(child) for child in children]
