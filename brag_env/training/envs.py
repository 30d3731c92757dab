"""The vector of self-play envs that MaskablePPO trains on."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Sequence

from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecMonitor

from brag_env.selfplay import VsPoolEnv
from brag_env.training.config import TrainConfig


def env_factory(
    cfg: TrainConfig,
    index: int,
    seed: int,
    snapshots: Sequence[str],
    ignore_sigint: bool = False,
) -> Callable:
    """A picklable thunk building env ``index``: its own seed, and a seat offset so that the
    parallel envs start the learner in different seats (seats then rotate every episode).

    ``ignore_sigint`` (subprocess envs): Ctrl-C reaches the whole process group; a worker that
    died of it would leave the main process talking to closed pipes. The main process alone
    handles the interrupt and closes the workers.
    """
    snapshots = list(snapshots)

    def make() -> VsPoolEnv:
        if ignore_sigint:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        return VsPoolEnv(
            game=cfg.game,
            env_config=cfg.env,
            opponents=cfg.opponent_specs,
            snapshots=snapshots,
            snapshot_prob=cfg.pool.snapshot_prob,
            max_snapshots=cfg.pool.max_snapshots,
            snapshot_sampling=cfg.pool.snapshot_sampling,
            reward_scale=cfg.reward_scale,
            episode=cfg.episode,
            seat_offset=index,
            seed=seed + index,
        )

    return make


def make_vec_env(cfg: TrainConfig, seed: int, snapshots: Sequence[str] = ()) -> VecEnv:
    """``cfg.n_envs`` envs in one process (``dummy``), one process each (``subproc``) or as the
    tables of one batched engine (``batched``), monitored so that episode returns reach
    TensorBoard (``rollout/ep_rew_mean``)."""
    if cfg.vec_env == "batched":
        from brag_env.training.batched import BatchedSelfPlayVecEnv

        batched = BatchedSelfPlayVecEnv(
            cfg.game,
            cfg.env,
            cfg.n_envs,
            opponents=cfg.opponent_specs,
            snapshots=list(snapshots),
            snapshot_prob=cfg.pool.snapshot_prob,
            max_snapshots=cfg.pool.max_snapshots,
            reward_scale=cfg.reward_scale,
            seed=seed,
            episode=cfg.episode,
        )
        # One pool for all its tables; its draws follow the same sampling rule.
        batched.pool.sampling = cfg.pool.snapshot_sampling
        return VecMonitor(batched)
    subproc = cfg.vec_env == "subproc"
    thunks = [env_factory(cfg, i, seed, snapshots, subproc) for i in range(cfg.n_envs)]
    return VecMonitor(SubprocVecEnv(thunks) if subproc else DummyVecEnv(thunks))


def close_quietly(venv: VecEnv) -> None:
    """Close the envs; a subprocess already gone (killed, or hit by the terminal's Ctrl-C before
    it could ignore it) must not turn an interrupted run into a traceback."""
    with contextlib.suppress(EOFError, OSError):  # OSError covers broken / reset pipes
        venv.close()
