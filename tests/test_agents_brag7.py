"""The Seven-card Brag baselines (B24): checked against a brute-force reading of the ranking."""

from __future__ import annotations

import numpy as np
import pytest

from agents.registry import make_agent, parse_spec, styles
from agents.tables import table_info, table_info_from_env
from brag_env import brag7_v0
from brag_env.brag.hands import hand_strength, strength_percentile
from brag_env.brag7.rules import NUM_ARRANGEMENTS, arrangement, arrangement_id


def _deal_and_observe(seed: int, **options):
    env = brag7_v0.env(num_players=3, hands_per_session=1, **options)
    env.reset(seed=seed)
    game = env.unwrapped.game
    obs = env.observe(env.agent_selection)
    return env, game.hands[game.current_player], obs


@pytest.mark.parametrize("lowball", [False, True])
def test_b24_b21_strongest_first_takes_the_best_first_hand_then_second(lowball):
    for seed in range(15):
        env, cards, obs = _deal_and_observe(seed, lowball=lowball)
        agent = make_agent("brag7:strongest_first", table_info_from_env(env), seed=0)
        chosen = arrangement(agent.act(obs["observation"], obs["action_mask"]), cards)

        def key(a: int, cards=cards) -> tuple[int, int]:
            first, second, _ = arrangement(a, cards)
            return hand_strength(first, lowball), hand_strength(second, lowball)

        best = max(range(NUM_ARRANGEMENTS), key=key)
        assert key(arrangement_id_of(chosen, cards)) == key(best)


def arrangement_id_of(chosen, cards):
    return arrangement_id(chosen[0], chosen[1], cards)


def test_b24_balanced_maximises_the_product_of_the_percentiles():
    for seed in range(15):
        env, cards, obs = _deal_and_observe(seed)
        table = table_info_from_env(env)
        for score in ("product", "min"):
            agent = make_agent(f"brag7:balanced:score={score}", table, seed=0)
            action = agent.act(obs["observation"], obs["action_mask"])

            def value(a: int, cards=cards, score=score) -> float:
                first, second, _ = arrangement(a, cards)
                p = [strength_percentile(hand_strength(h)) for h in (first, second)]
                return p[0] * p[1] if score == "product" else min(p)

            assert value(action) == pytest.approx(max(map(value, range(NUM_ARRANGEMENTS))))


def test_registry_lists_the_brag7_styles():
    assert {"random", "strongest_first", "balanced"} <= set(styles("brag7"))
    assert parse_spec("brag7:balanced:score=min").params == {"score": "min"}
    with pytest.raises(ValueError, match="score"):
        make_agent("brag7:balanced:score=max", table_info("brag7"))
    with pytest.raises(ValueError, match="is a brag7 agent"):
        make_agent("brag7:balanced", table_info("brag"))


def test_random_style_is_seeded():
    env, _, obs = _deal_and_observe(0)
    table = table_info_from_env(env)
    picks = [
        [make_agent("brag7:random", table, seed=s).act(obs["observation"], obs["action_mask"])]
        for s in (1, 1, 2)
    ]
    assert picks[0] == picks[1]
    assert np.all(obs["action_mask"] == 1)
