"""The fused classic wrappers (``brag_env.aec_wrappers``) behave as PettingZoo's stock chain.

``tests/test_brag_env_wrappers.py`` plays brag_v0 through both; this adds Put, the iterator of
``agent_iter()`` (its stops and its "call step() in the loop" assertion), ``last(observe=False)``
followed by ``step()`` (the wrapper must then observe for its mask check), observing other
agents, resets in the middle of a game, and the fallback when the chain is not exactly the one
``classic_wrap`` builds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import (
    AssertOutOfBoundsWrapper,
    OrderEnforcingWrapper,
    TerminateIllegalWrapper,
)

from brag_env import brag_v0, put_v0
from brag_env.aec_wrappers import (
    ActionSpaceError,
    FastAssertOutOfBoundsWrapper,
    FastOrderEnforcingWrapper,
)
from tests.fuzz_moves import fuzz_move

ENVS: dict[str, tuple[Callable[..., Any], dict[str, Any], float]] = {
    "brag": (
        brag_v0.raw_env,
        {"num_players": 3, "hands_per_session": 2, "starting_chips": 30},
        -30.0,
    ),
    "put": (put_v0.raw_env, {"num_players": 2, "target_points": 2}, -1.0),
}


def stock(name: str) -> OrderEnforcingWrapper:
    make, options, penalty = ENVS[name]
    env = TerminateIllegalWrapper(make(**options), illegal_reward=penalty)
    return OrderEnforcingWrapper(AssertOutOfBoundsWrapper(env))


def fast(name: str) -> Any:
    options = ENVS[name][1]
    return (brag_v0 if name == "brag" else put_v0).env(**options)


def half_fast(name: str) -> FastOrderEnforcingWrapper:
    """The fast outer wrapper over stock inner ones: it must pass every call down."""
    make, options, penalty = ENVS[name]
    env = TerminateIllegalWrapper(make(**options), illegal_reward=penalty)
    return FastOrderEnforcingWrapper(AssertOutOfBoundsWrapper(env))


STOCK_REFUSAL = ("AssertionError", "action is not in action space")


def _outcome(fn: Callable[[], Any]) -> tuple[Any, ...]:
    EnvLogger.flush()
    try:
        value = fn()
    except ActionSpaceError:  # the one deliberate difference: where stock asserts barely
        return ("raised", *STOCK_REFUSAL, tuple(EnvLogger.mqueue))
    except Exception as exc:  # the type and message must match, whatever they are
        return ("raised", type(exc).__name__, str(exc), tuple(EnvLogger.mqueue))
    if isinstance(value, tuple) and value and isinstance(value[0], dict):
        obs = value[0]
        value = (obs["observation"].tobytes(), obs["action_mask"].tobytes(), *value[1:])
    elif isinstance(value, dict):
        value = (value["observation"].tobytes(), value["action_mask"].tobytes())
    return ("ok", repr(value), tuple(EnvLogger.mqueue))


def script(env: Any, seed: int, steps: int = 250) -> list[Any]:
    """A seeded mix of legal, illegal, out-of-range, None and numpy actions, blind steps
    (``last(observe=False)``), looks at other agents and early resets."""
    out: list[Any] = []
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    agents = list(env.possible_agents)
    n_actions = int(env.action_space(agents[0]).n)
    for i in range(steps):
        u = rng.random()
        if not env.agents or u < 0.01:
            out.append(("after the end", _outcome(lambda: env.step(None))))
            env.reset(seed=seed + i)
            continue
        other = agents[int(rng.integers(len(agents)))]
        out.append(("observe other", other, _outcome(lambda other=other: env.observe(other))))
        blind = rng.random() < 0.15
        out.append(("last", blind, _outcome(lambda blind=blind: env.last(observe=not blind))))
        agent = env.agent_selection
        mask = env.unwrapped.observe(agent)["action_mask"]
        dead = env.terminations[agent] or env.truncations[agent]
        action = fuzz_move(rng, u, mask, n_actions, dead, (0.05, 0.07, 0.12), 0, 3)
        out.append(("step", repr(action), _outcome(lambda action=action: env.step(action))))
        out.append(
            (
                "state",
                env.agent_selection if env.agents else None,
                dict(env.rewards),
                dict(env.terminations),
                dict(env._cumulative_rewards),
                list(env.agents),
            )
        )
    return out


@pytest.mark.parametrize("name", sorted(ENVS))
@pytest.mark.parametrize("seed", [0, 1])
def test_fused_wrappers_match_stock(name: str, seed: int) -> None:
    expected = script(stock(name), seed)
    assert script(fast(name), seed) == expected
    assert script(half_fast(name), seed) == expected
    flat = repr(expected)
    assert "Illegal move made" in flat
    assert "action is not in action space" in flat


def iterate(env: Any, seed: int, skip_step_at: int = -1, max_iter: int = 2**63) -> list[Any]:
    """agent_iter() over a few games; optionally leave out one step() to trip the assertion."""
    out: list[Any] = []
    rng = np.random.default_rng(seed)
    for game in range(3):
        env.reset(seed=seed + game)
        try:
            for k, agent in enumerate(env.agent_iter(max_iter)):
                obs, reward, terminated, truncated, _ = env.last()
                out.append((agent, reward, terminated, truncated))
                if k == skip_step_at:
                    continue
                if terminated or truncated:
                    env.step(None)
                else:
                    env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        except AssertionError as exc:
            out.append(("assertion", str(exc)))
        out.append(("stopped", list(env.agents)))
    return out


@pytest.mark.parametrize("name", sorted(ENVS))
def test_agent_iter_matches_stock(name: str) -> None:
    assert iterate(fast(name), 3) == iterate(stock(name), 3)
    assert iterate(fast(name), 4, max_iter=5) == iterate(stock(name), 4, max_iter=5)
    tripped = iterate(stock(name), 5, skip_step_at=2)
    assert ("assertion", "need to call step() or reset() in a loop over `agent_iter`") in tripped
    assert iterate(fast(name), 5, skip_step_at=2) == tripped


def test_fused_path_only_for_the_classic_chain() -> None:
    assert fast("brag")._ti is not None
    assert half_fast("brag")._ti is None
    assert isinstance(fast("put").env.env, TerminateIllegalWrapper)


@pytest.mark.parametrize("name", sorted(ENVS))
@pytest.mark.parametrize("action", [True, False])
@pytest.mark.parametrize("observed", [True, False])
def test_a_bool_action_gets_the_raw_envs_value_error(
    name: str, action: bool, observed: bool
) -> None:
    """``Discrete.contains`` takes a bool for an int and the stock chain then fails on numpy's
    "truth value of an array"; env() gives raw_env's clear ValueError and the game goes on."""
    make, options, _ = ENVS[name]
    raw = make(**options)
    raw.reset(seed=0)
    with pytest.raises(ValueError) as expected:
        raw.step(action)
    env = fast(name)
    env.reset(seed=0)
    if observed:
        env.last()
    agent = env.agent_selection
    with pytest.raises(ValueError) as got:
        env.step(action)
    assert str(got.value) == str(expected.value)
    assert "integer action id" in str(got.value) and agent in str(got.value)
    assert env.agent_selection == agent and not any(env.terminations.values())
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))  # a legal action still plays


def unfused(name: str) -> FastOrderEnforcingWrapper:
    """The fast outer and out-of-bounds wrappers over a stock TerminateIllegal: not fused, so
    the out-of-bounds wrapper makes its own check."""
    make, options, penalty = ENVS[name]
    env = TerminateIllegalWrapper(make(**options), illegal_reward=penalty)
    return FastOrderEnforcingWrapper(FastAssertOutOfBoundsWrapper(env))


@pytest.mark.parametrize("name", sorted(ENVS))
@pytest.mark.parametrize("chain", [fast, unfused])
@pytest.mark.parametrize(
    "action, refusal",
    [
        (0.0, "action must be an integer action id, got 0.0"),
        ("1", "action must be an integer action id, got '1'"),
        (-1, "action -1 is not an action id 0..{last}"),
        (10**6, "action 1000000 is not an action id 0..{last}"),
        (np.int64(10**6), "action 1000000 is not an action id 0..{last}"),
        (None, "must act; step(None) is only for done agents"),
    ],
)
def test_an_action_outside_the_space_is_one_line_naming_the_agent_and_value(
    name: str, chain: Callable[[str], Any], action: Any, refusal: str
) -> None:
    """Where PettingZoo asserts a bare "action is not in action space", the wrapped env says
    which agent and which value, as the raw env words it; an AssertionError still (what the
    stock wrapper raised) and a ValueError (what the raw env raises)."""
    env = chain(name)
    assert (chain is fast) == (env._ti is not None)
    env.reset(seed=0)
    agent = env.agent_selection
    last = int(env.action_space(agent).n) - 1
    env_name = env.unwrapped.metadata["name"]
    sep = " " if action is None else ": "
    for caught in (AssertionError, ValueError):
        with pytest.raises(caught) as refused:
            env.step(action)
        assert type(refused.value) is ActionSpaceError
        assert str(refused.value) == f"{env_name}: {agent}{sep}{refusal.format(last=last)}"
    assert env.agent_selection == agent and not any(env.terminations.values())
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))  # a legal action still plays
