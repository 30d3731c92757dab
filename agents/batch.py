"""Agents for many tables at once: ``act_batch(observations, masks, rows) -> actions``.

The batched self-play env (``brag_env.training.batched``) asks each opponent for the moves of
all the tables where it sits, in one call. ``rows`` are those tables' ids: an agent with
per-episode state keeps it per table and ``reset_rows(rows)`` forgets it when their episodes
start. The Put and Brag baselines (compiled: ``agents.put_kernel``, ``agents.brag_kernel``),
``random`` and ``ModelAgent`` (vectorised over rows) implement both natively; any other
agent is wrapped in ``PerTableAgents``, one scalar agent per table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from agents.base import Agent, TableInfo
from agents.registry import make_agent


class BatchAgent(Protocol):
    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, rows: np.ndarray
    ) -> np.ndarray: ...

    def reset_rows(self, rows: np.ndarray) -> None: ...


class PerTableAgents:
    """The fallback: one scalar agent per table, built on first use, ``act`` in a loop."""

    def __init__(self, make: Callable[[int], Agent]) -> None:
        self._make = make
        self._agents: dict[int, Agent] = {}

    def _agent(self, row: int) -> Agent:
        agent = self._agents.get(row)
        if agent is None:
            agent = self._agents[row] = self._make(row)
        return agent

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, rows: np.ndarray
    ) -> np.ndarray:
        return np.array(
            [
                self._agent(int(r)).act(o, m)
                for o, m, r in zip(observations, masks, rows, strict=True)
            ],
            dtype=np.int64,
        )

    def reset_rows(self, rows: np.ndarray) -> None:
        for r in np.asarray(rows).tolist():
            self._agent(r).reset()


def natively_batched(agent: object) -> bool:
    """Whether ``agent`` decides for many tables itself: it has ``act_batch``/``reset_rows``
    and its class does not opt out (``batched = False``: a subclass whose one-table rules have
    no vector version, which the inherited ``act_batch`` would silently ignore)."""
    return (
        hasattr(agent, "act_batch")
        and hasattr(agent, "reset_rows")
        and getattr(type(agent), "batched", True)
    )


def batch_agent(spec: str, table: TableInfo, seed: int) -> BatchAgent:
    """The agent ``spec`` names, for many tables: native if ``natively_batched``, else one
    scalar agent per table (seeded from ``seed`` and the table id, so runs repeat)."""
    agent = make_agent(spec, table, seed)
    if natively_batched(agent):
        return agent
    return PerTableAgents(lambda row: make_agent(spec, table, np.random.default_rng([seed, row])))
