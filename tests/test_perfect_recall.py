"""The ``perfect_recall`` observation option of brag_v1 and put_v1: the PettingZoo checks, the
recall block against the engines' public events, no hidden card in it, and the agents and the
self-play env on tables that have it."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from agents.registry import styles
from brag_env import brag_v1, put_v1, put_v2
from brag_env.brag.observation import observation_layout, recall_length
from brag_env.brag.rules import FOLD, LOOK, SEE, STAY, BragConfig
from brag_env.evaluation import evaluate
from brag_env.put.rules import ACTION_NAMES, PASS, PASS_NONE
from brag_env.selfplay import VsPoolEnv
from tests.env_turns import live_turns

# Short stacks and several hands, so that covers, carried pots and long betting come up.
BRAG_OPTIONS = {"num_players": 3, "starting_chips": 12, "hands_per_session": 4}


@pytest.mark.parametrize(
    "module, options",
    [
        (brag_v1, {"num_players": 2, "starting_chips": 20}),
        (put_v1, {}),
        (put_v1, {"num_players": 4}),
        (put_v2, {}),
        (put_v2, {"num_players": 4}),
    ],
)
def test_api_and_seed_tests_pass_with_perfect_recall(module, options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dict observations and api_test's own reset option
        api_test(module.env(perfect_recall=True, **options), num_cycles=200)
        seed_test(lambda: module.env(perfect_recall=True, **options), num_cycles=100)


def _random_steps(env, seed: int, choose=None):
    """Yield before every step of random legal play; ``choose(mask, rng)`` may pick instead."""
    rng = np.random.default_rng(seed)
    for _, _, mask in live_turns(env, [seed]):
        yield
        action = choose(mask, rng) if choose else int(rng.choice(np.flatnonzero(mask)))
        env.step(action)


def test_B10_brag_recall_is_every_public_event_and_the_default_vector_is_unchanged():
    """The vector starts with the default observation; the recall block decodes to the whole
    of ``game.betting`` (seat relative to the observer, action, chips), oldest first."""
    recall = brag_v1.raw_env(perfect_recall=True, **BRAG_OPTIONS)
    plain = brag_v1.raw_env(**BRAG_OPTIONS)
    size = observation_layout(plain.config).size
    longest = 0

    def mostly_stay(mask, rng):  # long betting: stay (blind, cheap) most of the time
        if mask[STAY] and rng.random() < 0.85:
            return STAY
        return int(rng.choice(np.flatnonzero(mask)))

    for seed in range(2):
        steps = zip(
            _random_steps(recall, seed, mostly_stay),
            _random_steps(plain, seed, mostly_stay),
            strict=False,
        )
        for _ in steps:
            game = recall.unwrapped.game
            for seat, name in enumerate(recall.possible_agents):
                vector = recall.observe(name)["observation"]
                np.testing.assert_array_equal(vector[:size], plain.observe(name)["observation"])
                decoded = brag_v1.decode_observation(vector, recall.config)["recall"]
                expected = [
                    {
                        "relative_seat": (s - seat) % 3,
                        "action": recall.config.action_names[a],
                        "paid": paid,
                    }
                    for s, a, paid in game.betting
                ]
                assert decoded == expected
            longest = max(longest, len(game.betting))
    assert longest > 16  # past the default history's reach
    assert longest <= recall_length(recall.config)


def test_B10_B14_brag_recall_leaks_no_hidden_card():
    """Two deals that differ only in seat 0's cards, played alike with no look and no see:
    every seat's vector is the same in both (a blind seat knows nothing of its own cards, and
    nobody of another's), the recall block included."""
    options = {"num_players": 3, "starting_chips": 30, "perfect_recall": True}
    decks = ["As Ad Ah 2c 3c 4c 5d 6d 7d", "2s 4d 7h 2c 3c 4c 5d 6d 7d"]
    envs = [brag_v1.raw_env(**options) for _ in decks]

    def no_look(mask, rng):  # never look nor see; fold only when nothing else is left
        mask = mask.copy()
        mask[[LOOK, SEE]] = 0
        if mask.sum() > mask[FOLD]:
            mask[FOLD] = 0
        return int(rng.choice(np.flatnonzero(mask)))

    for seed in range(5):
        for env, deck in zip(envs, decks, strict=True):
            env.reset(seed=seed, options={"deck": deck, "dealer": 2})
        rng = np.random.default_rng(seed)
        steps = 0
        while not any(env.terminations[a] for env in envs for a in env.agents):
            a, b = envs
            if a.unwrapped.game.hand_number > 0:
                break  # the first hand's cards are the only difference
            for name in a.possible_agents:
                np.testing.assert_array_equal(
                    a.observe(name)["observation"], b.observe(name)["observation"]
                )
            mask = a.observe(a.agent_selection)["action_mask"]
            np.testing.assert_array_equal(mask, b.observe(b.agent_selection)["action_mask"])
            action = no_look(mask, rng)
            a.step(action)
            b.step(action)
            steps += 1
        assert steps > 5


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_P4_put_recall_is_the_hand_in_order(num_players):
    """The vector starts with the default observation; the recall rows are the hand record's
    actions (another seat's pass card hidden) for this hand and the last."""
    recall = put_v1.raw_env(num_players=num_players, target_points=2, perfect_recall=True)
    plain = put_v1.raw_env(num_players=num_players, target_points=2)
    size = plain.observation_space("player_0")["observation"].shape[0]
    puts = 0
    for seed in range(2):
        for _ in zip(_random_steps(recall, seed), _random_steps(plain, seed), strict=False):
            game = recall.unwrapped.game
            for seat, name in enumerate(recall.possible_agents):
                vector = recall.observe(name)["observation"]
                np.testing.assert_array_equal(vector[:size], plain.observe(name)["observation"])
                decoded = put_v1.decode_observation(vector, recall.config)
                for key, record in (("history", game.record), ("last_history", game.last_record)):
                    expected = [
                        {
                            "seat": (s - seat) % num_players,
                            "action": None
                            if PASS <= a <= PASS_NONE and s != seat
                            else ACTION_NAMES[a],
                        }
                        for s, a, _ in (record.actions if record else [])
                    ]
                    assert decoded[key] == expected
                puts += any(e["action"] == "put" for e in decoded["history"])
    assert puts > 0


def test_P8_put_recall_hides_the_pass_card():
    """Seat 0 passes different cards in two otherwise equal hands: until the cards move, every
    other seat's vector is the same (the row shows only that seat 0 chose)."""
    envs = [put_v1.raw_env(num_players=4, perfect_recall=True) for _ in range(2)]
    deck = "3s Ks Qs Js 2h Kh Qh Jh Ad Kd Qd Jd"  # seat 0 (dealer's left) holds 3 2 A
    for env in envs:
        env.reset(seed=1, options={"deck": deck, "dealer": 3})
    for env, action in zip(envs, ("pass_3", "pass_2"), strict=True):
        env.step(ACTION_NAMES.index(action))
    for name in ("player_1", "player_2", "player_3"):
        a, b = (env.observe(name)["observation"] for env in envs)
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(*(env.observe("player_0")["observation"] for env in envs))


def _play_baselines(game: str, options: dict, names: list[str]) -> None:
    seats = options.get("num_players", 2)
    for start in range(0, len(names), seats):
        specs = (names[start:] + names)[:seats]
        result = evaluate(game, specs, 2, seed=start, options={**options, "perfect_recall": True})
        assert result.episodes > 0


@pytest.mark.parametrize(
    "game, options",
    [("brag", BRAG_OPTIONS), ("put", {"target_points": 2}), ("put", {"num_players": 4})],
)
def test_every_baseline_plays_a_table_with_perfect_recall(game, options):
    """The baselines read the default fields by offset: the appended block changes nothing."""
    # put:equilibrium (heads-up only) builds the full solver tree: the slow test below
    names = [f"{game}:{style}" for style in styles(game) if style != "equilibrium"]
    _play_baselines(game, options, names)


@pytest.mark.slow  # about 20 s: put:equilibrium builds the whole solver tree
def test_put_equilibrium_plays_a_table_with_perfect_recall():
    _play_baselines("put", {"target_points": 2}, ["put:equilibrium", "put:caller"])


@pytest.mark.parametrize("game", ["brag", "put"])
def test_selfplay_env_takes_the_option(game):
    options = {"perfect_recall": True, **({"num_players": 2} if game == "brag" else {})}
    env = VsPoolEnv(game, env_config=options, opponents=[f"{game}:random"], seed=3)
    observation, _ = env.reset(seed=3)
    shape = env.aec.observation_space("player_0")["observation"].shape
    assert observation.shape == shape == env.observation_space.shape
    for _ in range(20):
        legal = np.flatnonzero(env.action_masks())
        observation, _, done, truncated, _ = env.step(int(legal[0]))
        if done or truncated:
            observation, _ = env.reset()
    assert observation.shape == shape


def test_batched_brag_refuses_perfect_recall_and_batched_put_builds_it():
    from brag_env.brag.batched import check_batched_brag
    from brag_env.put.batched import BatchedPut, check_batched_put
    from brag_env.put.rules import PutConfig

    with pytest.raises(ValueError, match="perfect_recall"):
        check_batched_brag(BragConfig(perfect_recall=True))
    check_batched_put(PutConfig(perfect_recall=True))  # tests/test_put_batched.py: bit-equal
    size = put_v1.raw_env(perfect_recall=True).observation_space("player_0")["observation"].shape
    assert BatchedPut(2, PutConfig(perfect_recall=True)).obs_size == size[0]


def test_perfect_recall_must_be_a_bool():
    with pytest.raises(ValueError, match="perfect_recall"):
        brag_v1.raw_env(perfect_recall="yes")
    with pytest.raises(ValueError, match="perfect_recall"):
        put_v1.raw_env(perfect_recall=1)
