"""The AEC plumbing that brag_v1 (brag_v0 its alias) and put_v0 share: one table, one engine.

``CardTableEnv`` does what does not depend on the game: the config from keywords or a config
object, agents and spaces, the render-mode checks, ``reset()`` bookkeeping and its options,
the order checks and error messages of ``step()``, dead steps, rewards and ``render()``. Each
game's module keeps its documentation, its public helpers and what is game-specific.

The engine is ``self.game``: its ``current_player`` is the seat to act (``-1`` once the episode
is over), and ``apply(action)`` plays that seat's decision and returns an outcome (``None``
when nothing that could be rewarded happened), or raises ``ValueError`` for an illegal action.
Seats are ``0..num_players-1``; agent k is seat k. A game env sets ``metadata``,
``config_class`` and ``episode_word`` ("game", "match": for error messages), and provides:

``_make_game(config)``   build ``self.game`` and the observer; return a :class:`TableSpec`
``_new_game(rng, deck, dealer)``   start an episode (the ``reset`` options, already checked to be
                         known; the engine validates their values)
``_rewards(outcome)``    every seat's reward for a non-``None`` outcome of ``apply``, or ``None``
``_render_text()``       the table as text
``history_lists``        ``(engine attribute, least kept)`` pairs: the engine's per-hand lists
                         that ``keep_histories=K`` bounds to their last ``max(K, least)`` items
``observe(agent)``       written out in each env: it is the hottest path and game-specific
                         (observer, mask cache), so no hook calls in between. Before ``reset()``
                         it raises ``self._before_reset("observe")``; every agent but the one to
                         act, and a terminated agent, gets the all-zero ``self._no_mask``.
"""

from __future__ import annotations

import copy
import operator
import sys
import warnings
from abc import ABCMeta, abstractmethod
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from brag_env.cards import check_seed, make_rng
from brag_env.io import quoted
from brag_env.recent import RecentList

RESET_OPTIONS = ("deck", "dealer")


class TableSpec(NamedTuple):
    """What the spaces are made of: the action names by id and the observation's bounds."""

    action_names: list[str]
    observation_size: int
    observation_high: float | np.ndarray


def merge_config(config_class: type, config: Any, options: dict[str, Any]) -> Any:
    """``config`` (an instance of ``config_class`` or None) with ``options`` laid over it."""
    if config is None:
        return config_class.from_dict(options)
    if not isinstance(config, config_class):
        raise ValueError(f"config must be a {config_class.__name__}, got {type(config).__name__}")
    return config_class.from_dict({**config.to_dict(), **options}) if options else config


def action_id(action: Any) -> int:
    """``action`` as a Python int, or a ValueError: an integer type (numpy ones and 0-d integer
    arrays too), never a bool (True as "action 1" is almost surely a bug)."""
    if isinstance(action, (bool, np.bool_)):
        raise ValueError(f"action must be an integer action id, got the bool {action!r}")
    try:
        return operator.index(action)
    except TypeError:
        raise ValueError(f"action must be an integer action id, got {quoted(action)}") from None


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside brag_env and PettingZoo (its wrappers):
    a warning names the user's line, not a wrapper's, where a filter may hide it."""
    import pettingzoo

    library = tuple(
        str(Path(m.__file__).resolve().parent) for m in (sys.modules[__name__], pettingzoo)
    )
    frame, level = sys._getframe(1), 1
    while frame is not None and str(Path(frame.f_code.co_filename).resolve()).startswith(library):
        frame, level = frame.f_back, level + 1
    return level


class UnknownAgentError(KeyError, ValueError):
    """An agent name that is not at the table: a ``KeyError`` as a dict lookup would raise
    (callers catching that keep working), and a ``ValueError`` with a readable one-line
    message (a bare ``KeyError`` prints only the quoted key)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def frozen(array: np.ndarray) -> np.ndarray:
    """``array``, made read-only (masks are shared between observations)."""
    array.flags.writeable = False
    return array


class CardTableEnv(AECEnv, EzPickle, metaclass=ABCMeta):
    """A turn-based card game as a PettingZoo AEC env, without wrappers (see the module doc)."""

    metadata: ClassVar[dict[str, Any]]
    config_class: ClassVar[type]
    episode_word: ClassVar[str]  # "game" or "match": what reset() starts, in error messages
    history_lists: ClassVar[tuple[tuple[str, int], ...]]
    game: Any

    def __init__(
        self,
        config: Any = None,
        render_mode: str | None = None,
        reveal_cards: bool = False,
        keep_histories: int | None = None,
        **options: Any,
    ) -> None:
        EzPickle.__init__(self, config, render_mode, reveal_cards, keep_histories, **options)
        super().__init__()
        self._name: str = self.metadata["name"]  # the prefix of every error message
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', got {render_mode!r}")
        if not isinstance(reveal_cards, bool):
            raise ValueError(f"reveal_cards must be true or false, got {reveal_cards!r}")
        if keep_histories is not None and (
            isinstance(keep_histories, bool)
            or not isinstance(keep_histories, int)
            or keep_histories < 0
        ):
            raise ValueError(
                f"keep_histories must be None (keep all), 0 (none) or a whole number of hands "
                f"to keep, got {keep_histories!r}"
            )
        # Long sessions: how many finished hands' histories (and results) the engine keeps.
        self.keep_histories = keep_histories
        cfg = merge_config(self.config_class, config, options)
        self.config = cfg
        self.render_mode = render_mode
        self.reveal_cards = reveal_cards
        spec = self._make_game(cfg)
        self.action_names: list[str] = spec.action_names
        num_actions = len(spec.action_names)
        self.possible_agents = [f"player_{i}" for i in range(cfg.num_players)]
        self.agents = self.possible_agents[:]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(
                        low=0.0,
                        high=spec.observation_high,
                        shape=(spec.observation_size,),
                        dtype=np.float32,
                    ),
                    "action_mask": spaces.Box(0, 1, shape=(num_actions,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(num_actions) for agent in self.possible_agents}
        self._no_mask = frozen(np.zeros(num_actions, dtype=np.int8))
        self._rng: np.random.Generator | None = None
        self._rewarded = False  # self.rewards holds this step's rewards: zero them next step
        self._has_reset = False
        self._skip_agent_selection: str | None = None

    # ------------------------------------------------------------------ copies
    # gymnasium's EzPickle pickles an env as its constructor arguments, so a copy made mid-hand
    # used to be a fresh env that had not been reset. A copy is the whole state instead (the
    # engine, the RNG, the AEC bookkeeping), so it continues exactly as the original would.
    # The observers are caches of the engine's state built on buffers and memoryviews, which
    # neither pickle nor deepcopy keeps as views of one buffer: a copy builds new ones.
    #: The attributes ``_make_observers`` builds (left out of a copy).
    _observer_attributes: ClassVar[tuple[str, ...]] = ("observer",)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        for name in self._observer_attributes:
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        if set(state) == {"_ezpickle_args", "_ezpickle_kwargs"}:  # pickled before copies worked
            EzPickle.__setstate__(self, state)
            return
        self.__dict__.update(state)
        self._make_observers(self.config)
        self._no_mask = frozen(np.zeros_like(self._no_mask))  # a copy is writeable again

    def __copy__(self) -> CardTableEnv:
        """A shallow copy would share the engine with the original: a copy is always whole."""
        return copy.deepcopy(self)

    # ------------------------------------------------------------------ hooks
    @abstractmethod
    def _make_game(self, config: Any) -> TableSpec: ...

    @abstractmethod
    def _make_observers(self, config: Any) -> None:
        """Build the observers of ``self.game`` (by ``_make_game``, and again for a copy)."""

    @abstractmethod
    def _new_game(
        self, rng: np.random.Generator, deck: str | Sequence[Any] | None, dealer: Any
    ) -> None: ...

    @abstractmethod
    def _rewards(self, outcome: Any) -> Sequence[float] | None: ...

    @abstractmethod
    def _render_text(self) -> str: ...

    @abstractmethod
    def observe(self, agent: str) -> dict[str, np.ndarray]: ...

    def _unknown_agent(self, agent: Any) -> UnknownAgentError:
        """The error for an agent that does not sit at the table (``observe('player_99')``)."""
        return UnknownAgentError(
            f"{self._name}: unknown agent {agent!r}; the agents are "
            f"{', '.join(self.possible_agents)}"
        )

    def _observed_seat(self, agent: Any) -> int:
        """The seat ``observe(agent)`` reads; before ``reset()`` or for an agent not at the
        table, the one-line error."""
        if not self._has_reset:
            raise self._before_reset("observe")
        try:
            return self._seat[agent]
        except (KeyError, TypeError):  # TypeError: an unhashable agent
            raise self._unknown_agent(agent) from None

    def _before_reset(self, method: str) -> RuntimeError:
        """The error for calling ``method`` before ``reset()``."""
        return RuntimeError(f"{self._name}: call reset() before {method}()")

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if options is None:  # the common case, kept cheap
            deck = dealer = None
        elif not isinstance(options, Mapping):
            raise ValueError(
                f"{self._name}.reset: options must be a dict such as "
                f"{{'deck': ..., 'dealer': k}}, got {options!r}"
            )
        else:
            unknown = sorted(str(k) for k in options if k not in RESET_OPTIONS)
            if unknown:
                warnings.warn(
                    f"{self._name}.reset ignores unknown option(s) {', '.join(unknown)}; "
                    f"it knows {', '.join(RESET_OPTIONS)}",
                    stacklevel=_caller_level(),
                )
            deck, dealer = options.get("deck"), options.get("dealer")
            if deck is not None and not isinstance(deck, (str, Sequence, np.ndarray)):
                raise ValueError(  # a number, a set: the engines would fail on it less clearly
                    f"{self._name}.reset: deck must be card text or a list of card ints, "
                    f"got {deck!r}"
                )
        if seed is not None:
            self._rng = make_rng(check_seed(seed, f"{self._name}.reset: seed"))
        elif self._rng is None:
            self._rng = make_rng(None)
        self._new_game(self._rng, deck, dealer)
        keep = self.keep_histories
        if keep is not None:  # the engine's lists start empty each episode: bound the new ones
            game = self.game
            for name, least in self.history_lists:
                setattr(game, name, RecentList(max(keep, least)))
        agents = self.possible_agents[:]
        self.agents = agents
        self.rewards = dict.fromkeys(agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(agents, 0.0)
        self.terminations = dict.fromkeys(agents, False)
        self.truncations = dict.fromkeys(agents, False)
        self.infos = {a: {} for a in agents}
        self._skip_agent_selection = None
        self._rewarded = False
        self._has_reset = True
        self.agent_selection = agents[self.game.current_player]
        if self.render_mode == "human":
            self.render()

    def step(self, action: Any) -> None:
        if not self._has_reset:
            raise self._before_reset("step")
        if not self.agents:
            raise RuntimeError(
                f"{self._name}: the {self.episode_word} is over and every agent is done; "
                "call reset()"
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError(
                    f"{self._name}: the {self.episode_word} is over for {agent}; its only "
                    "valid step is step(None), until every agent is done (then call reset())"
                )
            self._was_dead_step(None)
            return
        if action is None:
            raise ValueError(f"{self._name}: {agent} must act; step(None) is only for done agents")
        game = self.game
        try:
            outcome = game.apply(action if action.__class__ is int else action_id(action))
        except ValueError as exc:  # the engine's message, named after the env and the agent
            raise ValueError(f"{self._name}: {agent}: {exc}") from None
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        if self._rewarded:
            for a in rewards:
                rewards[a] = 0.0
            self._rewarded = False
        if outcome is not None:
            due = self._rewards(outcome)
            if due is not None:
                for a, reward in zip(self.possible_agents, due, strict=True):
                    rewards[a] = reward
                self._rewarded = True
                self._accumulate_rewards()
        seat = game.current_player
        if seat < 0:
            terminations = self.terminations
            for a in terminations:
                terminations[a] = True
            self._deads_step_first()
        else:
            self.agent_selection = self.possible_agents[seat]
        if self.render_mode == "human":
            self.render()

    def _deads_step_first(self) -> str:
        """``AECEnv._deads_step_first`` (PettingZoo 1.27) without building the list of dead
        agents: the first dead agent steps next, the one it displaces is kept for later."""
        terminations, truncations = self.terminations, self.truncations
        for agent in self.agents:
            if terminations[agent] or truncations[agent]:
                self._skip_agent_selection = self.agent_selection
                self.agent_selection = agent
                break
        return self.agent_selection

    def _was_dead_step(self, action: Any) -> None:
        """``AECEnv._was_dead_step`` (PettingZoo 1.27), same effects in the same order, without
        its list of dead agents, ``getattr`` look-ups and extra call: every agent takes one of
        these steps at the end of every episode (four per hand of 4-player Brag)."""
        if action is not None:
            raise ValueError("when an agent is dead, the only valid action is None")
        agent = self.agent_selection
        terminations, truncations = self.terminations, self.truncations
        assert terminations[agent] or truncations[agent], (
            "an agent that was not dead as attempted to be removed"
        )
        del terminations[agent]
        del truncations[agent]
        del self.rewards[agent]
        del self._cumulative_rewards[agent]
        del self.infos[agent]
        agents = self.agents
        agents.remove(agent)
        for other in agents:  # the next dead agent steps next, else the one skipped for them
            if terminations[other] or truncations[other]:
                if self._skip_agent_selection is None:
                    self._skip_agent_selection = agent
                self.agent_selection = other
                break
        else:
            if self._skip_agent_selection is not None:
                self.agent_selection = self._skip_agent_selection
            self._skip_agent_selection = None
        rewards = self.rewards
        for other in rewards:
            rewards[other] = 0

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn(f"{self._name}.render() called without a render_mode")
            return None
        if not self._has_reset:
            raise self._before_reset("render")
        text = self._render_text()
        if self.render_mode == "human":
            print(text, end="")
            return None
        return text

    def close(self) -> None:
        pass
