"""The point split of a scored Put hand (P5, P7, P8): ``loss_per_seat`` and the rewards built
on it, which the put envs, the Put statistics and the batched engine all use."""

import ast
import inspect

import numpy as np
import pytest

from brag_env.put import batched_kernel
from brag_env.put.rules import PutConfig, hand_rewards, loss_per_seat, match_rewards


def test_P5_heads_up_the_loser_loses_what_the_scorer_wins():
    assert loss_per_seat(2, 3) == 3
    assert hand_rewards(PutConfig(num_players=2), 1, 3) == [-3.0, 3.0]


def test_P7_three_players_each_loser_pays_half():
    assert loss_per_seat(3, 3) == 1.5
    assert hand_rewards(PutConfig(num_players=3), 2, 3) == [-1.5, -1.5, 3.0]
    assert match_rewards(PutConfig(num_players=3), [0]) == [1.0, -0.5, -0.5]


def test_P8_partners_share_the_side_result():
    assert loss_per_seat(4, 2) == 2
    assert hand_rewards(PutConfig(num_players=4), 1, 2) == [-2.0, 2.0, -2.0, 2.0]
    assert match_rewards(PutConfig(num_players=4), [0, 2]) == [1.0, -1.0, 1.0, -1.0]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("points", [1, 2, 5])
def test_P7_P8_a_scored_hand_sums_to_zero(players, points):
    config = PutConfig(num_players=players)
    for unit in range(config.num_units):
        rewards = hand_rewards(config, unit, points)
        assert sum(rewards) == 0
        assert rewards.count(float(points)) == players // config.num_units  # the unit's seats


def test_loss_per_seat_on_arrays():
    points = np.array([1, 2, 5])
    assert loss_per_seat(3, points).tolist() == [0.5, 1.0, 2.5]
    assert loss_per_seat(2, points).tolist() == [1, 2, 5]


def test_batched_put_kernel_compiles_the_split_from_the_rules():
    """The Numba kernel keeps no copy of P7/P8: it calls ``rules.loss_per_seat`` for both
    rewards (points and match), and defines no function of that name."""
    tree = ast.parse(inspect.getsource(batched_kernel))
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "loss_per_seat"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "rules"
    ]
    assert len(calls) == 2
    defined = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert "loss_per_seat" not in defined


def test_batched_put_kernel_cache_stamp_includes_put_rules_py():
    """A change to put/rules.py (P7/P8's split the kernel compiles in) invalidates the Put
    kernels' disk cache, as brag/rules.py does Brag's."""
    import os

    from brag_env.batched_input import stamped_sources
    from brag_env.put import rules

    stamps = stamped_sources(batched_kernel.step)
    if stamps is None:
        pytest.skip("this Numba keeps its cache stamp elsewhere")
    assert set(stamps) == {"rules.py", "batched_native.py"}  # both files the kernels compile in
    mtime, size, constants = stamps["rules.py"]
    info = os.stat(rules.__file__)
    assert (mtime, size) == (info.st_mtime, info.st_size)
    assert dict(constants)["TRICKS_PER_HAND"] == rules.TRICKS_PER_HAND
