"""Train a Brag or Put agent by self-play with MaskablePPO (sb3-contrib), on the CPU.

    brag-train                                   # the default: put_ppo.yaml, a shipped config
    brag-train --config brag_headsup_ppo.yaml    # a shipped config by name, from any folder
    brag-train --config brag_ppo.yaml --seed 3 --set total_timesteps=500000
    brag-train --config brag_ppo.yaml --resume   # continue an interrupted run

In a clone, python train.py takes the same arguments. A --config that is not a file, given as a
bare name or as configs/NAME, is the config of that name shipped with the package; any other
--config is the path of your own YAML file.

Self-play, the safe way (``brag_env/selfplay.py``): the learner holds one seat of the PettingZoo
game and the env plays every other seat with an opponent drawn from a pool: the rule-based
baselines of ``pool.opponents`` plus frozen snapshots of the learner, one every
``pool.snapshot_every`` steps. The learner is paid its own result of every hand, seats rotate,
illegal actions are masked.

Best-response mode (``br.target: SPEC``): a fresh learner trains against that one frozen agent in
every other seat (no pool, no snapshots) and the run ends with a lower bound on the target's
exploitability, the learner's payoff against it with a 95% CI (``best_response.json``,
``brag_env/training/best_response.py``).

Everything that shapes a run is in the YAML config (``brag_env/training/config.py`` is its schema,
``docs/training.md`` lists every key); ``--set key=value`` overrides one key. The whole config,
table options and agent specs included, is checked before anything is written. A run writes to
``runs/<name>/`` (or ``--out DIR``):

    config.yaml      the config as used (defaults filled in, --seed and --set applied)
    tb/              TensorBoard: PPO losses, rollout/ep_rew_mean, eval/<opponent>/mean ...
    evals.jsonl      every evaluation against the baselines, one JSON line each
    snapshots/       the learner's frozen snapshots (opponent pool)
    checkpoint.zip   the latest checkpoint, written atomically: --resume continues from it
    model.zip        the final model, an agent spec for evaluate.py (--agents runs/<name>/model.zip)
    final_eval.json  the final evaluation, also printed at the end
    best_response.json  br.target only: the lower bound on the target's exploitability
    curves.png       the learning curves from evals.jsonl (python -m brag_env.training.curves)

Exit status: 0 done, 2 a usage error (bad config, run directory or checkpoint), 1 a run file
that could not be written (disk full, permissions), 130 interrupted (then --resume continues).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from brag_env.extras import missing_extra_message
from brag_env.resources import shipped_dir
from brag_env.training import train_prog
from brag_env.ui.cli import quiet_on_closed_pipe

# The train extra's modules. A core-only install can still import this module (main() then says
# which extra is missing, in one line); any other missing module is a bug and raises as usual.
TRAIN_EXTRA = ("torch", "sb3_contrib", "stable_baselines3", "tensorboard", "matplotlib", "pydantic")
missing_module: str | None = None
try:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    from brag_env.training.best_response import best_response_report, format_report, target_result
    from brag_env.training.callbacks import EverySteps
    from brag_env.training.checkpoint import (
        TRAINING_ENTRY,
        check_state_fits_run,
        load_parameters,
        read_training_state,
        save_model,
    )
    from brag_env.training.config import TrainConfig, dump_config, load_config
    from brag_env.training.curves import plot_runs
    from brag_env.training.envs import close_quietly, make_vec_env
    from brag_env.training.evaluation import evaluate_model, format_short, print_final
    from brag_env.training.exploitability import model_exploitability
    from brag_env.training.files import (
        DISK_ERRORS,
        RunFileError,
        append_line,
        quiet_disk_errors_in_threads,
        run_dir_lock,
        write_file,
        writing,
    )
    from brag_env.training.learner import NOT_FINITE_PROBABILITIES, LearnerPPO
    from brag_env.training.progress import ProgressBar
except ModuleNotFoundError as missing:
    if (missing.name or "").partition(".")[0] not in TRAIN_EXTRA:
        raise
    missing_module = missing.name

# The default config, shipped with the package (brag_env.resources): brag-train finds it from any
# folder. ./configs/put_ppo.yaml is the fallback of a package installed without its data.
SHIPPED_CONFIGS = shipped_dir("configs")
DEFAULT_CONFIG = SHIPPED_CONFIGS / "put_ppo.yaml"


def default_config() -> Path:
    for path in (DEFAULT_CONFIG, Path("configs") / DEFAULT_CONFIG.name):
        if path.is_file():
            return path
    raise ValueError(f"no default config here (configs/{DEFAULT_CONFIG.name}); pass --config FILE")


def find_config(name: str) -> Path:
    """``--config NAME``: the file, else (a bare name or ``configs/NAME``) the shipped config of
    that name, so that an installed ``brag-train`` reaches every shipped config from any folder."""
    path = Path(name)
    if path.is_file():
        return path
    if path.parent in (Path("."), Path("configs")):
        shipped = SHIPPED_CONFIGS / path.name
        if shipped.is_file():
            return shipped
    if path.exists():  # a folder, say: the config reader names the problem
        return path
    names = ", ".join(sorted(p.name for p in SHIPPED_CONFIGS.glob("*.yaml")))
    raise ValueError(f"config file {name!r} does not exist; the shipped configs: {names}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog=train_prog(argv),
        description="Self-play MaskablePPO training for Brag and Put.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n\n".join(__doc__.split("\n\n")[1:3]),  # the commands and where configs are
    )
    p.add_argument("--config", help=f"YAML config (default: {DEFAULT_CONFIG.name})")
    p.add_argument("--out", help="run directory (default: runs/<name>)")
    p.add_argument("--seed", type=int, help="override the config's seed")
    p.add_argument("--resume", action="store_true", help="continue the run in the run directory")
    p.add_argument(
        "--overwrite", action="store_true", help="start over in an existing run directory"
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="overrides",
        help="override one config key, e.g. --set ppo.learning_rate=1e-4 (repeatable)",
    )
    p.add_argument(
        "--progress",
        choices=["auto", "on", "off"],
        default="auto",
        help="progress bar: auto shows it when stderr is a terminal",
    )
    return p.parse_args(argv)


@quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    prog = train_prog(argv)
    if missing_module is not None:  # a core-only install: one line, not a traceback
        message = missing_extra_message(missing_module, "train", "training")
        print(f"{prog}: error: {message}", file=sys.stderr)
        return 2
    args = parse_args(argv)
    try:
        train(args)
    except ValueError as e:  # a bad config, run directory or checkpoint: one line, no traceback
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    except RunFileError as e:  # disk full, permission denied: the last checkpoint is intact
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        raise  # stdout's reader has gone: quiet_on_closed_pipe ends the command
    except OSError as e:  # any other file the run could not use, still one line
        where = f"{e.filename}: " if e.filename else ""
        print(f"{prog}: error: {where}{e.strerror or e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(
            f"\n{prog}: interrupted; continue with the same command plus --resume", file=sys.stderr
        )
        return 130
    return 0


def resolve_config(args: argparse.Namespace) -> tuple[TrainConfig, Path]:
    """The config (file, then --seed, then --set) and the run directory."""
    config_path = find_config(args.config) if args.config else default_config()
    overrides = list(args.overrides) + ([f"seed={args.seed}"] if args.seed is not None else [])
    cfg = load_config(config_path, overrides)
    run_dir = Path(args.out) if args.out else Path("runs") / cfg.name
    if run_dir.exists() and not run_dir.is_dir():
        raise ValueError(f"run directory {run_dir} is a file")
    if args.resume:
        saved_path = run_dir / "config.yaml"
        if not saved_path.is_file():
            raise ValueError(f"--resume: no run to resume in {run_dir} (no config.yaml)")
        saved = load_config(saved_path)
        if (args.config or overrides) and saved.to_dict() != cfg.to_dict():
            raise ValueError(
                f"--resume: the config differs from the run's {saved_path}; resume with the same "
                "--config/--set/--seed (or none of them)"
            )
        return saved, run_dir
    held = ("checkpoint.zip", "model.zip", "rllib_checkpoint")  # rllib: a directory
    if any((run_dir / name).exists() for name in held) and not args.overwrite:
        raise ValueError(
            f"{run_dir} already holds a run: add --resume to continue it, --overwrite to start "
            "over, or --out DIR for a new directory"
        )
    return cfg, run_dir


# What a run writes besides config.yaml and evals.jsonl (both rewritten at the start of a run).
RUN_ARTEFACTS = ("checkpoint.zip", "model.zip", "final_eval.json", "eval_model.zip", "curves.png")
RUN_ARTEFACTS += ("best_response.json",)  # br.target
RUN_ARTEFACTS += ("rllib_runners.json",)  # backend: rllib
RUN_ARTEFACT_DIRS = ("snapshots", "tb", "rllib_checkpoint")


def clear_run_dir(run_dir: Path) -> None:
    """--overwrite: remove the old run's files, so nothing of it can be resumed or mistaken for
    the new run's output. Only the files train.py writes are touched."""
    for name in RUN_ARTEFACTS:
        (run_dir / name).unlink(missing_ok=True)
    for name in RUN_ARTEFACT_DIRS:
        shutil.rmtree(run_dir / name, ignore_errors=True)


def config_hash(cfg: TrainConfig) -> str:
    """A fingerprint of the config, stored in checkpoints: --resume refuses a config.yaml that
    was edited (or replaced by another run's) since the checkpoint was written."""
    return hashlib.sha256(dump_config(cfg).encode()).hexdigest()


@contextlib.contextmanager
def closing_quietly(venv: Any) -> Iterator[Any]:
    try:
        yield venv
    finally:
        close_quietly(venv)


def truncate_evals(path: Path, step: int) -> None:
    """On --resume: keep only the evaluations up to the checkpoint's step. Those made after it
    (before the crash) are made again by the resumed run, and a "final" one is redone."""
    if not path.is_file():
        return
    kept = []
    for line in path.read_text().splitlines():
        with contextlib.suppress(json.JSONDecodeError, TypeError, AttributeError):
            entry = json.loads(line)
            if entry.get("label") != "final" and int(entry["step"]) <= step:
                kept.append(line + "\n")
    write_file(path, "".join(kept))


@contextlib.contextmanager
def diverged_as_error(model: MaskablePPO) -> Iterator[None]:
    """A policy whose logits are no longer finite (a step too large for the run) fails its
    next sample inside torch; that failure becomes the one-line ``ValueError`` a bad config
    gives, naming the step and the usual cause. Any other error passes unchanged."""
    try:
        yield
    except RuntimeError as e:
        if NOT_FINITE_PROBABILITIES not in str(e):
            raise
        raise ValueError(
            f"training diverged by step {model.num_timesteps:,}: the policy's action "
            "probabilities are no longer finite numbers; try a lower ppo.learning_rate"
        ) from None


def build_model(cfg: TrainConfig, venv: Any, seed: int) -> MaskablePPO:
    """``LearnerPPO`` (``MaskablePPO`` with a cheaper masked distribution and info walk,
    ``brag_env/training/learner.py``) with every hyper-parameter from the config. A schedule
    (``learning_rate``, ``clip_range``) is a callable of SB3's ``progress_remaining``; a number
    stays a number.

    Turns off torch.distributions' argument checks for the process: each distribution checks
    its logits when built, and every ``log_prob`` argument. The logits come from the
    network and the actions from the masked distribution, so the checks fire only once the
    policy has diverged (logits no longer finite; ``diverged_as_error`` reports that), and they
    change no value (the same seed trains the same weights, bit for bit)."""
    torch.distributions.Distribution.set_default_validate_args(False)
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[cfg.ppo.activation]
    algorithm: type[MaskablePPO] = LearnerPPO
    magnet: dict[str, Any] = {}
    if cfg.ppo.magnet_kl > 0:  # magnetic mirror descent; off: exactly the plain learner
        from brag_env.training.mmd import MagnetPPO

        algorithm = MagnetPPO
        magnet = {"magnet_kl": cfg.ppo.magnet_kl, "magnet_update": cfg.ppo.magnet_update}
    return algorithm(
        "MlpPolicy",
        venv,
        learning_rate=cfg.ppo.learning_rate,
        n_steps=cfg.ppo.n_steps,
        batch_size=cfg.ppo.batch_size,
        n_epochs=cfg.ppo.n_epochs,
        gamma=cfg.ppo.gamma,
        gae_lambda=cfg.ppo.gae_lambda,
        clip_range=cfg.ppo.clip_range,
        ent_coef=cfg.ppo.ent_coef,
        vf_coef=cfg.ppo.vf_coef,
        max_grad_norm=cfg.ppo.max_grad_norm,
        target_kl=cfg.ppo.target_kl,
        clip_range_vf=cfg.ppo.clip_range_vf,
        normalize_advantage=cfg.ppo.normalize_advantage,
        policy_kwargs={
            "net_arch": {"pi": list(cfg.ppo.net_arch), "vf": list(cfg.ppo.net_arch)},
            "activation_fn": activation,
        },
        seed=seed,
        device="cpu",
        verbose=0,
        **magnet,
    )


def load_init_weights(cfg: TrainConfig) -> dict[str, Any] | None:
    """``br.init``'s policy weights, checked against the run's table and network before the
    run writes anything; ``None`` without ``br.init``. One-line ``ValueError`` otherwise."""
    if not cfg.br.init:
        return None
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from agents import table_info
    from agents.model import check_table, load_policy
    from agents.registry import parse_spec

    spec = parse_spec(cfg.br.init, cfg.game)
    if spec.kind != "model":
        raise ValueError(f"br.init must be a model file or model:NAME, got {cfg.br.init!r}")
    policy, info = load_policy(spec.path)
    check_table(info, table_info(cfg.game, **cfg.env))
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[cfg.ppo.activation]
    arch = list(cfg.ppo.net_arch)
    expected = MaskableActorCriticPolicy(
        policy.observation_space,
        policy.action_space,
        lambda _: 0.0,
        net_arch={"pi": arch, "vf": arch},
        activation_fn=activation,
    )
    try:
        expected.load_state_dict(policy.state_dict(), strict=True)
    except RuntimeError:
        raise ValueError(
            f"br.init {cfg.br.init!r}: its network does not match ppo.net_arch {arch} "
            f"({cfg.ppo.activation})"
        ) from None
    return expected.state_dict()


def save_checkpoint(
    model: MaskablePPO, cfg: TrainConfig, path: Path, state: dict[str, Any]
) -> None:
    """The model plus what --resume needs (steps, pool, evaluations), in one atomic file."""
    with writing(path):
        save_model(model, path, cfg.game, cfg.env, training_state=state)


def train(args: argparse.Namespace) -> None:
    # --- 1. config and run directory: everything is checked before anything is written ---------
    cfg, run_dir = resolve_config(args)
    if cfg.backend == "rllib":  # Ray installed, no sb3-only settings
        from brag_env.training.rllib_backend import check_rllib_config

        check_rllib_config(cfg)
    init_weights = None if args.resume else load_init_weights(cfg)  # resume: the checkpoint's
    # Only now is the run directory created, for its lock: one train.py per directory.
    with run_dir_lock(run_dir), quiet_disk_errors_in_threads():
        cfg, run_dir = resolve_config(args)  # again, under the lock: a run may have ended since
        run(args, cfg, run_dir, init_weights)


def prune_snapshots(run_dir: Path, kept: list[str]) -> None:
    """``pool.max_snapshots`` on disk: delete the snapshot files the checkpoint just written no
    longer names (the pool has dropped them). Done after a checkpoint, never before, so that
    the checkpoint on disk can always be resumed."""
    folder = run_dir / "snapshots"
    if not folder.is_dir():
        return
    names = {Path(name).name for name in kept}
    for path in folder.glob("step_*.zip"):
        if path.name not in names:
            path.unlink(missing_ok=True)


def run(
    args: argparse.Namespace,
    cfg: TrainConfig,
    run_dir: Path,
    init_weights: dict[str, Any] | None = None,
) -> None:
    """The run itself, holding the run directory's lock; ``init_weights``: br.init's, checked."""
    if cfg.backend == "rllib":  # Ray RLlib, on a cluster too: docs/rllib.md
        from brag_env.training.rllib_backend import train_rllib

        progress = {"auto": None, "on": True, "off": False}[args.progress]
        hooks = {"clear_run_dir": clear_run_dir, "truncate_evals": truncate_evals}
        opts = {"resume": args.resume, "overwrite": args.overwrite, "progress": progress}
        return train_rllib(cfg, run_dir, config_hash=config_hash(cfg), **opts, **hooks)
    checkpoint_path = run_dir / "checkpoint.zip"
    evals_path = run_dir / "evals.jsonl"
    state: dict[str, Any] = {
        "num_timesteps": 0,
        "n_updates": 0,
        "snapshots": [],
        "evals": [],
        "config_hash": config_hash(cfg),
    }
    if args.resume:
        state = read_training_state(checkpoint_path, cfg.game, cfg.env)
        expected = config_hash(cfg)
        # Checkpoints written before the hash existed carry none: nothing to compare.
        if state.get("config_hash", expected) != expected:
            raise ValueError(
                f"--resume: {run_dir / 'config.yaml'} does not match the config {checkpoint_path} "
                "was trained with (edited, or left by another run); start over with --overwrite"
            )
        state["config_hash"] = expected
        where = f"checkpoint {str(checkpoint_path)!r}: {TRAINING_ENTRY}"
        check_state_fits_run(state, cfg, run_dir, where)  # before anything is printed or written
    else:
        if args.overwrite:
            clear_run_dir(run_dir)
        with writing(run_dir):
            run_dir.mkdir(parents=True, exist_ok=True)
        write_file(run_dir / "config.yaml", dump_config(cfg))
        write_file(evals_path, "")
    torch.set_num_threads(cfg.torch_threads)
    done = int(state["num_timesteps"])
    # Whole rollouts, so a resumed run ends at the same step as an uninterrupted one.
    total = cfg.num_iterations * cfg.rollout_steps
    if args.resume and done >= total and (run_dir / "final_eval.json").is_file():
        # Exit 0: the run the user asked for exists; a second "final" would only repeat it.
        print(
            f"{train_prog()}: the run in {run_dir} already finished at step {done:,} "
            f"({run_dir / 'model.zip'}, {run_dir / 'final_eval.json'}); nothing to resume"
        )
        return

    # --- 2. the self-play envs and the learner ---------------------------------------------------
    # A resumed run gets fresh deals (seed + steps done) rather than replaying the start of the run.
    snapshots = [str(run_dir / name) for name in state["snapshots"]]
    venv = make_vec_env(cfg, seed=cfg.seed + done, snapshots=snapshots)
    try:
        model = build_model(cfg, venv, seed=cfg.seed + done)
        if init_weights is not None:  # br.init: a warm start from another model's policy
            model.policy.load_state_dict(init_weights, strict=True)
        if args.resume:
            load_parameters(model, checkpoint_path)  # weights + optimizer; safe (weights_only)
            model.num_timesteps = done
            model._n_updates = int(state["n_updates"])
            # The checkpoint is whole: only now are the evaluations after it dropped.
            truncate_evals(evals_path, done)
        print(
            f"{train_prog()}: {cfg.game}, {cfg.env.get('num_players', 'default')} players, "
            f"{total:,} steps ({cfg.n_envs} {cfg.vec_env} envs), run directory {run_dir}"
            + (f", resuming at step {done:,}" if done else "")
            + (f", best response to {cfg.br.target}" if cfg.br.target else ""),
            flush=True,
        )
        with writing(run_dir / "tb"):
            model.set_logger(configure(str(run_dir / "tb"), ["tensorboard"]))
    except BaseException:
        close_quietly(venv)  # no subprocess envs left behind by a bad checkpoint
        raise
    eval_seed = cfg.seed if cfg.eval.seed is None else cfg.eval.seed

    def evaluate(
        path: Path, episodes: int, label: str, measured: tuple[dict[str, Any], ...] = ()
    ) -> list[dict[str, Any]]:
        """The model file against every eval opponent: TensorBoard and a line of evals.jsonl.
        ``measured``: results already taken (the final one against br.target), not replayed."""
        done_specs = {r["opponent"] for r in measured}
        results = list(measured) + evaluate_model(
            cfg.game,
            path,
            [spec for spec in cfg.eval_specs if spec not in done_specs],
            episodes,
            eval_seed,
            cfg.env,
            cfg.eval.deterministic,
            batched=cfg.vec_env == "batched",
        )
        for r in results:
            for key in ("mean", "ci_low", "ci_high"):
                model.logger.record(f"{label}/{r['opponent']}/{key}", r[key])
        with writing(run_dir / "tb", only=DISK_ERRORS):
            model.logger.dump(model.num_timesteps)
        entry = {"step": model.num_timesteps, "label": label, "results": results}
        if cfg.eval.exploitability:  # exact, heads-up Put only (brag_env.training.exploitability)
            entry["exploitability"] = model_exploitability(cfg.game, path, cfg.env)
            exploitability = entry["exploitability"]["exploitability"]
            model.logger.record(f"{label}/exploitability", exploitability)
            with writing(run_dir / "tb", only=DISK_ERRORS):
                model.logger.dump(model.num_timesteps)
        append_line(evals_path, json.dumps(entry))
        return results

    # --- 3. what happens between PPO updates (SB3 callbacks, brag_env/training/callbacks.py) ----
    def take_snapshot(step: int) -> None:
        name = f"snapshots/step_{step:09d}.zip"
        with writing(run_dir / name):
            save_model(model, run_dir / name, cfg.game, cfg.env)
        venv.env_method("add_snapshot", str(run_dir / name))
        state["snapshots"] = (state["snapshots"] + [name])[-cfg.pool.max_snapshots :]

    def evaluate_periodically(step: int) -> None:
        eval_path = run_dir / "eval_model.zip"
        with writing(eval_path):
            save_model(model, eval_path, cfg.game, cfg.env)
        try:
            results = evaluate(eval_path, cfg.eval.episodes, "eval")
        finally:
            eval_path.unlink(missing_ok=True)
        state["evals"].append(format_short(results, cfg.game))
        bar.set_eval(state["evals"][-1])
        bar.write(f"[{step:>11,} steps] eval: {state['evals'][-1]}")

    def checkpoint(step: int) -> None:
        state.update(num_timesteps=step, n_updates=model._n_updates)
        save_checkpoint(model, cfg, checkpoint_path, state)
        prune_snapshots(run_dir, state["snapshots"])

    # --- 4. the run: ONE learn() call, so progress_remaining (and every schedule) is right -------
    progress = {"auto": None, "on": True, "off": False}[args.progress]
    start = time.perf_counter()
    # The envs are closed at the end, after Ctrl-C too: subprocess envs must not outlive the run.
    with ProgressBar(total, initial=done, enabled=progress) as bar, closing_quietly(venv):
        if state["evals"]:
            bar.set_eval(state["evals"][-1])
        callbacks = [
            bar,  # the order matters: a checkpoint records the snapshots and evaluations before it
            EverySteps(cfg.pool.snapshot_every, total, take_snapshot),
            EverySteps(cfg.eval.every, total, evaluate_periodically),
            EverySteps(cfg.checkpoint_every, total, checkpoint, at_end=True),
        ]
        # The run files are written through writing(); a disk error left is TensorBoard's.
        with writing(run_dir / "tb", only=DISK_ERRORS), diverged_as_error(model):
            model.learn(total - done, callback=callbacks, reset_num_timesteps=False)
    seconds = time.perf_counter() - start

    # --- 5. the final model, its evaluation against every baseline, the learning curves ---------
    with writing(run_dir / "model.zip"):
        save_model(model, run_dir / "model.zip", cfg.game, cfg.env)
    steps = model.num_timesteps - done
    print(
        f"{train_prog()}: {steps:,} steps in {seconds / 60:.1f} min "
        f"({steps / seconds:,.0f} steps/s) this session, {model.num_timesteps:,} in all; "
        f"model saved to {run_dir / 'model.zip'}"
    )
    (run_dir / "eval_model.zip").unlink(missing_ok=True)  # left by a run killed mid-evaluation
    report = None
    if cfg.br.target:  # written before final_eval.json, which marks a finished run (--resume)
        report = best_response_report(
            cfg.game,
            str(run_dir / "model.zip"),
            cfg.br.target,
            cfg.eval.final_episodes,
            eval_seed,
            cfg.env,
            cfg.eval.deterministic,
        )
        write_file(run_dir / "best_response.json", json.dumps(report, indent=1))
    # The target's row of the final table is the report's own figure: one set of deals.
    measured = (target_result(report, cfg.game),) if report else ()
    results = evaluate(run_dir / "model.zip", cfg.eval.final_episodes, "final", measured)
    write_file(run_dir / "final_eval.json", json.dumps(results, indent=1))
    print_final(results, cfg.game, eval_seed, cfg.eval.final_episodes, cfg.env)
    if report is not None:
        print(format_report(report))
    plot_runs([run_dir], run_dir / "curves.png")
    print(f"learning curves: {run_dir / 'curves.png'}")


if __name__ == "__main__":
    sys.exit(main())
