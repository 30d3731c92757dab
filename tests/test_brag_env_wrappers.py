"""brag_v0.env() uses fast subclasses of PettingZoo's classic wrappers (issue 7): they must
behave exactly as the stock TerminateIllegal/AssertOutOfBounds/OrderEnforcing chain."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import (
    AssertOutOfBoundsWrapper,
    OrderEnforcingWrapper,
    TerminateIllegalWrapper,
)

from brag_env import brag_v0
from brag_env.aec_wrappers import ActionSpaceError
from tests.fuzz_moves import fuzz_move

CONFIG = {"num_players": 3, "hands_per_session": 3, "starting_chips": 40}


def stock_env(**kwargs: Any) -> OrderEnforcingWrapper:
    raw = brag_v0.raw_env(**kwargs)
    env = TerminateIllegalWrapper(raw, illegal_reward=-float(raw.config.starting_chips))
    env = AssertOutOfBoundsWrapper(env)
    return OrderEnforcingWrapper(env)


def _outcome(fn: Any) -> tuple[Any, ...]:
    EnvLogger.flush()
    try:
        value = fn()
    except ActionSpaceError:  # the one deliberate difference: where stock asserts barely
        refusal = ("AssertionError", "action is not in action space")
        return ("raised", *refusal, tuple(EnvLogger.mqueue))
    except Exception as exc:  # the type and message must match, whatever they are
        return ("raised", type(exc).__name__, str(exc), tuple(EnvLogger.mqueue))
    return ("ok", type(value).__name__, tuple(EnvLogger.mqueue))


def _snapshot(env: Any) -> tuple[Any, ...]:
    obs, reward, term, trunc, info = env.last()
    return (
        env.agent_selection,
        obs["observation"].tobytes(),
        obs["action_mask"].tobytes(),
        reward,
        term,
        trunc,
        info,
        dict(env.rewards),
        dict(env.terminations),
        dict(env.truncations),
        dict(env.infos),
        list(env.agents),
        env.num_agents,
    )


def trace(env: Any, seed: int, steps: int = 300) -> list[tuple[Any, ...]]:
    """Everything observable while playing legal, illegal, out-of-range and dead moves."""
    out: list[tuple[Any, ...]] = []
    for name in ("agents", "rewards", "terminations", "agent_selection", "num_agents"):
        out.append(("before reset", name, _outcome(lambda name=name: getattr(env, name))))
    out.append(("step before reset", _outcome(lambda: env.step(0))))
    out.append(("observe before reset", _outcome(lambda: env.observe("player_0"))))
    out.append(("last before reset", _outcome(lambda: env.last())))
    out.append(("iter before reset", _outcome(lambda: env.agent_iter())))
    out.append(("possible_agents", tuple(env.possible_agents)))
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    n_actions = env.action_space("player_0").n
    for i in range(steps):
        if not env.agents:
            out.append(("step after the end", _outcome(lambda: env.step(None))))
            env.reset(seed=seed + i)
            continue
        out.append(_snapshot(env))
        obs, _, term, trunc, _ = env.last()
        mask = obs["action_mask"]
        u = rng.random()
        dead = term or trunc
        action = fuzz_move(rng, u, mask, n_actions, dead, (0.04, 0.06, 0.10), 1, 5)
        out.append(("step", repr(action), _outcome(lambda action=action: env.step(action))))
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fast_wrappers_match_stock(seed: int) -> None:
    fast, stock = trace(brag_v0.env(**CONFIG), seed), trace(stock_env(**CONFIG), seed)
    assert len(fast) == len(stock)
    for i, (a, b) in enumerate(zip(fast, stock, strict=True)):
        assert a == b, f"entry {i} differs"
    # The script does reach the interesting branches.
    flat = repr(stock)
    assert "Illegal move made" in flat
    assert "action is not in action space" in flat
    assert "step() called after all agents are terminated" in flat


def test_fast_wrappers_are_the_standard_classes() -> None:
    env = brag_v0.env()
    assert isinstance(env, OrderEnforcingWrapper)
    assert isinstance(env.env, AssertOutOfBoundsWrapper)
    assert isinstance(env.env.env, TerminateIllegalWrapper)
    assert env.env.env.env is env.unwrapped
    assert isinstance(env.unwrapped, brag_v0.raw_env)
    assert str(env) == str(stock_env()) == "brag_v0"
