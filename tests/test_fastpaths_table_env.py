"""The shared AEC plumbing's fast paths (``brag_env.table_env``) against PettingZoo's own code.

``CardTableEnv._was_dead_step`` and ``_deads_step_first`` replace PettingZoo's on the hot path
(every agent takes a dead step at the end of every episode); here both versions run on the same
states, built from real Brag and Put positions with made-up sets of done agents, pending skips
and rewards.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest
from pettingzoo import AECEnv

from brag_env import brag_v0, put_v0
from brag_env.table_env import CardTableEnv

FIELDS = (
    "agents",
    "agent_selection",
    "_skip_agent_selection",
    "terminations",
    "truncations",
    "rewards",
    "_cumulative_rewards",
    "infos",
)


class Table:
    """The attributes both versions read and write (an env cannot be deep-copied: EzPickle
    rebuilds it from its arguments)."""

    _clear_rewards = AECEnv._clear_rewards  # called by PettingZoo's version

    def __init__(self, env: Any) -> None:
        for name in FIELDS:
            setattr(self, name, copy.deepcopy(getattr(env, name)))


def _state(env: Any) -> dict[str, Any]:
    return {name: copy.deepcopy(getattr(env, name)) for name in FIELDS}


def _outcome(env: Any, method: Any, action: Any) -> tuple[Any, ...]:
    try:
        method(env, action)
    except (AssertionError, ValueError) as exc:
        return ("raised", type(exc).__name__, str(exc))
    # int 0 and float 0.0 compare equal: the reward types must match too
    return ("ok", _state(env), [type(r).__name__ for r in env.rewards.values()])


def random_states(make: Any, seed: int, count: int) -> list[Table]:
    """Envs mid-game with random done flags, skipped agents and rewards."""
    rng = np.random.default_rng(seed)
    states = []
    env = make()
    env.reset(seed=seed)
    while len(states) < count:
        if not env.agents or all(env.terminations.values()):
            env.reset(seed=int(rng.integers(1 << 30)))
        agent = env.agent_selection
        mask = env.observe(agent)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        probe = Table(env)
        agents = list(probe.agents)
        for a in agents:
            probe.terminations[a] = bool(rng.random() < 0.4)
            probe.truncations[a] = bool(rng.random() < 0.2)
            probe.rewards[a] = float(rng.integers(-3, 4))
        # Some leave the acting agent alive (the stock assertion), most pick a dead one.
        dead = [a for a in agents if probe.terminations[a] or probe.truncations[a]]
        if dead and rng.random() < 0.9:
            probe.agent_selection = str(rng.choice(dead))
        u = rng.random()
        probe._skip_agent_selection = None if u < 0.5 else str(rng.choice(agents))
        states.append(probe)
    return states


@pytest.mark.parametrize(
    "make",
    [lambda: brag_v0.raw_env(num_players=4, hands_per_session=3), put_v0.raw_env],
    ids=["brag", "put"],
)
def test_was_dead_step_does_what_pettingzoos_does(make: Any) -> None:
    seen: set[str] = set()
    for i, probe in enumerate(random_states(make, seed=11, count=300)):
        action = None if i % 10 else 0
        expected = _outcome(copy.deepcopy(probe), AECEnv._was_dead_step, action)
        assert _outcome(probe, CardTableEnv._was_dead_step, action) == expected, f"state {i}"
        seen.add(expected[0] if expected[0] == "ok" else expected[1])
        if expected[0] == "ok":
            seen.add("skip" if expected[1]["_skip_agent_selection"] else "no skip")
    assert seen == {"ok", "AssertionError", "ValueError", "skip", "no skip"}


@pytest.mark.parametrize(
    "make",
    [lambda: brag_v0.raw_env(num_players=3, hands_per_session=2), put_v0.raw_env],
    ids=["brag", "put"],
)
def test_deads_step_first_does_what_pettingzoos_does(make: Any) -> None:
    moved = 0
    for i, probe in enumerate(random_states(make, seed=12, count=200)):
        before = probe.agent_selection
        theirs = copy.deepcopy(probe)
        returned = AECEnv._deads_step_first(theirs)
        assert CardTableEnv._deads_step_first(probe) == returned, f"state {i}"
        assert _state(probe) == _state(theirs), f"state {i}"
        moved += returned != before
    assert 0 < moved < 200  # both cases met
