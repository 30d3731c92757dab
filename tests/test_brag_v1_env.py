"""brag_v1: PettingZoo conformance with covers and carried pots, the B16 observation block, hand
histories that replay, bad input; brag_v0 as the exact alias of the original rules."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from brag_env import brag_v0, brag_v1
from brag_env.brag.replay import replay_session
from brag_env.brag.rules import BragConfig
from brag_env.brag.scenario import stack_deck

CARRY = {"blind_alone": "carries", "unopened_pot": "carries", "shuffle": "after_prial_or_cycle"}


@pytest.mark.parametrize("num_players", [2, 4, 8])
def test_B16_B15_api_test_sessions_with_covers_and_carries(num_players: int) -> None:
    env = brag_v1.raw_env(num_players=num_players, hands_per_session=8, starting_chips=15, **CARRY)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env, num_cycles=400)
        api_test(brag_v1.env(num_players=num_players), num_cycles=100)


def test_B16_seed_test() -> None:
    seed_test(lambda: brag_v1.env(num_players=3, hands_per_session=6, starting_chips=12), 200)


def _cover_env() -> brag_v1.raw_env:
    """Heads-up, seat 0 deals: seat 1 looks, raises and at S=4 covers with 3 chips."""
    env = brag_v1.raw_env(num_players=2, starting_chips=10, hands_per_session=2)
    deck = stack_deck(["2h 5d 9c", "As Ad 5c"], dealer=0)
    env.reset(seed=0, options={"deck": deck, "dealer": 0})
    names = {n: i for i, n in enumerate(env.action_names)}
    for name in ("look", "stay", "stay", "raise_2x", "stay"):
        env.step(names[name])
    return env


def test_B16_cover_through_raw_env_when_not_legal_is_a_value_error() -> None:
    env = brag_v1.raw_env(num_players=3)
    env.reset(seed=1)
    with pytest.raises(ValueError, match=r"'cover'.*illegal"):
        env.step(env.action_names.index("cover"))


def test_B16_observation_shows_the_cover_and_the_side_pot() -> None:
    env = brag_v1.raw_env(num_players=3, starting_chips=20)
    deck = stack_deck(["2h 5d 9c", "As Ad 5c", "Jc Jh 3d"], dealer=0)
    env.reset(seed=0, options={"deck": deck, "dealer": 0})
    names = {n: i for i, n in enumerate(env.action_names)}
    for name in ("look", "raise_2x", "stay", "stay", "raise_2x", "stay", "stay", "cover", "stay"):
        env.step(names[name])
    view = brag_v1.decode_observation(env.observe("player_0")["observation"], env.config)
    # Relative rows for player_0: 0 = itself, 1 = player_1 (the coverer), 2 = player_2.
    assert [s["covered"] for s in view["seats"]] == [False, True, False]
    assert view["seats"][1]["covered_pot"] == 34 and view["seats"][1]["status"] == "folded"
    assert view["side_pot"] == 4 and view["pot"] == 38
    assert view["history"][1]["action"] == "cover" and view["history"][1]["paid"] == 7


def test_B16_histories_with_covers_replay() -> None:
    env = _cover_env()
    env.step(env.action_names.index("cover"))
    (hist,) = env.hand_histories()
    assert hist["covers"] == [{"seat": 1, "closed_pot": 14}]
    assert hist["pots"] == [
        {"chips": 0, "winner": 0, "coverer": -1},
        {"chips": 14, "winner": 1, "coverer": 1},
    ]
    assert set(hist["shown"]) == {"0", "1"} and hist["actions"][-1]["action"] == "cover"
    assert [r.deltas for r in replay_session([hist])] == [[-4, 4]]


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_B15_B16_random_sessions_replay_and_stay_zero_sum() -> None:
    rng = np.random.default_rng(0)
    covers = carries = 0
    for seed in range(40):
        env = brag_v1.raw_env(
            num_players=2 + seed % 5, hands_per_session=10, starting_chips=12, **CARRY
        )
        env.reset(seed=seed)
        total = dict.fromkeys(env.possible_agents, 0.0)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
            for a, r in env.rewards.items():
                total[a] += r
        assert sum(total.values()) == 0
        histories = env.hand_histories()
        replay_session(histories)
        covers += sum(bool(h["covers"]) for h in histories)
        carries += sum(h["carried"] > 0 for h in histories)
    assert covers > 20 and carries > 5


def test_brag_v0_is_the_original_rules() -> None:
    env = brag_v0.raw_env()
    assert env.metadata["name"] == "brag_v0" and "cover" not in env.action_names
    assert env.config.cover_pot is False and env.action_space("player_0").n == 7
    assert brag_v1.raw_env().config.cover_pot is True
    for options, field in (
        ({"cover_pot": True}, "cover_pot"),
        ({"blind_alone": "carries"}, "blind_alone"),
        ({"unopened_pot": "carries"}, "unopened_pot"),
        ({"shuffle": "after_prial_or_cycle"}, "shuffle"),
    ):
        with pytest.raises(ValueError, match=f"^{field}: brag_v0"):
            brag_v0.env(**options)
    with pytest.raises(ValueError, match=r"^cover_pot: brag_v0"):
        brag_v0.raw_env(config=BragConfig())
