"""Env errors in one readable line (issue 30, item 14): an unknown agent, and unknown reset
options warned about at the caller's line (a warning attributed to a wrapper was hidden)."""

from __future__ import annotations

import warnings

import pytest

from brag_env import brag7_v0, brag_v1, put_v1


@pytest.mark.parametrize("module", [brag_v1, put_v1, brag7_v0])
@pytest.mark.parametrize("make", ["env", "raw_env"])
def test_observe_of_an_unknown_agent_names_the_agents(module, make):
    env = getattr(module, make)()
    env.reset(seed=0)
    for agent in ("player_99", ["unhashable"]):
        with pytest.raises(KeyError) as refused:  # still a KeyError, and a ValueError
            env.observe(agent)
        assert isinstance(refused.value, ValueError)
        name = module.__name__.rsplit(".", 1)[-1]
        assert str(refused.value) == (
            f"{name}: unknown agent {agent!r}; the agents are {', '.join(env.possible_agents)}"
        )


@pytest.mark.parametrize("module", [brag_v1, put_v1, brag7_v0])
@pytest.mark.parametrize("make", ["env", "raw_env"])
def test_unknown_reset_options_warn_at_the_callers_line(module, make):
    env = getattr(module, make)()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        env.reset(seed=0, options={"decks": "A♥"})
    (warning,) = caught
    assert "ignores unknown option(s) decks; it knows deck, dealer" in str(warning.message)
    assert warning.filename == __file__
