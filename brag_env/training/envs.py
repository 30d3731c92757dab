"""The vector of self-play envs that MaskablePPO trains on."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecMonitor

from brag_env.selfplay import VsPoolEnv
from brag_env.training.config import TrainConfig


def env_factory(cfg: TrainConfig, index: int, seed: int, snapshots: Sequence[str]) -> Callable:
    """A picklable thunk building env ``index``: its own seed, and a seat offset so that the
    parallel envs start the learner in different seats (seats then rotate every episode)."""
    snapshots = list(snapshots)

    def make() -> VsPoolEnv:
        return VsPoolEnv(
            game=cfg.game,
            env_config=cfg.env,
            opponents=cfg.pool.opponents,
            snapshots=snapshots,
            snapshot_prob=cfg.pool.snapshot_prob,
            max_snapshots=cfg.pool.max_snapshots,
            reward_scale=cfg.reward_scale,
            seat_offset=index,
            seed=seed + index,
        )

    return make


def make_vec_env(cfg: TrainConfig, seed: int, snapshots: Sequence[str] = ()) -> VecEnv:
    """``cfg.n_envs`` envs in one process (``dummy``) or one process each (``subproc``), monitored
    so that episode returns reach TensorBoard (``rollout/ep_rew_mean``)."""
    thunks = [env_factory(cfg, i, seed, snapshots) for i in range(cfg.n_envs)]
    venv = DummyVecEnv(thunks) if cfg.vec_env == "dummy" else SubprocVecEnv(thunks)
    return VecMonitor(venv)
