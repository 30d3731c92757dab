"""The exact solver against OpenSpiel (P1-P6): the same policies, the same NashConv to 1e-6.

OpenSpiel plays the hand through the real engine (``brag_env.openspiel.put``) and asks agents
one env observation at a time, so this also checks the solver's batched observations.
"""

from __future__ import annotations

import pytest

pytest.importorskip("pyspiel")

from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import exploitability as os_exploitability

from agents.put_policy import agent_strategy, batch_probabilities
from agents.registry import make_agent
from agents.tables import table_info
from brag_env.openspiel.put import AgentPolicy, StrategyPolicy, load_hand
from brag_env.put.rules import PutConfig
from brag_env.put.solver.cfr import Accumulators, iterate, normalise
from brag_env.put.solver.game import HandGame, exploitability
from brag_env.put.solver.strategy import uniform


def _nash_conv(game, policy):
    return os_exploitability.nash_conv(game, policy, return_only_nash_conv=False)


def _check_agent(os_game, game, spec):
    """The agent ``spec``, asked observation by observation on the OpenSpiel side."""
    config, score = os_game.setup.config, os_game.setup.scores
    agent = make_agent(spec, table_info("put", **config.to_dict()))
    probs = batch_probabilities(agent)
    ours = exploitability(game, agent_strategy(probs, game.tree, config, score))
    theirs = _nash_conv(os_game, AgentPolicy(os_game, probs))
    assert theirs.nash_conv / 2 == pytest.approx(ours.exploitability, abs=1e-6)


def _check(k, config_options=None, score=(0, 0)):
    config = PutConfig(deck_ranks=k, **(config_options or {}))
    os_game = load_hand(config, score)
    game = HandGame.build(config, score)
    # uniform random: OpenSpiel's own uniform policy against the solver's uniform profile
    ours = exploitability(game, uniform(game.tree))
    theirs = _nash_conv(os_game, os_policy.UniformRandomPolicy(os_game))
    assert theirs.nash_conv / 2 == pytest.approx(ours.exploitability, abs=1e-6)
    _check_agent(os_game, game, "put:caller")  # a baseline
    # a solver iterate (5 DCFR iterations), looked up state by state
    regret, avg = Accumulators.zeros(game.tree), Accumulators.zeros(game.tree)
    for t in range(1, 6):
        iterate(game.tree, game.points, regret, avg, t)
    strategy = normalise(game.tree, avg)
    ours = exploitability(game, strategy)
    theirs = _nash_conv(os_game, StrategyPolicy(os_game, game.tree, strategy))
    assert theirs.nash_conv / 2 == pytest.approx(ours.exploitability, abs=1e-6)
    best_nd = theirs.player_improvements[0] + ours.value_non_dealer
    assert best_nd == pytest.approx(ours.br_non_dealer, abs=1e-6)


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_P1_P6_solver_matches_openspiel_deck_ranks_2():
    _check(2)


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_P4_P5_solver_matches_openspiel_seen_put_game_draw_to_opponent():
    _check(2, {"seen_put_points": "game", "put_draw_to_opponent": True}, score=(3, 1))


@pytest.mark.slow
def test_P1_P6_solver_matches_openspiel_deck_ranks_3():
    _check(3)


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
@pytest.mark.parametrize("score", [(0, 0), (3, 4)])
def test_P4_tips_solver_matches_openspiel_deck_ranks_2(score):
    """``put:tips`` on deck_ranks 2 (at 3-4 tip 4 also calls with a lone 2 after losing a
    trick): OpenSpiel and the solver score it alike. Its strategy is not the caller's."""
    config = PutConfig(deck_ranks=2)
    game = HandGame.build(config, score)
    _check_agent(load_hand(config, score), game, "put:tips")
    table = table_info("put", **config.to_dict())
    tips, caller = (
        agent_strategy(batch_probabilities(make_agent(spec, table)), game.tree, config, score)
        for spec in ("put:tips", "put:caller")
    )
    assert any((a != b).any() for a, b in zip(tips.put, caller.put, strict=True))


@pytest.mark.slow  # over 0.4 s: two OpenSpiel best responses
@pytest.mark.parametrize("spec", ["random", "put:greedy"])
def test_P1_P6_exploit_command_matches_openspiel(spec):
    """``python -m brag_env.exploit put SPEC --deck-ranks 2`` measures (``exploit.measure``)
    what OpenSpiel's ``nash_conv`` gives for the same agent, to 1e-6."""
    from brag_env.exploit import measure

    config = PutConfig(deck_ranks=2)
    ours = measure(spec, config)
    agent = make_agent(spec, table_info("put", **config.to_dict()))
    theirs = _nash_conv(
        load_hand(config), AgentPolicy(load_hand(config), batch_probabilities(agent))
    )
    assert theirs.nash_conv / 2 == pytest.approx(ours.exploitability, abs=1e-6)
