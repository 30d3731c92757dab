"""brag7_v0, the Seven-card Brag AEC env (B24): PettingZoo API, seeds, rewards, observations."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import brag_env  # noqa: F401  (registers the envs)
from brag_env import brag7_v0
from brag_env.brag7.game import stacked_deck
from brag_env.brag7.observation import _views
from brag_env.brag7.rules import arrangement_id
from brag_env.cards import format_cards, parse_cards


@pytest.mark.parametrize("num_players", [2, 4, 7])
def test_api_test(num_players):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dict observations and api_test's own reset option
        api_test(brag7_v0.env(num_players=num_players, hands_per_session=3), num_cycles=60)
        api_test(brag7_v0.raw_env(num_players=num_players, hands_per_session=3), num_cycles=60)


def test_seed_test():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(lambda: brag7_v0.env(num_players=3, hands_per_session=4), num_cycles=60)


def test_registered_and_the_same_env():
    env = pettingzoo.make("aec", "brag_env/brag7_v0", num_players=3)
    assert env.unwrapped.metadata["name"] == "brag7_v0"
    assert env.unwrapped.config.num_players == 3


def test_b24_stacked_deal_pays_the_scoop_as_rewards():
    env = brag7_v0.env(num_players=2, hands_per_session=1)
    hands = ["As Ah Ad Ks Kh 2c 5d", "Qs Qh Qd Js Jh 3c 6d"]
    env.reset(seed=0, options={"deck": stacked_deck(hands, dealer=1), "dealer": 1})
    for seat in (0, 1):
        assert env.agent_selection == f"player_{seat}"
        cards = parse_cards(hands[seat])
        env.step(arrangement_id(cards[:3], cards[3:6], cards))
    assert env.unwrapped.game.last_result.winner == 0
    assert env._cumulative_rewards == {"player_0": 1.0, "player_1": -1.0}
    assert all(env.terminations.values())


def test_errors_are_one_line():
    raw = brag7_v0.raw_env(num_players=2, hands_per_session=1)
    with pytest.raises(RuntimeError, match="call reset"):
        raw.step(0)
    raw.reset(seed=1)
    with pytest.raises(ValueError, match=r"brag7_v0: player_\d: an arrangement is an id 0\.\.139"):
        raw.step(140)
    with pytest.raises(ValueError, match="integer action id"):
        raw.step(1.5)
    raw.step(0)
    raw.step(0)
    for _ in range(2):
        raw.step(None)
    with pytest.raises(RuntimeError, match="the game is over"):
        raw.step(0)
    env = brag7_v0.env(num_players=2)
    env.reset(seed=1)
    with pytest.raises(AssertionError, match=r"action 140 is not an action id 0\.\.139"):
        env.step(140)
    with pytest.raises(ValueError, match="num_players must be between 2 and 7"):
        brag7_v0.env(num_players=8)


def _play_randomly(env, rng, check):
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        check(agent, obs)
        env.step(int(rng.integers(140)))


@pytest.mark.parametrize("seed", range(20))
def test_b24_random_play_invariants(seed):
    """Chips conserved, rewards summing to zero, and every observation made of the observer's
    own cards and the previous showdown only (nothing of this deal's other hands or choices)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 8))
    env = brag7_v0.env(num_players=n, hands_per_session=int(rng.integers(1, 6)))
    env.reset(seed=seed)
    raw = env.unwrapped
    game = raw.game
    seen: dict[tuple[int, int], np.ndarray] = {}

    def check(agent: str, obs: dict[str, np.ndarray]) -> None:
        seat = raw._seat[agent]
        assert obs["action_mask"].all()
        v = _views(obs["observation"], raw.config)
        assert set(np.flatnonzero(v["own_cards"])) == set(game.hands[seat])
        others = {c for s, h in enumerate(game.hands) if s != seat for c in h}
        prev = game.last_result
        shown = (
            set() if prev is None else {c for h in prev.first_hands + prev.second_hands for c in h}
        )
        cards_in = set(np.flatnonzero(v["prev_first"].any(0) | v["prev_second"].any(0)))
        assert cards_in == shown  # the previous showdown, never its discards
        assert not (set(np.flatnonzero(v["own_cards"])) & others)
        # Every other player's view is unchanged by the arrangements made so far this deal.
        for other in range(n):
            vec = raw.observer.observation(game, other)
            vec[_slice(raw, "seat_to_act")] = 0
            key = (game.hand_number, other)
            if key in seen:
                assert np.array_equal(seen[key], vec)
            seen[key] = vec

    _play_randomly(env, rng, check)
    assert sum(game.chips) == n * raw.config.starting_chips
    total = sum(sum(r.deltas) for r in game.hand_results)
    assert total == 0 and game.pot == 0
    assert len(game.hand_results) == raw.config.hands_per_session


def _slice(raw, name):
    vec = np.zeros(raw.observation_space("player_0")["observation"].shape, np.float32)
    _views(vec, raw.config)[name][...] = 1
    return vec.astype(bool)


def test_decode_observation_reads_the_showdown():
    env = brag7_v0.env(num_players=3, hands_per_session=2)
    env.reset(seed=4)
    for _ in range(3):
        env.step(0)
    game = env.unwrapped.game
    agent = env.agent_selection
    seat = env.unwrapped._seat[agent]
    decoded = brag7_v0.decode_observation(env.observe(agent)["observation"], env.unwrapped.config)
    prev = game.last_result
    assert decoded["pot"] == game.pot and decoded["deal_number"] == 1
    order = [(seat + k) % 3 for k in range(3)]
    for k, s in enumerate(order):  # relative seats: row 0 is the observer
        assert decoded["prev_first"][k] == format_cards(prev.first_hands[s], symbols=False)
        assert decoded["prev_second"][k] == format_cards(prev.second_hands[s], symbols=False)
    assert decoded["seat_chips"] == [game.chips[s] for s in order]
    with pytest.raises(ValueError, match="observation has"):
        brag7_v0.decode_observation(np.zeros(3), env.unwrapped.config)


def test_copy_continues_the_same_game_and_render():
    env = brag7_v0.env(num_players=2, hands_per_session=2, render_mode="ansi")
    env.reset(seed=2)
    env.step(5)

    twin = copy.deepcopy(env)
    for e in (env, twin):
        e.step(7)
    assert env.unwrapped.game.hand_results == twin.unwrapped.game.hand_results
    text = env.render()
    assert "Deal 1 showdown" in text and "▮" in text
    assert env.unwrapped.hand_histories()[0]["config"]["num_players"] == 2


def test_b24_histories_rebuild_every_showdown_and_keep_histories_bounds_them():
    from brag_env.brag7.game import showdown

    env = brag7_v0.env(num_players=3, hands_per_session=6, keep_histories=2)
    env.reset(seed=8)
    rng = np.random.default_rng(8)
    _play_randomly(env, rng, lambda agent, obs: None)
    game = env.unwrapped.game
    assert len(game.hand_results) == 6
    records = env.unwrapped.hand_histories()
    assert [r["deal_number"] for r in records] == [4, 5]
    for record in records:
        dealt = [parse_cards(h) for h in record["dealt"]]
        laid, _, _, winner = showdown(dealt, record["arrangements"], lowball=False)
        assert winner == record["winner"]
        assert [format_cards(f, symbols=False) for f, _, _ in laid] == record["first_hands"]
