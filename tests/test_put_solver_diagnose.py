"""brag_env.put.solver.diagnose: regrets by decision and the average of several profiles."""

from __future__ import annotations

import numpy as np
import pytest

from brag_env.exploit import agent_profile, main
from brag_env.put.rules import PutConfig
from brag_env.put.solver.diagnose import average, pair, regret_table
from brag_env.put.solver.game import HandGame, exploitability
from brag_env.put.solver.passes import expected_values
from brag_env.put.solver.strategy import uniform


@pytest.fixture(scope="module")
def game() -> HandGame:
    return HandGame.build(PutConfig(deck_ranks=2))


@pytest.fixture(scope="module")
def profiles(game):
    config = game.config
    specs = ("put:caller", "put:bluffer", "put:greedy")
    return {spec: agent_profile(spec, config, game) for spec in specs}


def test_regrets_bound_twice_the_exploitability_and_vanish_in_play_at_equilibrium(game, profiles):
    """CFR's bound (the immediate regrets of each player add up to at least its best-response
    gain), and the equilibrium (P1-P5 on the top 2 ranks) has nothing to gain where it plays."""
    for strategy in [uniform(game.tree), *profiles.values()]:
        rows = regret_table(game.tree, strategy, game.points)
        total = sum(row.regret for row in rows)
        assert total >= 2 * exploitability(game, strategy).exploitability - 1e-9
        assert all(row.regret >= row.in_play >= 0 for row in rows)
        assert len(rows) == 6 * 2 * 3
    eq = agent_profile("put:equilibrium:path=models/put_equilibrium_k2.npz", game.config, game)
    assert sum(row.in_play for row in regret_table(game.tree, eq, game.points)) < 1e-3
    caller = regret_table(game.tree, profiles["put:caller"], game.points)
    assert sum(row.in_play for row in caller) > 0.05


def test_average_plays_like_picking_one_profile_per_hand(game, profiles):
    """Kuhn's theorem: against a fixed opponent, the average's value is the mean of the
    profiles' values, in either seat; a profile averaged with itself is itself."""
    a, b, opponent = profiles["put:caller"], profiles["put:bluffer"], profiles["put:greedy"]
    mixed = average(game.tree, [a, b], [1.0, 3.0])
    for role in (0, 1):

        def value(s, role=role):
            both = pair(game.tree, s, opponent) if role == 0 else pair(game.tree, opponent, s)
            return expected_values(game.tree, both, game.points)[role]

        assert value(mixed) == pytest.approx((value(a) + 3 * value(b)) / 4, abs=1e-12)
    same = average(game.tree, [a, a])
    for d in range(6):
        np.testing.assert_allclose(same.put[d], a.put[d], atol=1e-12)
        np.testing.assert_allclose(same.see[d], a.see[d], atol=1e-12)
    with pytest.raises(ValueError, match="one weight >= 0 per strategy"):
        average(game.tree, [a, b], [1.0])


def test_the_command_prints_the_breakdown_and_measures_an_average(capsys):
    assert main(["put", "put:caller", "--deck-ranks", "2", "--breakdown"]) == 0
    out = capsys.readouterr().out
    assert "immediate regrets against itself" in out and "bounds twice the exploitability" in out
    assert main(["put", "put:caller", "put:bluffer", "--deck-ranks", "2"]) == 0
    assert capsys.readouterr().out.startswith("average of put:caller put:bluffer")
