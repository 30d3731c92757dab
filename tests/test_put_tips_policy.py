"""``put:tips`` as the exact strategy the solver scores (P4, P5): the batched probabilities are
what ``act`` plays along env games, and tip 5's random call has chance ``after_win``."""

from __future__ import annotations

import numpy as np
import pytest
from env_turns import live_turns

from agents.put_policy import agent_strategy, batch_probabilities
from agents.registry import make_agent
from agents.tables import table_info
from brag_env import put_v1
from brag_env.put.rules import FOLD, PUT, SEE, PutConfig
from brag_env.put.solver.game import HandGame


class CountingRng:
    """The agent's generator, counting the draws ``act`` makes (tip 5 is the only one)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng, self.draws = rng, 0

    def random(self, *args):
        self.draws += 1
        return self.rng.random(*args)


@pytest.mark.parametrize(
    "options",
    [
        {"deck_ranks": 3},
        {"seen_put_points": "game"},
        # over 0.4 s: kept out of the quick subset (-m "not slow")
        pytest.param({}, marks=pytest.mark.slow),
        pytest.param({"deck_ranks": 9}, marks=pytest.mark.slow),
        pytest.param({"target_points": 11}, marks=pytest.mark.slow),
    ],
)
def test_P4_tips_batch_probabilities_are_what_act_plays(options):
    """Along random whole matches (both seats ``put:tips``, each now and then replaced by a
    random legal action), every decision's batched probabilities give ``act``'s choice
    probability 1, except where ``act`` draws tip 5: there PUT has exactly ``after_win`` and
    the greedy card the rest."""
    env = put_v1.raw_env(**options)
    table = table_info("put", **options)
    after_win = 0.3
    agents = [make_agent(f"put:tips:after_win={after_win}", table, seed=s) for s in (1, 2)]
    for a in agents:
        a.rng = CountingRng(a.rng)
    probs = [batch_probabilities(a) for a in agents]
    rng = np.random.default_rng(5)
    seen = {"draw": 0, "put": 0, SEE: 0, FOLD: 0, "card": 0}
    for seat, o, m in live_turns(env, range(12)):
        p = probs[seat](o[None], m[None])[0]
        assert p.sum() == pytest.approx(1.0) and (p[m == 0] == 0).all()
        before = agents[seat].rng.draws
        choice = agents[seat].act(o, m)
        if agents[seat].rng.draws > before:  # tip 5 was drawn: a mixed decision
            assert p[PUT] == after_win
            assert p.max() == 1 - after_win and (p > 0).sum() == 2
            assert p[choice] > 0
            seen["draw"] += 1
        else:
            assert p[choice] == 1.0, (options, p, choice)
            key = "put" if choice == PUT else choice if choice in (SEE, FOLD) else "card"
            seen[key] += 1
        if rng.random() < 0.2:
            choice = int(rng.choice(np.flatnonzero(m)))
        env.step(choice)
    # every kind of decision was checked: calls, answers both ways, cards, tip 5's draws;
    # with few ranks every hand rates strong on the full-pack percentile: no fold, and no tip
    # 5 with 6 ranks or fewer (test_P4_tips_strategy_mixes_only_at_tip_5)
    short = options.get("deck_ranks", 13) < 7
    assert all(v > 0 for k, v in seen.items() if not short or k in ("put", SEE, "card")), seen


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
@pytest.mark.parametrize("k,mixed_sets", [(6, 0), (7, 12)])
def test_P4_tips_strategy_mixes_only_at_tip_5(k, mixed_sets):
    """Over every information set of deck_ranks k, the chance of a Put is 0 or 1 except when
    leading trick 2 (layer 2) after taking trick 1 with a K down to an 8: after_win. With 6
    ranks (3 down to J) no such hand is weak enough for tip 5; with 7 (down to 10) some are."""
    config = PutConfig(deck_ranks=k)
    agent = make_agent("put:tips:after_win=0.3", table_info("put", deck_ranks=k))
    game = HandGame.build(config)
    strategy = agent_strategy(batch_probabilities(agent), game.tree, config, (0, 0))
    for d, put in enumerate(strategy.put):
        values = set(np.unique(put).tolist())
        assert values <= ({0.0, 1.0, 0.3} if d == 2 else {0.0, 1.0}), (d, values)
    layer = game.tree.layers[2]
    seqs, callers, actor = (x.astype(int) for x in (layer.seqs, layer.callers, layer.actor))
    untied = seqs[:, 0] != seqs[:, 1]  # then the actor, leading trick 2, took trick 1
    card = np.where(callers[:, 0] == actor, seqs[:, 0], seqs[:, 1])  # its card in trick 1
    mid = untied & (card >= 3) & (card <= 8)  # a K down to an 8
    possible = layer.weight.sum(axis=2) > 0
    mixes = (strategy.put[2] == 0.3) & possible
    assert mixes.sum() == mixed_sets and not mixes[~mid].any()
    if not mixed_sets:
        return
    # after such a trick the Put is certain (strong, or middling and ahead) or after_win
    assert set(np.unique(strategy.put[2][mid][possible[mid]]).tolist()) == {0.3, 1.0}
    np.testing.assert_allclose(strategy.play[2][0][mixes].sum(axis=1), 0.7)  # the card
