"""Heads-up Put evaluation on the batched engine: run_headsup's numbers, all matches at once."""

import pytest

from brag_env.evaluation import run_headsup
from brag_env.evaluation.batched import run_headsup_batched, supports_batched


def test_supported_only_for_heads_up_put_with_batch_agents():
    assert supports_batched("put", ["put:caller", "put:bluffer"], {})
    assert supports_batched("put", ["random", "put:greedy"], {"target_points": 3})
    assert not supports_batched("put", ["put:caller", "put:caller"], {"num_players": 3})
    assert not supports_batched("brag", ["brag:tight", "random"], {})


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_same_result_shape_and_count_and_reproducible():
    a = run_headsup_batched("put:caller", "put:greedy", 301, seed=4)
    b = run_headsup_batched("put:caller", "put:greedy", 301, seed=4)
    scalar = run_headsup("put", "put:caller", "put:greedy", 301, seed=4)
    assert a == b
    assert set(a) == set(scalar) and a["metric"] == scalar["metric"] == "match win rate"
    assert a["n"] == scalar["n"] == 302  # rounded up to whole seating designs (2 seats)
    assert a["ci_low"] < a["mean"] < a["ci_high"]


@pytest.mark.parametrize(
    "pair", [("put:caller", "put:greedy"), ("random", "put:bluffer"), ("random", "random")]
)
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_batched_and_scalar_estimates_agree_within_their_intervals(pair):
    fast = run_headsup_batched(*pair, 1000, seed=1)
    slow = run_headsup("put", *pair, 1000, seed=1)
    half = (fast["ci_high"] - fast["ci_low"] + slow["ci_high"] - slow["ci_low"]) / 2
    assert abs(fast["mean"] - slow["mean"]) < half


def test_put_tips_has_no_vector_rules_so_it_plays_one_agent_per_table():
    """put:tips overrides the one-table Put rules only: the batched paths must not run the
    inherited (greedy) vector hooks under its name."""
    from agents import table_info
    from agents.batch import PerTableAgents, batch_agent
    from brag_env.evaluation.batched import supports_batched

    assert not supports_batched("put", ["random", "put:tips"], {})
    assert isinstance(batch_agent("put:tips", table_info("put"), 0), PerTableAgents)
    assert supports_batched("put", ["random", "put:caller"], {})
