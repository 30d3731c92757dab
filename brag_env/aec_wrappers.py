"""PettingZoo's three classic wrappers, without their attribute look-up chain.

``classic_wrap(raw_env, illegal_reward)`` wraps an env exactly as PettingZoo's classic envs do
(TerminateIllegal, then AssertOutOfBounds, then OrderEnforcing), but with subclasses of those
wrappers. The stock ones find every attribute (``agent_selection``, ``terminations`` ...) through
``__getattr__`` one wrapper at a time: around 36 chained look-ups per decision, which alone caps a
loop at roughly 15,000 decisions/s. Here every wrapper reads the AEC attributes straight from the
unwrapped env, and the outer one makes the checks of all three in ONE call of ``step()`` and
``last()`` (a Python call per wrapper level was most of what remained), in the stock order, so
behaviour, messages, warnings and ``isinstance`` tests are those of the stock classes.
``agent_iter()`` iterates with an iterator that reads the unwrapped env directly. One deliberate
difference: a bool action (which ``Discrete.contains`` accepts) reaches the env, whose clear
``ValueError`` replaces the stock chain's numpy error about an array's truth value. And an action
outside the agent's space is an ``ActionSpaceError`` naming the env, the agent and the value
(``put_v1: player_0: action must be an integer action id, got 0.0``) where the stock wrapper
asserts a bare ``action is not in action space``; it is an ``AssertionError`` as before.

The fused path is taken when the chain is exactly what ``classic_wrap`` builds (the three
wrappers directly around one unwrapped env); the inner wrappers keep the stock methods, for
code that calls them directly.
"""

from __future__ import annotations

import copy
from typing import Any

from gymnasium.spaces import Discrete
from pettingzoo.utils.env import AECEnv
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import (
    AssertOutOfBoundsWrapper,
    OrderEnforcingWrapper,
    TerminateIllegalWrapper,
)
from pettingzoo.utils.wrappers.base import BaseWrapper
from pettingzoo.utils.wrappers.order_enforcing import (
    AECOrderEnforcingIterable,
    AECOrderEnforcingIterator,
)

from brag_env.io import quoted
from brag_env.table_env import action_id

# What TerminateIllegalWrapper keeps as the info of an agent without one (only read, so one
# shared dict instead of a new one per last()).
_NO_INFO: dict[str, Any] = {}

# The attributes OrderEnforcingWrapper refuses to give out before reset().
_GUARDED = ("rewards", "terminations", "truncations", "infos", "agent_selection", "agents")


class ActionSpaceError(AssertionError, ValueError):
    """An action outside the acting agent's action space, refused by the wrapped env: an
    ``AssertionError`` as PettingZoo's ``AssertOutOfBoundsWrapper`` raises (code catching that
    keeps working), and a ``ValueError`` with one line naming the env, the agent and the value,
    worded as the raw env's own refusals (code catching those works too)."""


def action_space_error(raw: AECEnv, agent: Any, action: Any, space: Any) -> ActionSpaceError:
    """The refusal of ``action`` by ``agent``, whose action space is ``space``."""
    name = raw.metadata.get("name", type(raw).__name__)
    if action is None:
        return ActionSpaceError(f"{name}: {agent} must act; step(None) is only for done agents")
    if type(space) is Discrete:
        try:
            value = action_id(action)
        except ValueError as e:  # not an integer: the raw env's message
            return ActionSpaceError(f"{name}: {agent}: {e}")
        first, last = int(space.start), int(space.start) + int(space.n) - 1
        return ActionSpaceError(
            f"{name}: {agent}: action {value} is not an action id {first}..{last}"
        )
    return ActionSpaceError(f"{name}: {agent}: action {quoted(action)} is not in {space}")


def _forward(name: str, guarded: bool) -> property:
    if guarded:

        def get(self: Any) -> Any:
            if not self._has_reset:
                # The stock wrapper's __getattr__ raises this same error.
                raise AttributeError(f"{name} cannot be accessed before reset")
            return getattr(self._raw, name)

    else:

        def get(self: Any) -> Any:
            return getattr(self._raw, name)

    return property(get, doc=f"``{name}`` of the unwrapped env.")


class _DirectAttributes:
    """Forward the AEC attributes and spaces to the unwrapped env in one step."""

    _raw: AECEnv
    possible_agents = _forward("possible_agents", False)
    _cumulative_rewards = _forward("_cumulative_rewards", False)
    observation_spaces = _forward("observation_spaces", False)
    action_spaces = _forward("action_spaces", False)

    def observation_space(self, agent: Any) -> Any:
        return self._raw.observation_space(agent)

    def action_space(self, agent: Any) -> Any:
        return self._raw.action_space(agent)

    @property
    def unwrapped(self) -> AECEnv:
        return self._raw

    def __copy__(self) -> Any:
        """A whole, independent copy (as the env's own): a shallow one would share the game."""
        return copy.deepcopy(self)


class _InnerAttributes(_DirectAttributes):
    agents = _forward("agents", False)
    agent_selection = _forward("agent_selection", False)
    rewards = _forward("rewards", False)
    terminations = _forward("terminations", False)
    truncations = _forward("truncations", False)
    infos = _forward("infos", False)


class FastTerminateIllegalWrapper(_InnerAttributes, TerminateIllegalWrapper):
    """``TerminateIllegalWrapper``: an illegal action (per the last action mask) ends the game,
    the offender receiving ``illegal_reward`` and everyone else 0."""

    def __init__(self, env: AECEnv, illegal_reward: float) -> None:
        super().__init__(env, illegal_reward)
        self._raw = env.unwrapped


class FastAssertOutOfBoundsWrapper(_InnerAttributes, AssertOutOfBoundsWrapper):
    """``AssertOutOfBoundsWrapper``: a live agent's action must be in its space, else an
    ``ActionSpaceError`` (an ``AssertionError``, with a message that names agent and value)."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped

    def step(self, action: Any) -> None:
        raw = self._raw
        agent = raw.agent_selection
        space = raw.action_space(agent)
        done = raw.terminations[agent] or raw.truncations[agent]
        if not ((action is None and done) or space.contains(action)):
            raise action_space_error(raw, agent, action, space)
        BaseWrapper.step(self, action)  # the stock step without its bare assertion


class FastOrderEnforcingWrapper(_DirectAttributes, OrderEnforcingWrapper):
    """``OrderEnforcingWrapper``: errors on use before ``reset()``, warns on steps after the end."""

    agents = _forward("agents", True)
    agent_selection = _forward("agent_selection", True)
    rewards = _forward("rewards", True)
    terminations = _forward("terminations", True)
    truncations = _forward("truncations", True)
    infos = _forward("infos", True)

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        raw = self._raw = env.unwrapped
        # The TerminateIllegal wrapper whose checks step() and last() make themselves, when the
        # chain is exactly classic_wrap's; None: pass every call down as the stock class does.
        ti = getattr(env, "env", None)
        fused = (
            type(env) is FastAssertOutOfBoundsWrapper
            and type(ti) is FastTerminateIllegalWrapper
            and ti.env is raw
        )
        self._ti: FastTerminateIllegalWrapper | None = ti if fused else None
        # agent -> (its action space, and for a Discrete one its bounds as Python ints)
        self._spaces: dict[Any, tuple[Any, int, int]] = {}

    def __str__(self) -> str:
        return str(self.env)  # as the stock class prints itself: the env's name

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        ti = self._ti
        if ti is None:
            super().reset(seed=seed, options=options)
            return
        # OrderEnforcingWrapper.reset, then TerminateIllegalWrapper.reset, in one call.
        self._has_reset = True
        self._has_updated = True
        ti._terminated = False
        ti._prev_obs = None
        ti._prev_info = None
        self._raw.reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        raw = self._raw
        if not raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        ti = self._ti
        if ti is None:
            self.env.step(action)
            return
        # AssertOutOfBoundsWrapper.step
        agent = raw.agent_selection
        if action is None:
            ok = raw.terminations[agent] or raw.truncations[agent]
            ok = ok or raw.action_space(agent).contains(action)
        else:
            entry = self._spaces.get(agent)
            if entry is None:
                # AECEnv.action_space must give the same space for an agent every time.
                space = raw.action_space(agent)
                lo = int(space.start) if type(space) is Discrete else 0
                hi = lo + int(space.n) if type(space) is Discrete else 0
                entry = self._spaces[agent] = (space, lo, hi)
            space = entry[0]
            if type(action) is int and type(space) is Discrete:
                # What Discrete.contains decides for a Python int, with Python int bounds
                # (numpy scalar arithmetic is slow).
                ok = entry[1] <= action < entry[2]
            else:
                ok = space.contains(action)
        if not ok:
            raise action_space_error(raw, agent, action, raw.action_space(agent))
        # TerminateIllegalWrapper.step: the mask is the one of the last observation.
        if ti._prev_obs is None:
            self._observe_ti(ti, raw, agent)
        prev = ti._prev_obs
        if isinstance(prev, dict):
            assert "action_mask" in prev, (
                f"`action_mask` not found in dictionary observation: {prev}. Action mask must "
                "either be in `observation['action_mask']` or `info['action_mask']` to use "
                "TerminateIllegalWrapper."
            )
            mask = prev["action_mask"]
        else:
            assert ti._prev_info is not None
            assert "action_mask" in ti._prev_info, (
                f"`action_mask` not found in info for non-dictionary observation: "
                f"{ti._prev_info}. Action mask must either be in observation['action_mask'] or "
                "info['action_mask'] to use TerminateIllegalWrapper."
            )
            mask = ti._prev_info["action_mask"]
        ti._prev_obs = None
        ti._prev_info = None
        dead = raw.terminations[agent] or raw.truncations[agent]
        if ti._terminated and dead:
            raw._was_dead_step(action)
        elif not dead and action.__class__ is not bool and not mask[action]:
            EnvLogger.warn_on_illegal_move()
            raw._cumulative_rewards[agent] = 0
            raw.terminations = dict.fromkeys(raw.agents, True)
            raw.truncations = dict.fromkeys(raw.agents, True)
            raw.rewards = dict.fromkeys(raw.truncations, 0)
            raw.rewards[agent] = float(ti._illegal_value)
            raw._accumulate_rewards()
            raw._deads_step_first()
            ti._terminated = True
        else:
            # A bool is an int to Discrete.contains, but indexing the mask with it fails with
            # numpy's "truth value of an array" error in the stock wrapper: raw_env refuses it
            # with its own clear ValueError instead.
            raw.step(action)

    @staticmethod
    def _observe_ti(ti: FastTerminateIllegalWrapper, raw: AECEnv, agent: Any) -> Any:
        """TerminateIllegalWrapper.observe: the acting agent's observation is kept for step()."""
        obs = raw.observe(agent)
        if agent == raw.agent_selection:
            ti._prev_obs = obs
            ti._prev_info = raw.infos.get(agent, _NO_INFO)
        return obs

    def observe(self, agent: Any) -> Any:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        ti = self._ti
        if ti is None:
            return self.env.observe(agent)
        return self._observe_ti(ti, self._raw, agent)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        raw = self._raw
        agent = raw.agent_selection
        assert agent is not None
        ti = self._ti
        if not observe:
            observation = None
        elif ti is None:
            observation = self.env.observe(agent)
        else:  # TerminateIllegalWrapper.observe, in this frame
            observation = raw.observe(agent)
            ti._prev_obs = observation
            ti._prev_info = raw.infos.get(agent, _NO_INFO)
        return (
            observation,
            raw._cumulative_rewards[agent],
            raw.terminations[agent],
            raw.truncations[agent],
            raw.infos[agent],
        )

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _FastIterable(self, max_iter)


class _FastIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> AECOrderEnforcingIterator:
        return _FastIterator(self.env, self.max_iter)


class _FastIterator(AECOrderEnforcingIterator):
    """``AECOrderEnforcingIterator`` reading ``agents`` and ``agent_selection`` from the
    unwrapped env: same stops, same assertion when ``step()`` was not called in between."""

    def __next__(self) -> Any:
        env = self.env
        raw = env._raw
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        agent = raw.agent_selection
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        env._has_updated = False
        return agent


def classic_wrap(env: AECEnv, illegal_reward: float) -> FastOrderEnforcingWrapper:
    """Wrap ``env`` as PettingZoo's classic envs do (same order, same behaviour), fast."""
    wrapped = FastTerminateIllegalWrapper(env, illegal_reward=illegal_reward)
    wrapped = FastAssertOutOfBoundsWrapper(wrapped)
    return FastOrderEnforcingWrapper(wrapped)
