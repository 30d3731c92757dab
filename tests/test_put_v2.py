"""put_v2: put_v1 with when each Put was called in the default observation (P4); put_v1 and
the model trained on it unchanged."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

from agents import make_agent, table_info_from_env
from agents.registry import styles
from brag_env import put_v1, put_v2
from brag_env.put.rules import PUT, SEE

MODEL = Path(__file__).resolve().parent.parent / "models" / "put_selfplay.zip"


@pytest.mark.parametrize("num_players", [2, 4])
def test_api_and_seed_tests(num_players):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dict observations and api_test's own reset option
        api_test(put_v2.env(num_players=num_players), num_cycles=200)
        seed_test(lambda: put_v2.env(num_players=num_players), num_cycles=100)


def test_registered_and_sizes():
    assert pettingzoo.make("aec", "brag_env/put_v2").unwrapped.metadata["name"] == "put_v2"
    sizes = {n: put_v2.raw_env(num_players=n).observation_space("player_0") for n in (2, 3, 4)}
    assert [sizes[n]["observation"].shape[0] for n in (2, 3, 4)] == [230, 328, 454]
    assert put_v1.raw_env().observation_space("player_0")["observation"].shape == (220,)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_P4_v2_is_v1_plus_the_put_timing(num_players):
    """Same seed, same play: the v2 vector starts with the v1 vector, and its timing fields
    are the trick and the cards on the table when the hand record says the Put came."""
    v1, v2 = put_v1.raw_env(num_players=num_players), put_v2.raw_env(num_players=num_players)
    size = v1.observation_space("player_0")["observation"].shape[0]
    seen = 0
    for seed in range(2):
        rng = np.random.default_rng(seed)
        v1.reset(seed=seed)
        v2.reset(seed=seed)
        for agent in v2.agent_iter(40):
            if v2.terminations[agent]:
                break
            game = v2.unwrapped.game
            for name in (agent, v2.possible_agents[-1]):
                a, b = v1.observe(name)["observation"], v2.observe(name)["observation"]
                np.testing.assert_array_equal(b[:size], a)
                put = put_v2.decode_observation(b, v2.config)["put"]
                if game.record.put_caller >= 0:
                    assert (put["trick"], put["turn"]) == (
                        game.record.put_trick + 1,
                        game.record.put_turn,
                    )
                    seen += 1
                else:
                    assert put["trick"] is None and put["turn"] is None
            legal = np.flatnonzero(v2.observe(agent)["action_mask"])
            action = PUT if PUT in legal and rng.random() < 0.3 else int(rng.choice(legal))
            v1.step(action)
            v2.step(action)
    assert seen > 0


def test_P4_v2_tells_apart_what_v1_does_not():
    """A Put before the first lead and one before the second trick's lead: the same put_v1
    vector at the last trick, different put_v2 vectors."""
    deck = "3s Ks 3h Kh 3d Kd"  # non-dealer (seat 0): 3 3 3; dealer: K K K
    vectors = {}
    for module in (put_v1, put_v2):
        for put_at in (0, 2):
            env = module.raw_env()
            env.reset(seed=0, options={"deck": deck, "dealer": 1})
            for step in range(4):
                if step == put_at:
                    env.step(PUT)
                    env.step(SEE)
                legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
                env.step(int(legal[0]))
            vectors[module.__name__, put_at] = env.observe("player_1")["observation"]
    np.testing.assert_array_equal(vectors["brag_env.put_v1", 0], vectors["brag_env.put_v1", 2])
    assert not np.array_equal(vectors["brag_env.put_v2", 0], vectors["brag_env.put_v2", 2])


def test_baselines_play_put_v2():
    """The baselines read put_v1's fields by offset; put_v2 only appends."""
    env = put_v2.raw_env(target_points=2)
    table = table_info_from_env(env)
    for style in styles("put"):
        if style == "equilibrium":
            continue  # builds the whole solver tree; reads the same offsets
        agents = [make_agent(f"put:{style}", table, seed) for seed in range(2)]
        env.reset(seed=1)
        for agent in env.agent_iter(500):
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            seat = env.possible_agents.index(agent)
            env.step(agents[seat].act(observation["observation"], observation["action_mask"]))
        assert all(env.terminations.values())


@pytest.mark.slow  # loads torch and the model: seconds
def test_shipped_model_keeps_put_v1_and_refuses_put_v2():
    env = put_v1.raw_env()
    model = make_agent(str(MODEL), table_info_from_env(env))
    env.reset(seed=0)
    observation = env.observe(env.agent_selection)
    assert observation["action_mask"][
        model.act(observation["observation"], observation["action_mask"])
    ]
    with pytest.raises(ValueError, match="observation") as err:
        make_agent(str(MODEL), table_info_from_env(put_v2.raw_env()))
    assert "\n" not in str(err.value)
