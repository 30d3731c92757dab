"""Env hardening (issue 18): reset seeds checked with messages naming them, and
``keep_histories`` bounding what a long session keeps without changing the game."""

from __future__ import annotations

import hashlib
import pickle

import numpy as np
import pytest

from brag_env import brag7_v0, brag_v0, put_v0
from brag_env.brag.replay import replay_session
from brag_env.cards import check_seed, make_rng
from brag_env.recent import RecentList

ENVS = [brag_v0, put_v0, brag7_v0]


@pytest.mark.parametrize("module", ENVS)
@pytest.mark.parametrize("seed", [-1, 1.5, True, "3", [1, 2], np.float64(2.0)])
def test_bad_reset_seeds_are_one_line_errors_naming_the_seed(module, seed):
    """Issue 18: reset(seed=-1) and seed=1.5 gave numpy's message, naming neither."""
    env = module.env()
    name = module.raw_env.metadata["name"]
    with pytest.raises(ValueError) as caught:
        env.reset(seed=seed)
    assert str(caught.value) == (
        f"{name}.reset: seed must be a whole number >= 0 or None, got {seed!r}"
    )


@pytest.mark.parametrize("module", ENVS)
def test_numpy_integer_seeds_and_none_still_work(module):
    env = module.env()
    env.reset(seed=np.int64(7))
    first = env.observe(env.agent_selection)["observation"].copy()
    env.reset(seed=7)
    assert np.array_equal(first, env.observe(env.agent_selection)["observation"])
    env.reset(seed=None)


def test_check_seed_and_make_rng():
    assert check_seed(np.uint8(3)) == 3 and check_seed(None) is None
    with pytest.raises(ValueError, match="--seed must be a whole number >= 0 or None, got -2"):
        check_seed(-2, "--seed")
    rng = np.random.default_rng(1)
    assert make_rng(rng) is rng
    assert make_rng(np.random.SeedSequence(4)).random() == np.random.default_rng(4).random()


# ------------------------------------------------------------------ RecentList
def test_recent_list_counts_all_and_keeps_the_last():
    items = RecentList(2)
    assert len(items) == 0 and not items and items[0:] == []
    for i in range(5):
        items.append(i)
    assert len(items) == 5 and list(items) == [3, 4] and bool(items)
    assert items[-1] == 4 and items[3] == 3 and items[4:] == [4] and items[5:] == []
    with pytest.raises(IndexError, match="item 2 is no longer kept: only the last 2"):
        items[2]
    with pytest.raises(IndexError, match="no longer kept"):
        items[1:]
    with pytest.raises(IndexError, match="out of range"):
        items[5]
    none = RecentList(0)
    none.append("x")
    assert len(none) == 1 and list(none) == [] and none[1:] == []


@pytest.mark.parametrize("keep", [-1, 1.5, True, "2"])
def test_bad_keep_histories_is_a_value_error(keep):
    for module in ENVS:
        with pytest.raises(ValueError, match="keep_histories must be None"):
            module.raw_env(keep_histories=keep)


# ------------------------------------------------------------------ keep_histories
def _play(env, seed: int) -> str:
    """A seeded random game; the digest of every observation, mask and reward on the way."""
    digest = hashlib.sha256()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for _ in env.agent_iter():
        obs, reward, done, cut, _ = env.last()
        digest.update(obs["observation"].tobytes() + obs["action_mask"].tobytes())
        digest.update(np.float64(reward).tobytes())
        if env.render_mode:
            digest.update(env.render().encode())
        env.step(None if done or cut else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return digest.hexdigest()


@pytest.mark.parametrize(
    ("module", "options"),
    [(brag_v0, {"num_players": 3, "hands_per_session": 40}), (put_v0, {"target_points": 9})],
)
@pytest.mark.parametrize("keep", [0, 1, 3])
def test_keep_histories_changes_nothing_but_what_is_kept(module, options, keep):
    full = module.raw_env(render_mode="ansi", **options)
    bounded = module.raw_env(render_mode="ansi", keep_histories=keep, **options)
    for seed in range(3):
        assert _play(full, seed) == _play(bounded, seed)
        every = full.hand_histories()
        kept = bounded.hand_histories()
        assert len(every) > keep
        assert kept == (every[-keep:] if keep else [])


def test_keep_histories_bounds_the_engine_lists_of_a_long_session():
    env = brag_v0.raw_env(hands_per_session=300, starting_chips=10**6, keep_histories=2)
    _play(env, 5)
    game = env.game
    assert len(game.hand_results) == 300  # counted in full: the stats and observers use len()
    assert len(list(game.hand_results)) == 2 and len(list(game._records)) == 2
    assert [h["hand_number"] for h in env.hand_histories()] == [298, 299]


def test_kept_histories_still_replay():
    env = brag_v0.raw_env(hands_per_session=30, keep_histories=None)
    _play(env, 2)
    replay_session(env.hand_histories())  # raises if an amount is wrong


def test_keep_histories_survives_pickling():
    env = brag_v0.raw_env(keep_histories=0, num_players=3)
    again = pickle.loads(pickle.dumps(env))
    assert again.keep_histories == 0 and again.config.num_players == 3


@pytest.mark.parametrize("module", ENVS)
@pytest.mark.parametrize("deck", [42, 1.5, {3, 4}, object()])
def test_a_deck_that_is_no_list_of_cards_is_a_value_error(module, deck):
    """Issue 18: put_v0 reset with deck=42 raised a TypeError."""
    with pytest.raises(ValueError, match=r"reset: deck must be card text or a list of card ints"):
        module.env().reset(seed=0, options={"deck": deck})
