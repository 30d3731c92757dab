"""The exact small-deck yardstick: the exploit CLI, the solver's file and brag:equilibrium."""

import numpy as np
import pytest

from agents.brag_equilibrium import DEFAULT_PATH
from agents.registry import make_agent
from agents.tables import table_info
from brag_env.brag.rules import BragConfig
from brag_env.brag.solver.__main__ import main as solve_main
from brag_env.brag.solver.cfr import CFRPlus, evaluate
from brag_env.brag.solver.exact import exact_config, measure
from brag_env.brag.solver.io import load_strategy, save_strategy
from brag_env.brag.solver.tree import build_tree
from brag_env.exploit import main as exploit_main

TINY = {"num_players": 2, "deck_ranks": 2, "starting_chips": 2, "max_stake": 2}
TINY_ARGS = ["--option", "deck_ranks=2", "--option", "starting_chips=2", "--option", "max_stake=2"]


def test_exploit_cli_prints_the_exact_figure_for_random(capsys):
    assert exploit_main(["brag", "random", *TINY_ARGS]) == 0
    out = capsys.readouterr().out
    # OpenSpiel's exploitability of its uniform random policy on this game: 0.7404761904761902
    assert "exploitability (NashConv / 2):          0.740476 chips/hand" in out


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--seats", "3"], "the exact small-deck measure is heads-up: --seats 2"),
        (["--option", "deck_ranks=5"], "covers deck_ranks <= 4"),
        (["--option", "prial_bonus=1"], "does not cover prial_bonus"),
    ],
)
def test_exploit_cli_refuses_what_it_does_not_cover(capsys, extra, message):
    assert exploit_main(["brag", "random", *TINY_ARGS, *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_solver_file_round_trip_and_equilibrium_agent(tmp_path, capsys):
    out = tmp_path / "eq.npz"
    assert solve_main([*TINY_ARGS, "--max-iterations", "3000", "--out", str(out)]) == 0
    assert "NashConv" in capsys.readouterr().out
    tree, strategy, meta = load_strategy(out)
    assert meta["nash_conv"] <= 1e-3 and tree.config == BragConfig(**TINY)
    again = evaluate(tree, strategy)
    assert again.nash_conv == pytest.approx(meta["nash_conv"], abs=1e-12)
    # the agent reads the same strategy back from its observations alone
    config = exact_config(TINY)
    measured = measure(f"brag:equilibrium:path={out}", config)
    assert measured.result.nash_conv == pytest.approx(meta["nash_conv"], abs=1e-9)
    with pytest.raises(ValueError, match="was solved for starting_chips=2"):
        make_agent(
            f"brag:equilibrium:path={out}",
            table_info("brag", **{**TINY, "starting_chips": 3}),
        )


def test_solver_file_that_does_not_fit_is_refused(tmp_path):
    tree = build_tree(BragConfig(**TINY))
    solver = CFRPlus(tree)
    solver.iterate()
    bad = [None if s is None else s[..., :1] for s in solver.average()]
    save_strategy(tmp_path / "bad.npz", tree, bad, {})
    with pytest.raises(ValueError, match="does not fit the tree"):
        load_strategy(tmp_path / "bad.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a solver file"):
        load_strategy(tmp_path / "junk.npz")


def test_cfr_plus_value_is_the_zero_sum_saddle():
    """At the solved profile each seat's best response is worth (nearly) the game value."""
    tree = build_tree(BragConfig(**TINY))
    solver = CFRPlus(tree)
    result = solver.solve(1e-3, 4000, check_every=100)
    assert result.nash_conv <= 1e-3 and solver.best_iteration == solver.iterations
    assert result.br0 == pytest.approx(result.value0, abs=1e-3)
    assert result.br1 == pytest.approx(-result.value0, abs=1e-3)
    assert np.isfinite(result.value0)


SHIPPED = {"num_players": 2, "deck_ranks": 2, "starting_chips": 6, "max_stake": 4}


def test_shipped_equilibrium_refuses_other_rules():
    with pytest.raises(ValueError, match=r"^brag:equilibrium: .* was solved for num_players=2"):
        make_agent("brag:equilibrium", table_info("brag", num_players=4))
    with pytest.raises(ValueError, match="was solved for max_stake=4"):
        make_agent("brag:equilibrium", table_info("brag", **{**SHIPPED, "max_stake": 8}))


@pytest.mark.slow
def test_shipped_equilibrium_is_within_its_measured_nash_conv():
    _, _, meta = load_strategy(DEFAULT_PATH)
    assert meta["nash_conv"] <= 1e-3
    measured = measure("brag:equilibrium", exact_config(SHIPPED))
    assert measured.result.nash_conv == pytest.approx(meta["nash_conv"], abs=1e-9)
    assert measured.result.value0 == pytest.approx(meta["value_seat0"], abs=1e-9)


def test_exact_reader_enumerates_every_draw_of_an_agent():
    from agents.base import Agent
    from agents.brag_policy import outcomes

    class TwoDraws(Agent):
        def act(self, observation, action_mask):
            if self.rng.random() < 0.3:
                return 1
            return 2 + int(self.rng.integers(2))

    found: dict[int, float] = {}
    for chance, action, _ in outcomes(TwoDraws(seed=0), np.zeros(3), np.ones(4)):
        found[action] = found.get(action, 0.0) + chance
    assert found == pytest.approx({1: 0.3, 2: 0.35, 3: 0.35})

    class Sized(Agent):
        def act(self, observation, action_mask):
            return int(self.rng.random(2)[0] < 0.5)

    with pytest.raises(ValueError, match="scalar draws only"):
        outcomes(Sized(seed=0), np.zeros(3), np.ones(4))


def _own_reach(tree, profile, seat):
    """(nodes, H): seat's own probability of its actions on the path to each node."""
    reach = np.ones((tree.num_nodes, tree.num_hands))
    for v in range(tree.num_nodes):  # parents are numbered before their children
        for i, (_, child) in enumerate(tree.children[v]):
            reach[child] = reach[v]
            if tree.player[v] == seat:
                sigma = profile[v]
                reach[child] = reach[v] * (sigma[:, i] if sigma.ndim == 2 else sigma[i])
    return reach


def test_cfr_plus_average_is_the_reach_weighted_mix_of_its_iterates():
    """CFR+'s average strategy weighs iteration t's strategy by t times the seat's own reach
    of the information set (B10: one row for a blind seat); issue 25's solver left the own
    reach at 1 below the seat's own actions."""
    tree = build_tree(BragConfig(**{**TINY, "starting_chips": 3}))
    solver = CFRPlus(tree)
    expected = [None if s is None else np.zeros_like(s) for s in solver.current()]
    for t in range(1, 6):
        played = solver.current()  # both seats' strategies of iteration t (alternating updates)
        reach = [_own_reach(tree, played, seat) for seat in (0, 1)]
        for v, p in enumerate(tree.player):
            if p < 0:
                continue
            own = reach[p][v]
            sigma = played[v]
            expected[v] += t * (own[:, None] * sigma if sigma.ndim == 2 else own[0] * sigma)
        solver.iterate()
    average = solver.average()
    differs = 0
    for v, total in enumerate(expected):
        if total is None:
            continue
        mass = total.sum(axis=-1, keepdims=True)
        want = np.where(mass > 0, total / np.where(mass > 0, mass, 1.0), 1.0 / total.shape[-1])
        np.testing.assert_allclose(average[v], want, atol=1e-12)
        differs += not np.allclose(want, played[v])
    assert differs  # the average is not just the last iterate
