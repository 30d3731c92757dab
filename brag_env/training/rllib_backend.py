"""``backend: rllib``: the same self-play run as train.py's SB3 path, on Ray RLlib (new API stack).

Ray is imported only here and in ``rllib_module``; install the ``rllib`` extra in its own venv
(``.ci/rllib_venv.sh``, docs/rllib.md). What a run does:

- connects to a Ray cluster (``rllib.address``, else ``$RAY_ADDRESS``, else a local Ray);
- builds RLlib's PPO on the PettingZoo env (``rllib_module.SelfPlayEnv``) with one module per
  role: ``learner`` (trained), ``snapshot_<k>`` (frozen copies of the learner, ``pool.*``) and one
  module per baseline and seat (``pool.opponents``); the policy mapping rotates the learner's seat;
- counts progress in learner decisions (the learner module's sampled steps), like the SB3 path;
- writes ``runs/<name>/``: ``config.yaml``, ``evals.jsonl``, ``snapshots/*.zip`` (snapshots in the
  project's model format), ``rllib_checkpoint/`` (RLlib's checkpoint plus the training state;
  ``--resume`` restores it), ``model.zip`` (the learner exported into a MaskablePPO zip that
  ``agents/model.py`` loads, so evaluate.py, play and the other tools take it) and
  ``final_eval.json``, and prints the same final evaluation.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from brag_env.training import train_prog
from brag_env.training.checkpoint import atomic_write_bytes, save_model
from brag_env.training.config import TrainConfig, dump_config
from brag_env.training.evaluation import evaluate_model, format_short, print_final
from brag_env.training.files import append_line, write_file

CHECKPOINT_DIR = "rllib_checkpoint"
STATE_FILE = "brag_env_training.json"
# Known to matter on small card games: numpy episodes cost ~13x (converted every step), and
# torch's thread pool fights the env runners for the cores.
_ENV_DEFAULTS = {"OMP_NUM_THREADS": "1", "RAY_USAGE_STATS_ENABLED": "0"}


def module_ids(cfg: TrainConfig, num_players: int) -> list[str]:
    from brag_env.training.rllib_module import LEARNER, baseline_id, snapshot_id

    ids = [LEARNER]
    ids += [snapshot_id(k) for k in range(cfg.pool.max_snapshots)]
    ids += [
        baseline_id(i, seat) for i in range(len(cfg.pool.opponents)) for seat in range(num_players)
    ]
    return ids


def build_algo_config(cfg: TrainConfig, num_players: int) -> Any:
    """RLlib's ``PPOConfig`` for a run; every PPO number from the config's ``ppo`` section."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from brag_env.training import rllib_module as rm

    env_config = {"game": cfg.game, "env": dict(cfg.env), "reward_scale": cfg.reward_scale}
    net = {"net_arch": list(cfg.ppo.net_arch), "activation": cfg.ppo.activation}
    specs: dict[str, Any] = {
        rm.LEARNER: RLModuleSpec(module_class=rm.MaskedMLPModule, model_config=net)
    }
    for k in range(cfg.pool.max_snapshots):
        specs[rm.snapshot_id(k)] = RLModuleSpec(module_class=rm.MaskedMLPModule, model_config=net)
    for i, spec in enumerate(cfg.pool.opponents):
        for seat in range(num_players):
            specs[rm.baseline_id(i, seat)] = RLModuleSpec(
                module_class=rm.BaselineModule,
                model_config={
                    "spec": spec,
                    "game": cfg.game,
                    "env": dict(cfg.env),
                    "seed": cfg.seed * 1000 + i * num_players + seat,
                },
            )
    mapping = partial(
        rm.map_agent_to_module,
        num_players=num_players,
        num_baselines=len(cfg.pool.opponents),
        snapshot_prob=cfg.pool.snapshot_prob,
        seed=cfg.seed,
    )
    r = cfg.rllib
    return (
        PPOConfig()
        # RLlib's env check steps random actions, which the action check rightly refuses.
        .environment(env=rm.SelfPlayEnv, env_config=env_config, disable_env_checking=True)
        .framework("torch")
        .env_runners(
            num_env_runners=r.num_env_runners,
            num_envs_per_env_runner=1,  # the baselines' per-seat memory assumes one table
            num_cpus_per_env_runner=r.num_cpus_per_env_runner,
            custom_resources_per_env_runner=dict(r.resources_per_env_runner),
            rollout_fragment_length="auto",
            episodes_to_numpy=False,
        )
        .learners(num_learners=0)  # the learner trains in this process (the driver)
        .multi_agent(
            policies=set(specs),
            policy_mapping_fn=mapping,
            policies_to_train=[rm.LEARNER],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(
            lr=cfg.ppo.learning_rate,
            gamma=cfg.ppo.gamma,
            lambda_=cfg.ppo.gae_lambda,
            clip_param=cfg.ppo.clip_range,
            entropy_coeff=cfg.ppo.ent_coef,
            vf_loss_coeff=cfg.ppo.vf_coef,
            grad_clip=cfg.ppo.max_grad_norm,
            grad_clip_by="global_norm",
            use_kl_loss=False,
            vf_clip_param=(
                float("inf") if cfg.ppo.clip_range_vf is None else cfg.ppo.clip_range_vf
            ),
            num_epochs=cfg.ppo.n_epochs,
            minibatch_size=cfg.ppo.batch_size,
            train_batch_size_per_learner=cfg.rollout_steps,
        )
        .debugging(seed=cfg.seed, log_level="ERROR")
        .reporting(metrics_num_episodes_for_smoothing=100)
    )


def check_rllib_config(cfg: TrainConfig) -> None:
    """Ray present, and nothing the SB3 path takes but this backend cannot do (naming the key)."""
    try:
        import ray.rllib  # noqa: F401
    except ImportError:
        raise ValueError(
            "backend: rllib needs Ray RLlib, which is not installed here; create its venv with "
            ".ci/rllib_venv.sh (docs/rllib.md)"
        ) from None
    if cfg.ppo.target_kl is not None:
        raise ValueError("ppo.target_kl: backend rllib has no early stop on KL; set it to null")
    if not cfg.ppo.normalize_advantage:
        raise ValueError(
            "ppo.normalize_advantage: backend rllib always normalizes advantages; set it to true"
        )


def learner_weights(algo: Any) -> dict[str, Any]:
    """The learner module's tensors (CPU copies), from the learner group."""
    from brag_env.training.rllib_module import LEARNER

    def grab(learner: Any) -> dict[str, Any]:
        module = learner.module[LEARNER]
        return {k: v.detach().cpu().clone() for k, v in module.state_dict().items()}

    # One result per learner (num_learners=0: the one in this process); get() re-raises errors.
    return next(iter(algo.learner_group.foreach_learner(grab))).get()


def export_model(weights: dict[str, Any], cfg: TrainConfig, path: Path, num_timesteps: int) -> Path:
    """Write the learner as a MaskablePPO model.zip (``agents/model.py`` format, atomically).

    The learner's ``pi_body``/``pi_head``/``vf_body``/``vf_head`` have the shapes of SB3's
    ``mlp_extractor.policy_net``/``action_net``/``mlp_extractor.value_net``/``value_net``, so the
    tensors are copied one to one into a freshly built MaskablePPO of the same ``net_arch``.
    """
    import torch
    from sb3_contrib import MaskablePPO

    from brag_env.selfplay import VsPoolEnv

    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[cfg.ppo.activation]
    env = VsPoolEnv(game=cfg.game, env_config=cfg.env, opponents=["random"], seed=0)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=cfg.ppo.n_steps,
        batch_size=cfg.ppo.batch_size,
        policy_kwargs={
            "net_arch": {"pi": list(cfg.ppo.net_arch), "vf": list(cfg.ppo.net_arch)},
            "activation_fn": activation,
        },
        device="cpu",
        verbose=0,
    )
    policy = model.policy
    targets = {
        "pi_body": policy.mlp_extractor.policy_net,
        "pi_head": policy.action_net,
        "vf_body": policy.mlp_extractor.value_net,
        "vf_head": policy.value_net,
    }
    with torch.no_grad():
        for prefix, target in targets.items():
            state = target.state_dict()
            for key in state:
                source = weights[f"{prefix}.{key}"]
                if tuple(source.shape) != tuple(state[key].shape):
                    raise ValueError(
                        f"cannot export {prefix}.{key}: shape {tuple(source.shape)}, the SB3 "
                        f"policy expects {tuple(state[key].shape)}"
                    )
                state[key] = source
            target.load_state_dict(state)
    model.num_timesteps = int(num_timesteps)
    save_model(model, path, cfg.game, cfg.env)
    return path


def learner_steps(result: dict[str, Any]) -> int:
    """The learner module's steps sampled in this iteration (not the lifetime count, which a
    restored algorithm need not carry over)."""
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_MODULE_STEPS_SAMPLED

    from brag_env.training.rllib_module import LEARNER

    steps = result.get(ENV_RUNNER_RESULTS, {}).get(NUM_MODULE_STEPS_SAMPLED, {})
    return int(steps.get(LEARNER, 0)) if isinstance(steps, dict) else 0


def _save_checkpoint(algo: Any, run_dir: Path, state: dict[str, Any]) -> None:
    """RLlib's checkpoint plus the training state, swapped in as a whole directory: a run killed
    while saving keeps the previous checkpoint (``rllib_checkpoint.old`` until the swap ends)."""
    final = run_dir / CHECKPOINT_DIR
    tmp = run_dir / f".{CHECKPOINT_DIR}.tmp"
    old = run_dir / f"{CHECKPOINT_DIR}.old"
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save_to_path(str(tmp.resolve()))
    atomic_write_bytes(tmp / STATE_FILE, json.dumps(state, indent=1, sort_keys=True).encode())
    if final.exists():
        shutil.rmtree(old, ignore_errors=True)
        final.rename(old)
    tmp.rename(final)
    shutil.rmtree(old, ignore_errors=True)


def read_state(run_dir: Path) -> dict[str, Any]:
    """The training state of a run's RLlib checkpoint; ``ValueError`` if there is none."""
    final = run_dir / CHECKPOINT_DIR
    if not final.is_dir() and (run_dir / f"{CHECKPOINT_DIR}.old").is_dir():
        final = run_dir / f"{CHECKPOINT_DIR}.old"  # killed in the middle of the swap
    path = final / STATE_FILE
    if not path.is_file():
        raise ValueError(f"--resume: no RLlib checkpoint in {run_dir} (no {path.name})")
    try:
        state = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"--resume: {path} is unreadable ({e})") from None
    if not isinstance(state, dict) or "num_timesteps" not in state:
        raise ValueError(f"--resume: {path} lacks num_timesteps")
    state["checkpoint"] = str(final)
    return state


def connect(cfg: TrainConfig) -> Any:
    for key, value in _ENV_DEFAULTS.items():
        os.environ.setdefault(key, value)
    import ray

    address = cfg.rllib.address or os.environ.get("RAY_ADDRESS") or None
    if address:
        try:
            ray.init(address=address, log_to_driver=False, logging_level="ERROR")
        except (ConnectionError, RuntimeError) as e:  # one line, not Ray's traceback
            reason = " ".join(str(e).split())[:200]
            raise ValueError(f"cannot connect to the Ray cluster at {address}: {reason}") from None
    else:
        cpus = max(1, int(cfg.rllib.num_env_runners * cfg.rllib.num_cpus_per_env_runner + 0.999))
        ray.init(  # "local": a new Ray of this process, never a `ray start` cluster on the host
            address="local",
            num_cpus=cpus,
            include_dashboard=False,
            log_to_driver=False,
            logging_level="ERROR",
        )
    return ray


def runner_reports(algo: Any) -> list[dict[str, Any]]:
    from brag_env.training.rllib_module import runner_report

    remote = algo.env_runner_group.num_remote_env_runners() > 0
    return list(
        algo.env_runner_group.foreach_env_runner(runner_report, local_env_runner=not remote)
    )


def train_rllib(
    cfg: TrainConfig,
    run_dir: Path,
    *,
    resume: bool,
    overwrite: bool,
    progress: bool | None,
    config_hash: str,
    clear_run_dir: Callable[[Path], None],
    truncate_evals: Callable[[Path, int], None],
) -> None:
    """The whole run (train.py dispatches here for ``backend: rllib``)."""
    check_rllib_config(cfg)
    from brag_env.selfplay import make_aec_env

    num_players = len(make_aec_env(cfg.game, cfg.env).possible_agents)
    state: dict[str, Any] = {
        "num_timesteps": 0,
        "iterations": 0,
        "snapshots": [],
        "snapshots_taken": 0,
        "evals": [],
        "config_hash": config_hash,
    }
    if resume:
        state = read_state(run_dir)
        if state.get("config_hash") != config_hash:
            raise ValueError(
                f"--resume: {run_dir / 'config.yaml'} does not match the config the RLlib "
                "checkpoint was trained with; start over with --overwrite"
            )
    else:
        if overwrite:
            clear_run_dir(run_dir)
        run_dir.mkdir(parents=True, exist_ok=True)
        write_file(run_dir / "config.yaml", dump_config(cfg))
        write_file(run_dir / "evals.jsonl", "")
    total = cfg.total_timesteps
    done = int(state["num_timesteps"])
    if resume:
        if done >= total and (run_dir / "final_eval.json").is_file():
            print(
                f"{train_prog()}: the run in {run_dir} already finished at step {done:,}; "
                "nothing to resume"
            )
            return
        truncate_evals(run_dir / "evals.jsonl", done)

    ray = connect(cfg)
    try:
        _run(cfg, run_dir, state, num_players, resume, progress)
    finally:
        ray.shutdown()


def _run(
    cfg: TrainConfig,
    run_dir: Path,
    state: dict[str, Any],
    num_players: int,
    resume: bool,
    progress: bool | None,
) -> None:
    import ray

    from brag_env.training import rllib_module as rm
    from brag_env.training.progress import ProgressBar

    total = cfg.total_timesteps
    done = int(state["num_timesteps"])
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    print(
        f"{train_prog()}: {cfg.game}, {num_players} players, {total:,} learner steps on RLlib "
        f"({cfg.rllib.num_env_runners} env runners, Ray cluster of {len(nodes)} node(s)), "
        f"run directory {run_dir}" + (f", resuming at step {done:,}" if done else ""),
        flush=True,
    )
    algo = build_algo_config(cfg, num_players).build_algo()
    try:
        if resume:
            algo.restore_from_path(str(Path(state.pop("checkpoint")).resolve()))
            algo.env_runner_group.sync_weights(
                from_worker_or_learner_group=algo.learner_group, inference_only=True
            )
        active = min(int(state["snapshots_taken"]), cfg.pool.max_snapshots)
        algo.env_runner_group.foreach_env_runner(partial(rm.set_active_snapshots, count=active))
        eval_seed = cfg.seed if cfg.eval.seed is None else cfg.eval.seed

        def evaluate(path: Path, episodes: int, label: str, step: int) -> list[dict[str, Any]]:
            results = evaluate_model(
                cfg.game,
                path,
                cfg.eval.opponents,
                episodes,
                eval_seed,
                cfg.env,
                cfg.eval.deterministic,
            )
            entry = {"step": step, "label": label, "results": results}
            append_line(run_dir / "evals.jsonl", json.dumps(entry))
            return results

        start = time.perf_counter()
        session_start = done
        with ProgressBar(total, initial=done, enabled=progress) as bar:
            while done < total:
                result = algo.train()
                before, done = done, done + learner_steps(result)
                state["iterations"] = int(state["iterations"]) + 1
                bar.bar.update(done - before)
                reports = runner_reports(algo)
                illegal = sum(r["illegal_actions"] for r in reports)
                bar.write(
                    f"[iter {state['iterations']}] {done:,}/{total:,} learner steps, "
                    f"{len({r['node_id'] for r in reports})} node(s) sampling, "
                    f"{sum(r['actions_checked'] for r in reports):,} actions checked, "
                    f"{illegal} illegal"
                )
                if _crossed(before, done, cfg.pool.snapshot_every) and done < total:
                    slot = int(state["snapshots_taken"]) % cfg.pool.max_snapshots
                    _copy_learner(algo, rm.snapshot_id(slot))
                    state["snapshots_taken"] = int(state["snapshots_taken"]) + 1
                    count = min(int(state["snapshots_taken"]), cfg.pool.max_snapshots)
                    algo.env_runner_group.foreach_env_runner(
                        partial(rm.set_active_snapshots, count=count)
                    )
                    name = f"snapshots/step_{done:09d}.zip"
                    export_model(learner_weights(algo), cfg, run_dir / name, done)
                    state["snapshots"] = (state["snapshots"] + [name])[-cfg.pool.max_snapshots :]
                if _crossed(before, done, cfg.eval.every) and done < total:
                    eval_path = run_dir / "eval_model.zip"
                    export_model(learner_weights(algo), cfg, eval_path, done)
                    try:
                        results = evaluate(eval_path, cfg.eval.episodes, "eval", done)
                    finally:
                        eval_path.unlink(missing_ok=True)
                    state["evals"].append(format_short(results, cfg.game))
                    bar.set_eval(state["evals"][-1])
                    bar.write(f"[{done:>11,} steps] eval: {state['evals'][-1]}")
                if _crossed(before, done, cfg.checkpoint_every) or done >= total:
                    state["num_timesteps"] = done
                    _save_checkpoint(algo, run_dir, state)
                    bar.write(f"checkpoint saved at step {done:,}: {run_dir / CHECKPOINT_DIR}")
        seconds = time.perf_counter() - start
        reports = runner_reports(algo)
        write_file(run_dir / "rllib_runners.json", json.dumps(reports, indent=1))
        export_model(learner_weights(algo), cfg, run_dir / "model.zip", done)
    finally:
        algo.stop()
    steps = done - session_start
    illegal = sum(r["illegal_actions"] for r in reports)
    print(
        f"{train_prog()}: {steps:,} learner steps in {seconds / 60:.1f} min "
        f"({steps / max(seconds, 1e-9):,.0f} learner steps/s) this session, {done:,} in all; "
        f"env runners on {len({r['node_id'] for r in reports})} node(s); "
        f"{illegal} illegal actions of {sum(r['actions_checked'] for r in reports):,} checked; "
        f"model exported to {run_dir / 'model.zip'}"
    )
    (run_dir / "eval_model.zip").unlink(missing_ok=True)
    results = evaluate(run_dir / "model.zip", cfg.eval.final_episodes, "final", done)
    write_file(run_dir / "final_eval.json", json.dumps(results, indent=1))
    print_final(results, cfg.game, eval_seed, cfg.eval.final_episodes, cfg.env)


def _crossed(before: int, after: int, every: int) -> bool:
    return every > 0 and after // every > before // every


def _copy_learner(algo: Any, target: str) -> None:
    """Freeze the learner's current weights into the snapshot module ``target``, everywhere."""
    from brag_env.training.rllib_module import LEARNER

    def copy(learner: Any) -> None:
        learner.module[target].load_state_dict(learner.module[LEARNER].state_dict())

    algo.learner_group.foreach_learner(copy)
    algo.env_runner_group.sync_weights(
        from_worker_or_learner_group=algo.learner_group, policies=[target], inference_only=True
    )
