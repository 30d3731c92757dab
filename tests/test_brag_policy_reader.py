"""agents.brag_policy reads a stochastic Brag agent's exact behaviour strategy: checked against
the agent's own seeded play, without OpenSpiel.

For one seat holding one hand, a Monte Carlo walks the public tree: at the seat's nodes the
agent acts with its real generator (its per-hand state carried, as in a hand of ``brag_v1``),
at the other seat's nodes a uniformly random child is taken. The frequency of each action at
each visited node is the behaviour strategy there (the chance of the action given the node was
reached), which ``agent_strategy`` gives exactly."""

import numpy as np
import pytest

from agents.brag_policy import _observe, agent_strategy
from agents.registry import make_agent
from agents.tables import table_info
from brag_env.brag.observation import BragObserver
from brag_env.brag.solver.tree import build_tree
from brag_env.openspiel.brag import config_of

# B-rules of a 2-rank deck, 3-chip stacks, stakes 2 and 4: every action (look, stay, raise,
# see, cover, fold) occurs in its 65-node tree.
RULES = {"deck_ranks": 2, "starting_chips": 3, "max_stake": 4}
HANDS = 800  # hands played per agent


@pytest.fixture(scope="module")
def tree():
    cfg, dealer = config_of(RULES)
    return build_tree(cfg, dealer)


def _frequencies(agent, tree, seat, h, hands, seed):
    """Visit and action counts of ``agent`` at its nodes, holding hand ``h`` in ``seat``."""
    observer = BragObserver(tree.config)
    hand = tree.hands[h].tolist()
    walk = np.random.default_rng(seed)
    counts: dict[int, np.ndarray] = {}
    for _ in range(hands):
        agent.reset()
        v = 0
        while tree.player[v] >= 0:
            kids = tree.children[v]
            if tree.player[v] != seat:
                v = kids[walk.integers(len(kids))][1]
                continue
            obs, mask = _observe(tree, observer, v, seat, hand)
            action = int(agent.act(obs, mask))
            i = [a for a, _ in kids].index(action)
            counts.setdefault(v, np.zeros(len(kids)))[i] += 1
            v = kids[i][1]
    return counts


@pytest.mark.parametrize(
    ("spec", "seat", "strongest"),
    [("brag:bluffer", 0, False), ("brag:blind", 0, True), ("brag:tips", 0, False)],
)
def test_exact_strategy_matches_the_agents_seeded_play(spec, seat, strongest, tree):
    table = table_info("brag", **tree.config.to_dict())
    exact = agent_strategy(make_agent(spec, table, seed=0), tree)
    h = int(np.argmax(tree.strength) if strongest else np.argmin(tree.strength))
    counts = _frequencies(make_agent(spec, table, seed=7), tree, seat, h, HANDS, seed=1)
    mixed = 0  # nodes where the agent mixes, so the check is not only of pure choices
    for v, n in counts.items():
        want = exact[v] if exact[v].ndim == 1 else exact[v][h]
        visits = n.sum()
        # an action of chance 0 or 1 is never (always) taken; a mixed one within four
        # standard errors of its frequency over the visits
        bound = 4 * np.sqrt(np.clip(want * (1 - want), 0, None) / visits)
        assert (np.abs(n / visits - want) <= bound + 1e-9).all(), (spec, v, n, want)
        mixed += int(((want > 0) & (want < 1)).any() and visits >= 100)
    assert mixed > 0, spec
