"""Copies of an env mid-hand (issue 30, item 5): ``copy.deepcopy``, ``copy.copy`` and pickle of a
brag_v1 / put_v1 / put_v2 env, perfect-recall tables included, give an independent env that
continues exactly as the original does: the same observations, masks, rewards and ends for the
same actions, and the same next deals (the RNG is copied); the original is untouched by what
the copy does.

gymnasium's EzPickle used to pickle an env as its constructor arguments: the copy was a fresh,
un-reset env (``AttributeError: agent_selection`` on its first step)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from brag_env import brag7_v0, brag_v1, put_v1, put_v2

COPIES = {
    "deepcopy": copy.deepcopy,
    "copy": copy.copy,
    "pickle": lambda env: pickle.loads(pickle.dumps(env)),
}
TABLES = [
    (brag_v1, {"num_players": 3, "hands_per_session": 6}),
    (brag_v1, {"num_players": 4, "hands_per_session": 4, "cover_pot": True}),
    (brag_v1, {"num_players": 3, "hands_per_session": 4, "cards_dealt": 4, "allow_blind": False}),
    (put_v1, {"num_players": 2}),
    (put_v1, {"num_players": 3, "put_answers": "simultaneous"}),
    (put_v1, {"num_players": 4, "partner_exchange": "always"}),
    # Tables whose observer differs from the default one: a copy must rebuild the same observer
    # (put_v2's Put timing, the perfect-recall block of either game), not a default one.
    (put_v2, {"num_players": 2}),
    (put_v2, {"num_players": 3, "perfect_recall": True}),
    (put_v1, {"num_players": 2, "perfect_recall": True}),
    (brag_v1, {"num_players": 3, "hands_per_session": 4, "perfect_recall": True}),
    (brag7_v0, {"num_players": 3, "hands_per_session": 4}),
]
IDS = ["brag3", "brag4-cover", "brag-4cards", "put2", "put3", "put4-partners"]
IDS += ["put_v2-2", "put_v2-3-recall", "put2-recall", "brag3-recall", "brag7-3"]


def _trace(env, rng: np.random.Generator, steps: int, resets: int = 1) -> list:
    """``steps`` random legal decisions (``rng`` picks), resetting (unseeded: the env's own
    RNG deals) at each end up to ``resets`` times; everything the env shows, step by step."""
    out = []
    for _ in range(steps):
        agent = env.agent_selection
        obs, reward, terminated, truncated, _ = env.last()
        views = [env.observe(a) for a in env.possible_agents]
        out.append(
            (
                agent,
                float(reward),
                terminated,
                truncated,
                obs["observation"].tobytes(),
                obs["action_mask"].tobytes(),
                tuple(v["observation"].tobytes() + v["action_mask"].tobytes() for v in views),
                tuple(sorted(env.rewards.items())),
            )
        )
        if terminated or truncated:
            if all(env.terminations.values()) or all(env.truncations.values()):
                if resets == 0:
                    break
                resets -= 1
                env.reset()
                continue
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(rng.choice(legal)))
    return out


@pytest.mark.parametrize("how", list(COPIES))
@pytest.mark.parametrize("module, options", TABLES, ids=IDS)
def test_a_copy_mid_hand_continues_exactly_as_the_original(module, options, how):
    for seed in range(3):
        original = module.env(**options)
        reference = module.env(**options)
        for env in (original, reference):
            env.reset(seed=seed)
        before = np.random.default_rng(seed + 100)
        steps = int(before.integers(1, 25))
        _trace(original, np.random.default_rng(seed), steps)
        _trace(reference, np.random.default_rng(seed), steps)
        clone = COPIES[how](original)
        assert clone is not original and clone.unwrapped is not original.unwrapped
        assert clone.unwrapped.game is not original.unwrapped.game
        after = _trace(clone, np.random.default_rng(seed + 1), 150)  # the copy goes first
        assert after == _trace(original, np.random.default_rng(seed + 1), 150)
        assert after == _trace(reference, np.random.default_rng(seed + 1), 150)


@pytest.mark.parametrize("module", [brag_v1, put_v1])
def test_a_raw_env_copy_before_and_after_reset(module):
    raw = module.raw_env()
    fresh = copy.deepcopy(raw)  # never reset: still needs a reset, as the original
    with pytest.raises(RuntimeError, match="call reset"):
        fresh.observe("player_0")
    raw.reset(seed=5)
    again = pickle.loads(pickle.dumps(raw))
    assert again.agent_selection == raw.agent_selection
    for agent in raw.possible_agents:
        assert np.array_equal(
            again.observe(agent)["observation"], raw.observe(agent)["observation"]
        )
    assert not again._no_mask.flags.writeable


def test_an_old_ezpickle_state_still_unpickles():
    """A pickle made before copies kept the state holds only the constructor arguments."""
    raw = put_v1.raw_env.__new__(put_v1.raw_env)
    raw.__setstate__({"_ezpickle_args": (None, None, False, None), "_ezpickle_kwargs": {}})
    raw.reset(seed=1)
    assert raw.agent_selection in raw.possible_agents
