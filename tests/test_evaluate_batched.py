"""Evaluation on the batched engines: run_headsup's numbers, all matches (Put) or hands (Brag)
at once."""

import pytest

from brag_env.evaluation import run_headsup
from brag_env.evaluation.batched import run_headsup_batched, supports_batched


def test_supported_for_heads_up_put_and_one_hand_brag_with_batch_agents():
    assert supports_batched("put", ["put:caller", "put:bluffer"], {})
    assert supports_batched("put", ["random", "put:greedy"], {"target_points": 3})
    assert not supports_batched("put", ["put:caller", "put:caller"], {"num_players": 3})
    assert supports_batched("brag", ["brag:tight", "random"], {})
    assert supports_batched("brag", ["brag:tips", "brag:caller"], {"num_players": 8})
    assert not supports_batched("brag", ["brag:tight", "random"], {"hands_per_session": 5})


def test_brag_result_shape_count_and_reproducible():
    a = run_headsup_batched("brag:tight", "random", 101, 4, {"num_players": 3}, game="brag")
    b = run_headsup_batched("brag:tight", "random", 101, 4, {"num_players": 3}, game="brag")
    assert a == b
    assert a["metric"] == "payoff (antes/hand)"
    assert a["n"] == 102  # rounded up to whole seating designs (3 seats)
    assert a["ci_low"] < a["mean"] < a["ci_high"]


@pytest.mark.parametrize(
    "pair,options",
    [
        (("brag:tight", "random"), {"num_players": 2}),
        (("brag:caller", "brag:bluffer"), {"num_players": 4}),
        (("random", "random"), {"num_players": 3, "starting_chips": 10}),
    ],
)
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_brag_batched_and_scalar_estimates_agree_within_their_intervals(pair, options):
    fast = run_headsup_batched(*pair, 2000, 1, options, game="brag")
    slow = run_headsup("brag", *pair, 2000, seed=1, env_config=options)
    assert fast["metric"] == slow["metric"] and fast["n"] == slow["n"]
    half = (fast["ci_high"] - fast["ci_low"] + slow["ci_high"] - slow["ci_low"]) / 2
    assert abs(fast["mean"] - slow["mean"]) < half


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
