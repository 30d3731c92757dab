"""The training config: one YAML file holds everything that shapes a run.

The dataclasses below are the schema: every key, its type and its default. A config file may leave
keys out (the defaults apply and the run's ``config.yaml`` records them), but an unknown key, a
wrong type or an out-of-range value is a ``ValueError`` naming the key. ``--set key=value``
overrides one key; nested keys use dots (``--set ppo.learning_rate=1e-4``) and the value is read as
YAML (``--set pool.opponents=[random]``).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

import yaml

GAMES = ("brag", "put")
VEC_ENVS = ("dummy", "subproc")
BACKENDS = ("sb3", "rllib")
ACTIVATIONS = ("tanh", "relu")


@dataclass
class PPOConfig:
    """sb3-contrib ``MaskablePPO`` hyper-parameters (same names as its constructor)."""

    learning_rate: float = 3e-4
    n_steps: int = 256  # steps per env per rollout; a rollout is n_steps * n_envs steps
    batch_size: int = 512
    n_epochs: int = 4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None  # stop an update's epochs early past this KL; null = never
    clip_range_vf: float | None = None  # clip the value function's change; null = no clipping
    normalize_advantage: bool = True  # per mini-batch, as SB3 does by default
    net_arch: list[int] = field(default_factory=lambda: [128, 128])  # actor and critic, separate
    activation: str = "tanh"


@dataclass
class PoolConfig:
    """Who sits in the other seats (see ``brag_env.selfplay``)."""

    opponents: list[str] = field(default_factory=lambda: ["random"])  # baseline agent specs
    snapshot_every: int = 0  # steps between frozen snapshots of the learner; 0 = no snapshots
    snapshot_prob: float = 0.3  # chance an opponent seat gets a snapshot (once there is one)
    max_snapshots: int = 5  # the newest ones are kept


@dataclass
class EvalConfig:
    """Evaluation against baselines: the learner against num_players - 1 copies of each."""

    opponents: list[str] = field(default_factory=lambda: ["random"])
    every: int = 0  # steps between evaluations during training; 0 = only the final one
    episodes: int = 1000  # hands (Brag) or matches (Put) per opponent, during training
    final_episodes: int = 2000  # per opponent, at the end
    deterministic: bool = False  # the learner plays its most likely action instead of sampling
    seed: int | None = None  # the evaluator's seed (same deals every evaluation); null = run's seed


@dataclass
class RLlibConfig:
    """``backend: rllib`` (brag_env/training/rllib_backend.py, docs/rllib.md): Ray's env runners.

    An iteration samples ``ppo.n_steps * n_envs`` env steps (every seat's decisions) spread over
    the env runners; ``n_envs`` and ``vec_env`` mean nothing else to this backend.
    """

    address: str | None = None  # a Ray cluster ("host:port"); null = $RAY_ADDRESS, else local
    num_env_runners: int = 2  # sampling actors, placed by Ray on any node with free CPUs
    num_cpus_per_env_runner: float = 1.0  # with `ray start --num-cpus`: runners per node
    resources_per_env_runner: dict[str, float] = field(default_factory=dict)  # custom resources


@dataclass
class TrainConfig:
    """A whole run."""

    name: str = "run"  # runs/<name>/ unless --out is given
    game: str = "put"
    seed: int = 0
    total_timesteps: int = 100_000  # learner decisions; rounded up to whole rollouts
    env: dict[str, Any] = field(default_factory=dict)  # options of brag_v0 / put_v0
    reward_scale: float = 1.0  # the learner's reward = env reward (chips, points) * reward_scale
    n_envs: int = 8
    vec_env: str = "dummy"
    torch_threads: int = 1
    checkpoint_every: int = 50_000  # steps between checkpoints (for --resume)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    pool: PoolConfig = field(default_factory=PoolConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    backend: str = "sb3"  # sb3 (MaskablePPO in this process) or rllib (Ray, also on a cluster)
    rllib: RLlibConfig = field(default_factory=RLlibConfig)

    @property
    def rollout_steps(self) -> int:
        return self.ppo.n_steps * self.n_envs

    @property
    def num_iterations(self) -> int:
        return -(-self.total_timesteps // self.rollout_steps)

    def validate(self) -> None:
        """Value checks beyond the types; ``ValueError`` naming the key."""
        _choice("game", self.game, GAMES)
        _choice("vec_env", self.vec_env, VEC_ENVS)
        _choice("backend", self.backend, BACKENDS)
        _at_least("rllib.num_env_runners", self.rllib.num_env_runners, 0)
        if not self.rllib.num_cpus_per_env_runner > 0:
            raise ValueError("rllib.num_cpus_per_env_runner must be > 0")
        _choice("ppo.activation", self.ppo.activation, ACTIVATIONS)
        if not self.name or "/" in self.name or self.name.startswith("."):
            raise ValueError(f"name must be a plain directory name, got {self.name!r}")
        for key in (
            "total_timesteps",
            "n_envs",
            "torch_threads",
            "checkpoint_every",
            "ppo.n_steps",
            "ppo.batch_size",
            "ppo.n_epochs",
            "pool.max_snapshots",
            "eval.episodes",
            "eval.final_episodes",
        ):
            _at_least(key, _get(self, key), 1)
        for key in ("pool.snapshot_every", "eval.every"):
            _at_least(key, _get(self, key), 0)
        for key in ("reward_scale", "ppo.learning_rate", "ppo.clip_range", "ppo.max_grad_norm"):
            if not _get(self, key) > 0:
                raise ValueError(f"{key} must be > 0, got {_get(self, key)}")
        for key in ("ppo.gamma", "ppo.gae_lambda", "pool.snapshot_prob"):
            if not 0 <= _get(self, key) <= 1:
                raise ValueError(f"{key} must be between 0 and 1, got {_get(self, key)}")
        for key in ("ppo.ent_coef", "ppo.vf_coef"):
            _at_least(key, _get(self, key), 0)
        if self.ppo.batch_size > self.rollout_steps:
            raise ValueError(
                f"ppo.batch_size ({self.ppo.batch_size}) exceeds a rollout "
                f"(ppo.n_steps * n_envs = {self.rollout_steps})"
            )
        # SB3 would train on a truncated last mini-batch each epoch (and only warn about it).
        if self.rollout_steps % self.ppo.batch_size:
            raise ValueError(
                f"ppo.batch_size ({self.ppo.batch_size}) must divide a rollout "
                f"(ppo.n_steps * n_envs = {self.rollout_steps})"
            )
        for key in ("ppo.target_kl", "ppo.clip_range_vf"):
            value = _get(self, key)
            if value is not None and not value > 0:
                raise ValueError(f"{key} must be > 0 or null, got {value}")
        if not self.ppo.net_arch or min(self.ppo.net_arch) < 1:
            raise ValueError(f"ppo.net_arch must list layer sizes >= 1, got {self.ppo.net_arch}")
        if not self.pool.opponents:
            raise ValueError("pool.opponents must name at least one agent spec")
        if not self.eval.opponents:  # the run's result is its evaluation: it needs an opponent
            raise ValueError("eval.opponents must name at least one agent spec")
        if "num_players" in self.env and self.env["num_players"] is None:
            raise ValueError("env.num_players must be an integer")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def load_config(path: str | Path | None, overrides: list[str] = ()) -> TrainConfig:
    """Read a YAML config (``None``: the defaults), apply ``--set`` overrides, validate."""
    raw: dict[str, Any] = {}
    if path is not None:
        path = Path(path)
        if not path.is_file():
            raise ValueError(f"config file {str(path)!r} does not exist")
        try:
            raw = yaml.safe_load(path.read_text()) or {}
        except yaml.YAMLError as e:
            raise ValueError(f"config file {path} is not valid YAML: {e}") from None
        if not isinstance(raw, dict):
            raise ValueError(f"config file {path} must hold a mapping of keys, not {type(raw)}")
    for item in overrides:
        apply_override(raw, item)
    return config_from_dict(raw)


def apply_override(raw: dict[str, Any], item: str) -> None:
    """Apply one ``key=value`` (``a.b=value`` for nested keys) to a raw config dict."""
    key, eq, text = item.partition("=")
    key = key.strip()
    if not eq or not key:
        raise ValueError(f"--set expects key=value, got {item!r}")
    try:
        value = yaml.safe_load(text) if text.strip() else ""
    except yaml.YAMLError as e:
        raise ValueError(f"--set {key}: value {text!r} is not valid YAML ({e})") from None
    parts = key.split(".")
    node = raw
    for i, part in enumerate(parts[:-1]):
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ValueError(f"--set {key}: {'.'.join(parts[: i + 1])} is not a section")
        node = child
    node[parts[-1]] = value


def config_from_dict(raw: dict[str, Any]) -> TrainConfig:
    cfg = _build(TrainConfig, raw, "")
    cfg.validate()
    return cfg


def dump_config(cfg: TrainConfig) -> str:
    return yaml.safe_dump(cfg.to_dict(), sort_keys=False)


def _build(cls: type, raw: Any, prefix: str) -> Any:
    if not isinstance(raw, dict):
        raise ValueError(f"{prefix.rstrip('.') or 'config'} must be a mapping, got {raw!r}")
    hints = typing.get_type_hints(cls)
    names = [f.name for f in dataclasses.fields(cls)]
    unknown = sorted(set(raw) - set(names))
    if unknown:
        raise ValueError(
            f"unknown config key(s): {', '.join(prefix + str(k) for k in unknown)}; "
            f"known keys{' in ' + prefix.rstrip('.') if prefix else ''}: {', '.join(names)}"
        )
    values = {}
    for name in names:
        if name not in raw:
            continue
        hint = hints[name]
        if dataclasses.is_dataclass(hint):
            values[name] = _build(hint, raw[name], f"{prefix}{name}.")
        else:
            values[name] = _check_type(f"{prefix}{name}", raw[name], hint)
    return cls(**values)


def _check_type(key: str, value: Any, hint: Any) -> Any:
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        args = typing.get_args(hint)
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _check_type(key, value, inner)
    if origin is list:
        (item,) = typing.get_args(hint)
        if not isinstance(value, list):
            raise ValueError(f"{key} must be a list, got {value!r}")
        return [_check_type(f"{key}[{i}]", v, item) for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise ValueError(f"{key} must be a mapping, got {value!r}")
        return dict(value)
    if hint is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{key} must be true or false, got {value!r}")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{key} must be an integer, got {value!r}")
        return value
    if hint is float:
        if isinstance(value, str):  # YAML 1.1 reads "1e-4" (no dot) as a string
            try:
                value = float(value)
            except ValueError:
                raise ValueError(f"{key} must be a number, got {value!r}") from None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"{key} must be a number, got {value!r}")
        return float(value)
    if hint is str:
        if not isinstance(value, str):
            raise ValueError(f"{key} must be a string, got {value!r}")
        return value
    raise TypeError(f"config schema: unsupported type {hint} for {key}")  # a bug in this module


def _get(cfg: TrainConfig, key: str) -> Any:
    node: Any = cfg
    for part in key.split("."):
        node = getattr(node, part)
    return node


def _at_least(key: str, value: float, lo: float) -> None:
    if value < lo:
        raise ValueError(f"{key} must be >= {lo}, got {value}")


def _choice(key: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"{key} must be one of {', '.join(choices)}, got {value!r}")
