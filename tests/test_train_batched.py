"""The batched self-play VecEnv: VsPoolEnv's contract on a batched engine (Put heads-up)."""

import numpy as np
import pytest
from lockstep import play_lockstep, play_random
from tiny_snapshot import save_tiny_snapshot

from brag_env.put.batched import BatchedPut
from brag_env.put.observation import observation_layout
from brag_env.put.rules import PutConfig
from brag_env.training.batched import BatchedSelfPlayVecEnv
from brag_env.training.config import config_from_dict

OPPONENTS = ["random", "put:greedy", "put:caller", "put:bluffer"]


def _offset(name: str) -> int:
    pos = 0
    for field, shape in observation_layout(2):
        if field == name:
            return pos
        pos += int(np.prod(shape))
    raise KeyError(name)


def _venv(seed=3, **kw):
    return BatchedSelfPlayVecEnv("put", {}, 8, opponents=OPPONENTS, seed=seed, **kw)


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_same_seed_same_run_and_another_seed_another():
    a, _, _ = play_random(_venv(seed=3), 300, 0)
    b, _, _ = play_random(_venv(seed=3), 300, 0)
    c, _, _ = play_random(_venv(seed=4), 300, 0)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_learner_acts_at_every_step_and_is_paid_the_match_result_P6():
    venv = _venv()
    obs = venv.reset()
    acting = _offset("acting")
    rng = np.random.default_rng(0)
    returns = []
    total = np.zeros(8)
    for _ in range(600):
        assert (obs[:, acting] == 1.0).all()  # relative seat 0: the learner's own decision
        masks = venv.action_masks()
        assert masks.any(axis=1).all()
        obs, reward, done, _ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        total += reward
        returns += total[done].tolist()
        total[done] = 0.0
    assert len(returns) > 20 and set(returns) == {1.0, -1.0}  # match reward, scale 1


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_seats_rotate_per_table_and_episode():
    venv = _venv()
    _, _, seats = play_random(venv, 400, 1)  # _run's reset starts every table's episode 0
    first = _venv()
    first.reset()
    assert [info["learner_seat"] for info in first.reset_infos] == [i % 2 for i in range(8)]
    # table i's k-th episode (k from 0) seats the learner at (i + k) % 2
    count = dict.fromkeys(range(8), 0)
    for table, seat in seats:
        assert seat == (table + count[table]) % 2
        count[table] += 1


def test_reward_scale_and_points_reward():
    venv = BatchedSelfPlayVecEnv(
        "put", {"reward": "points"}, 4, opponents=["put:greedy"], reward_scale=0.5, seed=0
    )
    _, returns, _ = play_random(venv, 200, 2)
    assert returns and all(r == int(r * 2) / 2 for r in returns)


def test_unsupported_game_and_options_are_one_line_errors():
    with pytest.raises(ValueError, match="num_players=3 is not supported"):
        BatchedSelfPlayVecEnv("put", {"num_players": 3}, 2)
    with pytest.raises(ValueError, match="cards_dealt=4"):  # Brag: Three-card Brag only
        config_from_dict(
            {
                "name": "x",
                "game": "brag",
                "vec_env": "batched",
                "env": {"cards_dealt": 4, "allow_blind": False},
            }
        )


def test_snapshot_opponents_play_one_batched_forward_pass(tmp_path):
    save_tiny_snapshot(tmp_path, _venv(), "put")
    venv = BatchedSelfPlayVecEnv("put", {}, 8, opponents=["random"], snapshot_prob=1.0, seed=1)
    venv.env_method("add_snapshot", str(tmp_path / "snap.zip"))
    _, returns, _ = play_random(venv, 200, 0)
    assert returns
    assert [s for s in venv._agents if s.endswith(".zip")]


def test_maskable_ppo_learns_on_it():
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor

    venv = VecMonitor(_venv())
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0)
    model.learn(512)
    assert model.num_timesteps >= 512


def test_engine_is_the_batched_put():
    assert isinstance(_venv().engine, BatchedPut)


class _MirroredEngine(BatchedPut):
    """Deals what a VsPoolEnv's put_v0 dealt: the first dealer and each hand's deck."""

    def __init__(self, scalar):
        super().__init__(1, PutConfig.from_dict(scalar.env_config), seed=0)
        self.scalar = scalar

    def _draw_dealers(self, rows):
        game = self.scalar.aec.game
        return np.array([(game.records[0] if game.records else game.record).dealer])

    def _draw_deals(self, rows):
        game = self.scalar.aec.game
        records = [*game.records, game.record]
        number = int(self.hands_played[0])  # the hand about to be dealt (0-based)
        return np.array([next(r.deck for r in records if r.number == number)])


@pytest.mark.parametrize("opponent", ["put:greedy", "put:caller", "put:bluffer:bluff=0.0"])
@pytest.mark.parametrize(
    "options, episode",
    [
        ({}, "match"),
        ({"reward": "points", "seen_put_points": "game"}, "match"),
        ({"reward": "points", "perfect_recall": True}, "match"),
        ({"reward": "points", "perfect_recall": True}, "hand"),  # put_selfplay_batched_recall
        ({"reward": "points", "seen_put_points": "game"}, "hand"),
    ],
)
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_same_run_as_vs_pool_env_on_the_same_deals(opponent, options, episode):
    # VsPoolEnv's contract, step for step: seat rotation, observations, masks, the learner's
    # rewards (including those of hands an opponent ends) and episode ends.
    from brag_env.selfplay import VsPoolEnv

    scalar = VsPoolEnv(
        game="put", env_config=options, opponents=[opponent], seed=0, episode=episode
    )
    venv = BatchedSelfPlayVecEnv("put", options, 1, opponents=[opponent], seed=0, episode=episode)
    venv.engine = _MirroredEngine(scalar)
    assert play_lockstep(scalar, venv, 3000) > (300 if episode == "hand" else 30)


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_hand_episodes_return_each_hands_points_and_the_match_goes_on_P5_P6():
    """episode="hand": every episode ends with a hand and returns the learner's points of it
    (+points, -points or 0 for a drawn hand); a hand that does not end the match leaves the
    match, its scores and the learner's seat as they were; a match to 5 has several hands."""
    venv = BatchedSelfPlayVecEnv(
        "put", {"reward": "points"}, 8, opponents=OPPONENTS, seed=5, episode="hand"
    )
    engine = venv.engine
    obs = venv.reset()
    scores = _offset("scores")
    rng = np.random.default_rng(1)
    going_on = ended_match = 0
    for _ in range(1500):
        hands, matches, seat = engine.hands_played.copy(), venv._episodes.copy(), venv._seat.copy()
        total = engine.scores.sum(axis=1)
        masks = venv.action_masks()
        obs, reward, done, infos = venv.step(
            np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        )
        assert (reward[~done] == 0).all()  # points are paid when the hand ends, not before
        assert (engine.hands_played[~done] == hands[~done]).all()
        for t in np.flatnonzero(done):
            if venv._episodes[t] == matches[t]:  # the same match: its next hand
                going_on += 1
                assert engine.hands_played[t] == hands[t] + 1 and venv._seat[t] == seat[t]
                unit, points = engine.last_unit[t], engine.last_points[t]
                want = 0 if unit < 0 else (points if unit == seat[t] else -points)
                assert reward[t] == want
                assert engine.scores[t].sum() == total[t] + (points if unit >= 0 else 0)
                assert infos[t]["terminal_observation"].tobytes() == obs[t].tobytes()
            else:  # the hand ended the match: a new one, the winner scored
                ended_match += 1
                assert reward[t] != 0
    assert going_on > 4 * ended_match > 0
    assert (obs[:, scores : scores + 2] > 0).any()  # scores carried into later hands


def test_hand_episodes_are_put_only():
    with pytest.raises(ValueError, match="episode='hand' is built for Put"):
        BatchedSelfPlayVecEnv("brag", {"num_players": 2}, 2, episode="hand")
    with pytest.raises(ValueError, match="episode must be one of"):
        _venv(episode="deal")


def test_a_dropped_snapshot_plays_out_its_matches_after_its_file_is_deleted(tmp_path):
    """train.py deletes the files of snapshots the pool dropped (at its next checkpoint): the
    tables whose match still has one as opponent play on (it is loaded before the file goes)."""
    import shutil

    snap = save_tiny_snapshot(tmp_path, _venv(), "put")
    old, new = tmp_path / "old.zip", tmp_path / "new.zip"
    shutil.copy(snap, old)
    shutil.copy(snap, new)
    venv = BatchedSelfPlayVecEnv(
        "put", {}, 8, opponents=["random"], snapshot_prob=1.0, max_snapshots=1, seed=1
    )
    venv.env_method("add_snapshot", str(old))
    play_random(venv, 3, 0)  # every table mid-match against the old snapshot
    venv.env_method("add_snapshot", str(new))
    old.unlink()
    rng = np.random.default_rng(0)
    for _ in range(100):
        masks = venv.action_masks()
        venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
    assert venv.pool.snapshots == [str(new)]


def _engine_state(engine: BatchedPut) -> dict:
    """Every array of the engine and its generator's state."""
    state = {k: v.copy() for k, v in vars(engine).items() if isinstance(v, np.ndarray)}
    state["rng"] = engine.rng.bit_generator.state
    return state


def test_warm_up_draws_nothing_and_changes_no_state():
    from brag_env.put.batched_kernel import masks, observe, step
    from brag_env.training.batched import make_put_engine, warm_up

    engine = BatchedPut(4, PutConfig(), seed=11)
    engine.new_session()
    before = _engine_state(engine)
    warm_up(engine)
    after = _engine_state(engine)
    assert before.keys() == after.keys()
    for key, value in before.items():
        assert np.array_equal(value, after[key]) if key != "rng" else value == after[key], key
    assert all(kernel.signatures for kernel in (masks, step, observe))  # loaded
    # the VecEnv's engine deals what an engine built without the warm-up deals
    built, plain = make_put_engine({}, 4, 11), BatchedPut(4, PutConfig(), seed=11)
    built.new_session()
    plain.new_session()
    want = _engine_state(plain)
    for key, value in _engine_state(built).items():
        assert np.array_equal(value, want[key]) if key != "rng" else value == want[key], key


def test_returned_observations_stay_until_the_step_after():
    venv = _venv()
    first = venv.reset()
    kept = first.copy()
    masks = venv.env_method("action_masks")
    second, *_ = venv.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
    assert second is not first and np.array_equal(first, kept)  # SB3 stores it after the step
    assert np.array_equal(second, venv.engine.observe(np.arange(8), venv._seat))
