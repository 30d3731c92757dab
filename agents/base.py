"""The one interface every agent follows, and what an agent may know about its table.

An agent sees exactly what a player at the table sees: the observation vector of the seat it holds
and the action mask. Everything else it may use is public knowledge about the table (the rules
config, the action names, the number of players, a decoder for the observation layout), bundled in
a ``TableInfo`` that the factory binds once. Agents never receive the environment itself, so they
cannot peek at hidden cards.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from brag_env.cards import make_rng


@dataclass(frozen=True)
class TableInfo:
    """Public facts about a table, the same for every seat.

    ``config`` is the game's rules dataclass (``BragConfig``/``PutConfig``), ``action_names`` the
    env's fixed action list (index = action id), ``observation_shape`` the flat observation's
    shape, and ``decode`` turns one observation vector into a readable dict (the env module's
    ``decode_observation`` with the config bound).
    """

    game: str
    num_players: int
    action_names: tuple[str, ...]
    observation_shape: tuple[int, ...]
    config: Any = None
    decode: Callable[[np.ndarray], dict[str, Any]] | None = None

    @property
    def num_actions(self) -> int:
        return len(self.action_names)

    def action_id(self, name: str) -> int:
        """Action id of a name such as ``"fold"``; ``ValueError`` if the table lacks it."""
        try:
            return self.action_names.index(name)
        except ValueError:
            names = ", ".join(self.action_names)
            raise ValueError(
                f"the {self.game} table has no action {name!r}; actions: {names}"
            ) from None


class Agent(ABC):
    """Base class: ``act(observation, action_mask) -> action id``; ``reset()`` between episodes.

    Randomness comes only from ``self.rng`` (a numpy ``Generator`` made from ``seed``), so a seeded
    agent repeats its choices exactly. Subclasses that need the table override ``bind``.
    """

    #: The game this agent plays ("brag", "put"), or None if it plays any game.
    game: ClassVar[str | None] = None
    #: Whether building it reads a file (a trained model, a solved strategy): seconds rather than
    #: microseconds, so the front ends say "loading ..." first.
    reads_file: ClassVar[bool] = False

    def __init__(self, seed: int | np.random.Generator | None = None, name: str = "") -> None:
        self.rng = make_rng(seed)
        self.name = name or type(self).__name__
        self.table: TableInfo | None = None

    def bind(self, table: TableInfo) -> None:
        """Learn the table's public facts; called once before the first ``act``."""
        if self.game is not None and table.game != self.game:
            raise ValueError(f"agent {self.name!r} plays {self.game}, not {table.game}")
        self.table = table

    def seed(self, seed: int | np.random.Generator | None) -> None:
        self.rng = make_rng(seed)

    def reset(self) -> None:  # noqa: B027 - stateless agents need nothing here
        """Forget per-episode state (called at the start of every episode)."""

    @abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """Choose a legal action id for the seat's current decision."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class StyleAgent(Agent):
    """A rule-based style with named parameters (``DEFAULTS``), as in ``brag:bluffer:bluff=0.5``.

    Float parameters are shares or probabilities in [0, 1]; integer ones are counts >= 0.
    Each becomes an attribute of the agent.
    """

    DEFAULTS: ClassVar[dict[str, Any]] = {}

    def __init__(self, seed: Any = None, name: str = "", **params: Any) -> None:
        super().__init__(seed, name)
        unknown = sorted(set(params) - set(self.DEFAULTS))
        if unknown:
            raise ValueError(f"{type(self).__name__} has no parameter(s) {', '.join(unknown)}")
        self.params = {**self.DEFAULTS, **params}
        for key, value in self.params.items():
            default = self.DEFAULTS[key]
            if isinstance(default, float) and not 0.0 <= value <= 1.0:
                raise ValueError(f"parameter {key} of {self.name} must be in [0, 1], got {value}")
            if isinstance(default, int) and value < 0:
                raise ValueError(f"parameter {key} of {self.name} must be >= 0, got {value}")
            setattr(self, key, value)


class StrategyFileAgent(StyleAgent):
    """Plays a solver's strategy file: ``path=FILE``, or the shipped ``DEFAULT_PATH`` without
    one. The subclass reads it when it sits down (``bind``), so loading takes seconds."""

    reads_file: ClassVar[bool] = True
    DEFAULTS: ClassVar[dict[str, Any]] = {"path": ""}
    DEFAULT_PATH: ClassVar[Path]
    MADE_BY: ClassVar[str]  # the command that writes such a file, and the page that tells how

    def strategy_path(self) -> Path:
        """The file to play; a one-line error naming ``MADE_BY`` when there is none."""
        path = Path(self.path) if self.path else self.DEFAULT_PATH
        if not path.is_file():
            raise ValueError(
                f"{self.game}:equilibrium: no strategy file {str(path)!r}; make one with "
                f"{self.MADE_BY}"
            )
        return path


def legal_actions(action_mask: np.ndarray) -> np.ndarray:
    """Ids of the legal actions; ``ValueError`` if there are none (the env owes us one)."""
    legal = np.flatnonzero(action_mask)
    if legal.size == 0:
        raise ValueError("the action mask allows no action")
    return legal


class RandomAgent(Agent):
    """Random legal play: every legal action with equal probability (the spec ``"random"``)."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = legal_actions(action_mask)
        return int(legal[self.rng.integers(legal.size)])

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, rows: np.ndarray
    ) -> np.ndarray:
        """One uniform legal action per row (``rows``, the table ids, are not needed)."""
        masks = np.asarray(masks).astype(bool, copy=False)
        counts = masks.sum(axis=1)
        if not counts.all():
            raise ValueError("the action mask allows no action")
        pick = self.rng.integers(counts)
        return (masks.cumsum(axis=1) > pick[:, None]).argmax(axis=1)

    def reset_rows(self, rows: np.ndarray) -> None:
        """Stateless: nothing to forget."""
