"""The self-play env on the real games: registration, the learner's pay, snapshots in the pool."""

from __future__ import annotations

import itertools

import gymnasium
import numpy as np
import pytest

import brag_env  # noqa: F401  (registers the gymnasium ids)
from brag_env.selfplay import VsPoolEnv


def play_episodes(env: VsPoolEnv, episodes: int, seed: int):
    """Random legal learner; yields (learner seat, return, the raw game) per episode."""
    rng = np.random.default_rng(seed)
    for _ in range(episodes):
        _, info = env.reset()
        total, done = 0.0, False
        while not done:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            _, reward, done, _, _ = env.step(action)
            total += reward
        yield info["learner_seat"], total, env.aec.unwrapped.game


@pytest.mark.parametrize(
    "env_id, kwargs",
    [
        ("brag_env/BragVsPool-v0", {"env_config": {"num_players": 3}, "opponents": ["brag:tight"]}),
        ("brag_env/PutVsPool-v0", {"opponents": ["put:greedy"]}),
    ],
)
def test_gymnasium_make_builds_the_registered_envs(env_id, kwargs):
    env = gymnasium.make(env_id, seed=0, **kwargs)
    obs, _ = env.reset()
    assert env.observation_space.contains(obs)
    mask = env.unwrapped.action_masks()
    assert mask.any() and mask.shape == (env.action_space.n,)
    obs, _, _, truncated, _ = env.step(int(np.flatnonzero(mask)[0]))
    assert env.observation_space.contains(obs) and not truncated


@pytest.mark.parametrize("num_players, hands", [(2, 1), (4, 1), (3, 4)])
def test_brag_learner_is_paid_exactly_its_chip_changes(num_players, hands):
    """B15/B14: whoever ends the hand (the last fold, a see), the learner gets its own delta."""
    env = VsPoolEnv(
        game="brag",
        env_config={"num_players": num_players, "hands_per_session": hands},
        opponents=["brag:caller", "brag:tight", "brag:bluffer", "random"],
        seed=num_players,
    )
    seats = set()
    for seat, total, game in play_episodes(env, 150, seed=1):
        seats.add(seat)
        assert total == sum(result.deltas[seat] for result in game.hand_results)
    assert seats == set(range(num_players))  # seats rotate


def test_brag_reward_scale_divides_chips():
    kwargs = {"env_config": {"num_players": 2}, "opponents": ["brag:caller"]}
    plain = VsPoolEnv(game="brag", seed=3, **kwargs)
    scaled = VsPoolEnv(game="brag", seed=3, reward_scale=0.1, **kwargs)
    a = [total for _, total, _ in play_episodes(plain, 40, seed=2)]
    b = [total for _, total, _ in play_episodes(scaled, 40, seed=2)]
    assert np.allclose(np.array(a) * 0.1, b) and any(a)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_put_learner_gets_its_match_result(num_players):
    """P6: +1 to the winner (each partner with 4 players); 3 players: -1/2 to each loser."""
    env = VsPoolEnv(
        game="put",
        env_config={"num_players": num_players, "target_points": 3},
        opponents=["put:greedy", "put:bluffer"],
        seed=num_players,
    )
    loss = -0.5 if num_players == 3 else -1.0
    for seat, total, game in play_episodes(env, 30, seed=4):
        assert total == (1.0 if seat in game.winners() else loss)


def test_snapshots_join_the_pool_as_model_agents(tmp_path):
    """A frozen snapshot (a model file) is seated through agents' safe loader and plays."""
    from sb3_contrib import MaskablePPO

    from brag_env.training.checkpoint import save_model

    learner_env = VsPoolEnv(game="put", opponents=["random"], seed=5)
    model = MaskablePPO("MlpPolicy", learner_env, n_steps=64, batch_size=64, seed=0)
    path = tmp_path / "snap.zip"
    save_model(model, path, "put", {})

    env = VsPoolEnv(game="put", opponents=["random"], snapshot_prob=1.0, seed=6)
    env.add_snapshot(str(path))
    assert env.pool_snapshots() == [str(path)]
    for _ in play_episodes(env, 3, seed=7):
        pass
    assert env._opponent_specs[1 - env._seat] == str(path)
    (agent,) = env._opponent_cache.values()
    assert type(agent).__name__ == "ModelAgent"


@pytest.mark.parametrize("game, opponents", [("brag", ["brag:bluffer"]), ("put", ["random"])])
def test_seeded_reset_gives_the_same_first_observation_and_seat(game, opponents):
    env = VsPoolEnv(
        game=game,
        env_config={"num_players": 3} if game == "brag" else {},
        opponents=opponents,
        seed=1,
    )
    runs = []
    for _ in range(2):
        obs, info = env.reset(seed=5)
        episodes = list(play_episodes(env, 3, seed=2))
        runs.append((obs.tolist(), info["learner_seat"], [e[:2] for e in episodes]))
    assert runs[0] == runs[1]


def hand_episodes(env: VsPoolEnv, seed: int, steps: int):
    """Random legal learner for ``steps`` steps, resetting unseeded after each episode as a
    vector env does; yields (hand of the decision, reward, terminated, match scores) per step."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for _ in range(steps):
        game = env.aec.unwrapped.game
        hand = game.hand_number
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, reward, done, _, _ = env.step(action)
        yield hand, reward, done, list(game.scores)
        if done:
            env.reset()


def test_put_hand_episodes_end_at_each_hand_and_the_match_goes_on():
    """episode="hand" (P4-P6, reward="points"): every step that pays a hand's points ends the
    learner's episode, and the next reset continues the same match (the hand count and the
    scores run on) instead of dealing a new one; the pay itself is the same as with matches."""
    config = {"reward": "points", "target_points": 3}
    pool = {"game": "put", "env_config": config, "opponents": ["random"], "seed": 4}
    hand_env = VsPoolEnv(**pool, episode="hand")
    steps = list(hand_episodes(hand_env, 11, 300))
    ends = [i for i, (_, _, done, _) in enumerate(steps) if done]
    assert len(ends) > 20
    for i in ends[:-1]:  # after the end of a hand the next decision is in a later hand
        hand, _, _, scores = steps[i]
        next_hand, *_ = steps[i + 1]
        assert next_hand == hand + 1 or (next_hand == 0 and max(scores) >= 3)  # a new match
    within = [a for a, b in itertools.pairwise(steps) if not a[2] and a[0] == b[0]]
    assert within, "some hands have several learner decisions"
    assert any(next_hand > 1 for next_hand, *_ in (steps[i + 1] for i in ends[:-1]))
    match_env = VsPoolEnv(**pool)
    match_steps = list(hand_episodes(match_env, 11, 300))
    # The same deals and pay: only where episodes end differs.
    assert [s[:2] for s in match_steps] == [s[:2] for s in steps]
    assert sum(s[2] for s in match_steps) < len(ends)
    for _, _, done, scores in match_steps:
        assert not done or max(scores) >= 3  # a match episode ends with the match only


def test_hand_episodes_are_refused_where_they_mean_nothing():
    with pytest.raises(ValueError, match="built for Put"):
        VsPoolEnv(game="brag", opponents=["random"], episode="hand")
    with pytest.raises(ValueError, match="episode must be one of"):
        VsPoolEnv(game="put", opponents=["random"], episode="hands")
