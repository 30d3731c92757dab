"""The training config: one YAML file holds everything that shapes a run.

The pydantic models below are the schema: every key, its type, its bounds, its default and its
meaning (``description``, which ``docs/training.md`` mirrors). A key is one line; adding one to a
section is adding that line. A config file may leave keys out (the defaults apply and the run's
``config.yaml`` records them), but an unknown key, a wrong type or an out-of-range value is a
one-line ``ValueError`` naming the key (``ppo.n_steps must be an integer >= 1, got 'x'``). The
``env:`` options are checked by building the game's rules config, and the agent specs by parsing
them, so a config that loads is a config that runs.

``--set key=value`` overrides one key; nested keys use dots (``--set ppo.learning_rate=1e-4``)
and the value is read as YAML (``--set pool.opponents=[random]``).

``ppo.learning_rate`` and ``ppo.clip_range`` take a number or a schedule over the run,
``{schedule: linear, start: 3.0e-4, end: 1.0e-5}`` (or ``exponential``: the same ratio per step).
"""

from __future__ import annotations

import math
import types
import typing
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    AllowInfNan,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    Strict,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.fields import FieldInfo

from brag_env.games import GAME_NAMES, game_spec, games_with
from brag_env.io import (
    MAX_QUOTED_CHARS,
    MAX_YAML_BYTES,
    YAMLError,
    clip,
    parse_yaml,
    quoted,
    read_text_bounded,
)

BATCHED_GAMES = games_with("batched_engine")  # their engines: brag_env.training.batched
MAX_SEED = 2**31 - 1  # numpy seeds up to 2**32 - 1; a run adds its steps and env index
# Upper bounds on sizes, so that an absurd value (a typo, 10^12 episodes) is refused before the
# run directory is written rather than failing hours later in an allocation. Each is far above
# any run here (the largest config: 10^7 steps, 1024 batched tables, layers of 256).
MAX_TIMESTEPS = 10**10
MAX_ENVS = 16_384  # batched tables; subprocess envs are bounded by MAX_PROCESSES
MAX_PROCESSES = 256
MAX_ROLLOUT = 2**21  # ppo.n_steps * n_envs: the rollout buffer holds this many observations
# The rollout buffer in bytes, from the table's observation size: Brag with perfect_recall
# observes 11,086 values a step, so a rollout allowed in steps could still ask for 86 GiB.
MAX_ROLLOUT_BYTES = 4 * 2**30
ROLLOUT_FLOATS_PER_STEP = 7  # SB3's per-step arrays: action, reward, return, start, value, ...
MAX_LAYER = 8192
MAX_LAYERS = 16
MAX_EPISODES = 10**7  # per opponent and evaluation: each hand or match is kept as a sample
MAX_SPECS = 64  # agent specs in a list


def _number_from_text(value: Any) -> Any:
    """YAML 1.1 reads ``1e-4`` (no dot) as a string; it is still a number here."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return value
    return value


# Value types. Strict: "8" is not an integer and true is not a number (YAML makes both easy).
Int = Annotated[int, Strict()]
Num = Annotated[float, BeforeValidator(_number_from_text), Strict(), AllowInfNan(False)]
Bool = Annotated[bool, Strict()]
Str = Annotated[str, Strict()]


class Section(BaseModel):
    """A mapping of known keys; anything else is an error."""

    model_config = ConfigDict(extra="forbid")


class Schedule(Section):
    """A value that moves from ``start`` to ``end`` over the run.

    SB3 calls it with ``progress_remaining``, 1 at the first update and 0 at the end.
    ``linear`` interpolates; ``exponential`` multiplies by the same factor per step.
    """

    schedule: Literal["linear", "exponential"] = Field(description="the shape of the curve")
    start: Num = Field(gt=0, description="the value at the start of the run")
    end: Num = Field(gt=0, description="the value at the end of the run")

    def __call__(self, progress_remaining: float) -> float:
        done = min(max(1.0 - progress_remaining, 0.0), 1.0)
        if self.schedule == "linear":
            return self.start + (self.end - self.start) * done
        return self.start * (self.end / self.start) ** done


def _number_or_schedule(value: Any) -> str:
    return "mapping" if isinstance(value, dict | Schedule) else "number"


# A positive number or a Schedule (a mapping): the discriminator picks the branch, so an error
# names one problem, not one per branch.
PositiveOrSchedule = Annotated[
    Annotated[Num, Field(gt=0), Tag("number")] | Annotated[Schedule, Tag("mapping")],
    Discriminator(_number_or_schedule),
]


class PPOConfig(Section):
    """sb3-contrib ``MaskablePPO`` hyper-parameters (same names as its constructor)."""

    learning_rate: PositiveOrSchedule = Field(3e-4, description="Adam step size, or a schedule")
    n_steps: Int = Field(
        256,
        ge=1,
        le=MAX_ROLLOUT,
        description=(
            "steps per env per rollout (rollout = n_steps * n_envs, at most 2,097,152 steps "
            "and 4 GiB of buffer)"
        ),
    )
    batch_size: Int = Field(512, ge=1, description="mini-batch size; must divide a rollout")
    n_epochs: Int = Field(4, ge=1, le=1000, description="passes over each rollout")
    gamma: Num = Field(0.99, ge=0, le=1, description="discount factor")
    gae_lambda: Num = Field(0.95, ge=0, le=1, description="GAE bias/variance trade-off")
    clip_range: PositiveOrSchedule = Field(0.2, description="PPO ratio clip, or a schedule")
    ent_coef: Num = Field(0.01, ge=0, description="entropy bonus weight")
    vf_coef: Num = Field(0.5, ge=0, description="value loss weight")
    max_grad_norm: Num = Field(0.5, gt=0, description="gradient norm clip")
    target_kl: Num | None = Field(
        None, gt=0, description="stop an update's epochs past this KL; null = never"
    )
    clip_range_vf: Num | None = Field(
        None, gt=0, description="clip the value function's change; null = no clipping"
    )
    normalize_advantage: Bool = Field(True, description="normalize advantages per mini-batch")
    net_arch: list[Annotated[Int, Field(ge=1, le=MAX_LAYER)]] = Field(
        [128, 128],
        min_length=1,
        max_length=MAX_LAYERS,
        description="hidden layer sizes, actor and critic (separate networks)",
    )
    activation: Literal["tanh", "relu"] = Field("tanh", description="hidden layer activation")
    magnet_kl: Num = Field(
        0.0,
        ge=0,
        description="magnetic mirror descent: weight of the KL divergence of the policy from "
        "a magnet policy in the loss "
        "(brag_env/training/mmd.py); 0 = off (plain MaskablePPO)",
    )
    magnet_update: Int = Field(
        10,
        ge=1,
        le=MAX_TIMESTEPS,
        description="rollouts between magnet moves (the magnet becomes a copy of the policy)",
    )


SNAPSHOT_SAMPLING = ("uniform", "latest")


class PoolConfig(Section):
    """Who sits in the other seats (see ``brag_env.selfplay``)."""

    opponents: list[Str] = Field(
        ["random"],
        max_length=MAX_SPECS,
        description="agent specs: baselines, probes (brag:never_look), model .zip files "
        "(exploiters); [] only with br.target",
    )
    snapshot_every: Int = Field(
        0,
        ge=0,
        le=MAX_TIMESTEPS,
        description="steps between frozen snapshots of the learner; 0 = none",
    )
    snapshot_prob: Num = Field(
        0.3, ge=0, le=1, description="chance an opponent seat gets a snapshot (once there is one)"
    )
    max_snapshots: Int = Field(
        5, ge=1, le=10_000, description="how many of the newest snapshots are kept (on disk too)"
    )
    snapshot_sampling: Literal[SNAPSHOT_SAMPLING] = Field(
        "uniform",
        description="which kept snapshot a seat gets: uniform (with a large max_snapshots: "
        "fictitious-play style) or latest (the newest)",
    )


class BestResponseConfig(Section):
    """A learned best response (docs/training.md, "Learned best responses")."""

    target: Str | None = Field(
        None,
        description="train a fresh learner against this one frozen agent spec in every other "
        "seat and report a lower bound on its exploitability; null = self-play",
    )
    init: Str | None = Field(
        None,
        description="start the learner from this model's policy weights (a .zip path or "
        "model:NAME, same table and net_arch) instead of fresh ones; null = fresh",
    )


class EvalConfig(Section):
    """Evaluation against baselines: the learner against num_players - 1 copies of each."""

    opponents: list[Str] = Field(
        ["random"],
        max_length=MAX_SPECS,
        description="agent specs evaluated against (br.target: besides the target)",
    )
    every: Int = Field(
        0,
        ge=0,
        le=MAX_TIMESTEPS,
        description="steps between evaluations during training; 0 = only the final one",
    )
    episodes: Int = Field(
        1000,
        ge=1,
        le=MAX_EPISODES,
        description="hands (Brag), deals (brag7) or matches (Put) per opponent, during training",
    )
    final_episodes: Int = Field(
        2000, ge=1, le=MAX_EPISODES, description="the same count per opponent, at the end"
    )
    deterministic: Bool = Field(False, description="the learner plays its most likely action")
    exploitability: Bool = Field(
        False, description="heads-up Put: the exact exploitability too (docs/solver.md)"
    )
    seed: Int | None = Field(
        None,
        ge=0,
        le=MAX_SEED,
        description="evaluator seed (same deals every evaluation); null = the run's seed",
    )


class RLlibConfig(Section):
    """``backend: rllib`` (brag_env/training/rllib_backend.py, docs/rllib.md): Ray's env runners.

    An iteration samples ``ppo.n_steps * n_envs`` env steps (every seat's decisions) spread over
    the env runners; ``n_envs`` and ``vec_env`` mean nothing else to this backend.
    """

    address: Str | None = Field(
        None, description='a Ray cluster ("host:port"); null = $RAY_ADDRESS, else a local Ray'
    )
    num_env_runners: Int = Field(
        2,
        ge=0,
        le=MAX_PROCESSES * 16,
        description="sampling actors, placed by Ray on any node with free CPUs",
    )
    num_cpus_per_env_runner: Num = Field(
        1.0, gt=0, description="CPUs each runner takes (with `ray start --num-cpus`: per node)"
    )
    resources_per_env_runner: dict[Str, Num] = Field(
        {}, description="custom Ray resources each runner needs (pin runners to nodes)"
    )


class TrainConfig(Section):
    """A whole run."""

    name: Str = Field("run", description="the run directory runs/<name>/ unless --out is given")
    game: Literal[GAME_NAMES] = Field("put", description="which game")  # type: ignore[valid-type]
    seed: Int = Field(0, ge=0, le=MAX_SEED, description="seeds the envs, the network and PPO")
    total_timesteps: Int = Field(
        100_000,
        ge=1,
        le=MAX_TIMESTEPS,
        description="learner decisions, rounded up to whole rollouts",
    )
    env: dict[Str, Any] = Field({}, description="options of brag_v1 / put_v1 (docs/rules.md)")
    reward_scale: Num = Field(1.0, gt=0, description="learner reward = env reward * reward_scale")
    episode: Literal["match", "hand"] = Field(
        "match",
        description=(
            "one learner episode: the env's (Put: a match), or hand (Put with reward: points): "
            "a decision's return then holds only its own hand's points"
        ),
    )
    n_envs: Int = Field(
        8, ge=1, le=MAX_ENVS, description="parallel self-play envs (subproc: at most 256)"
    )
    vec_env: Literal["dummy", "subproc", "batched"] = Field(
        "dummy",
        description=(
            "dummy: one process; subproc: one per env; "
            "batched: one array engine (heads-up Put, Three-card Brag)"
        ),
    )
    torch_threads: Int = Field(1, ge=1, le=1024, description="torch CPU threads")
    checkpoint_every: Int = Field(
        50_000, ge=1, le=MAX_TIMESTEPS, description="steps between checkpoints (for --resume)"
    )
    ppo: PPOConfig = Field(default_factory=PPOConfig)
    pool: PoolConfig = Field(default_factory=PoolConfig)
    eval: EvalConfig = Field(default_factory=EvalConfig)
    br: BestResponseConfig = Field(default_factory=BestResponseConfig)
    backend: Literal["sb3", "rllib"] = Field(
        "sb3", description="sb3: MaskablePPO in this process; rllib: Ray RLlib (docs/rllib.md)"
    )
    rllib: RLlibConfig = Field(default_factory=RLlibConfig)

    @property
    def rollout_steps(self) -> int:
        return self.ppo.n_steps * self.n_envs

    @property
    def num_iterations(self) -> int:
        return -(-self.total_timesteps // self.rollout_steps)

    @property
    def opponent_specs(self) -> list[str]:
        """Who the learner trains against: the target alone in best-response mode."""
        return [self.br.target] if self.br.target else list(self.pool.opponents)

    @property
    def eval_specs(self) -> list[str]:
        """Who the learner is evaluated against: the target first in best-response mode."""
        target = self.br.target
        if target is None:
            return list(self.eval.opponents)
        return [target] + [spec for spec in self.eval.opponents if spec != target]

    @field_validator("name")
    @classmethod
    def _plain_name(cls, name: str) -> str:
        if not name or "/" in name or "\\" in name or name.startswith("."):
            raise ValueError("must be a plain directory name")
        return name

    @model_validator(mode="after")
    def _consistent(self) -> TrainConfig:
        """Checks across keys: the mini-batches, the table options, the agent specs."""
        rollout = self.rollout_steps
        if rollout > MAX_ROLLOUT:
            raise ValueError(
                f"a rollout (ppo.n_steps * n_envs = {rollout:,}) must be at most {MAX_ROLLOUT:,} "
                "steps: the rollout buffer holds an observation of each"
            )
        if self.vec_env == "subproc" and self.n_envs > MAX_PROCESSES:
            raise ValueError(
                f"n_envs must be at most {MAX_PROCESSES} with vec_env: subproc (a process each), "
                f"got {self.n_envs}; vec_env: batched runs more tables in one"
            )
        if self.ppo.batch_size > rollout:
            raise ValueError(
                f"ppo.batch_size ({self.ppo.batch_size}) exceeds a rollout "
                f"(ppo.n_steps * n_envs = {rollout})"
            )
        # SB3 would train on a truncated last mini-batch each epoch (and only warn about it).
        if rollout % self.ppo.batch_size:
            raise ValueError(
                f"ppo.batch_size ({self.ppo.batch_size}) must divide a rollout "
                f"(ppo.n_steps * n_envs = {rollout})"
            )
        check_env_options(self.game, self.env)
        check_rollout_bytes(self)
        check_opponents(self)
        check_agent_specs(self)
        if self.vec_env == "batched" and self.game not in BATCHED_GAMES:
            raise ValueError(
                f"vec_env: batched supports game {', '.join(BATCHED_GAMES)}, not {self.game!r}"
            )
        if self.vec_env == "batched":  # the options its engine covers (no Numba imported)
            spec = game_spec(self.game)
            spec.load("batched_check")(spec.config_class.from_dict(self.env))
        if self.ppo.magnet_kl > 0 and self.ppo.ent_coef <= 0:
            raise ValueError(
                "ppo.magnet_kl > 0 needs ppo.ent_coef > 0 (the KL term rides on the entropy term; "
                f"brag_env/training/mmd.py), got ent_coef {self.ppo.ent_coef}"
            )
        if self.ppo.magnet_kl > 0 and self.backend != "sb3":
            raise ValueError("ppo.magnet_kl > 0 needs backend: sb3 (rllib has no magnet term)")
        if self.episode == "hand":
            if self.game not in games_with("hand_episodes") or self.env.get("reward") != "points":
                raise ValueError(
                    "episode: hand needs game: put with env.reward: points (the points of each "
                    "hand, paid when it ends; with match rewards a hand earns nothing)"
                )
            if self.backend != "sb3":
                raise ValueError("episode: hand needs backend: sb3 (rllib's envs end at the match)")
        exact = self.game in games_with("exact_solver") and self.env.get("num_players", 2) == 2
        if self.eval.exploitability and not exact:
            raise ValueError("eval.exploitability is exact for heads-up Put only (put, 2 seats)")
        return self

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump()


def check_env_options(game: str, env: dict[str, Any]) -> None:
    """The game's own rules config checks the table options (``env.min_stake must be even``)."""
    rules = game_spec(game).config_class
    try:
        rules.from_dict(env)
    except (ValueError, TypeError) as e:
        message = str(e)
        first = message.split(" ", 1)[0]
        raise ValueError(f"env.{message}" if first in env else f"env: {message}") from None


def rollout_bytes(cfg: TrainConfig) -> int:
    """The size of one rollout buffer of the run: float32 observations and action masks of
    the table ``cfg.env`` plus SB3's per-step floats, for each of ``ppo.n_steps * n_envs``
    steps. (PPO's update copies the buffer once more while flattening it.)"""
    from agents import table_info  # deferred: agents imports the envs

    info = table_info(cfg.game, **cfg.env)
    floats = math.prod(info.observation_shape) + len(info.action_names)
    return cfg.rollout_steps * (floats + ROLLOUT_FLOATS_PER_STEP) * 4


def check_rollout_bytes(cfg: TrainConfig) -> None:
    """Refuse a rollout buffer above ``MAX_ROLLOUT_BYTES`` now, before the run directory is
    written, rather than in an allocation traceback after the first files are."""
    size = rollout_bytes(cfg)
    if size > MAX_ROLLOUT_BYTES:
        raise ValueError(
            f"a rollout buffer of {size / 2**30:,.1f} GiB (ppo.n_steps * n_envs = "
            f"{cfg.rollout_steps:,} steps of the table's observation and action mask) must be "
            f"at most {MAX_ROLLOUT_BYTES // 2**30} GiB: lower ppo.n_steps or n_envs"
        )


def check_opponents(cfg: TrainConfig) -> None:
    """Self-play needs a pool; best-response mode has exactly one opponent, the frozen target,
    so a pool or snapshots that would sit next to it contradict the config."""
    target = cfg.br.target
    if target is None:
        for key, specs in (
            ("pool.opponents", cfg.pool.opponents),
            ("eval.opponents", cfg.eval.opponents),
        ):
            if not specs:
                raise ValueError(f"{key} must name at least one entry, got []")
    else:
        if cfg.pool.opponents not in ([], [target]):
            raise ValueError(
                f"br.target {target!r} is the only opponent of a best response: pool.opponents "
                f"must be [] (or [{target}]), got {cfg.pool.opponents}"
            )
        if cfg.pool.snapshot_every:
            raise ValueError(
                f"br.target plays a frozen target, never the learner's snapshots: "
                f"pool.snapshot_every must be 0, got {cfg.pool.snapshot_every}"
            )
    if cfg.backend == "rllib" and target is not None:
        raise ValueError(
            "br.target needs backend: sb3 (the rllib backend has no best-response mode)"
        )
    if cfg.backend == "rllib" and cfg.br.init is not None:
        raise ValueError("br.init needs backend: sb3 (the rllib backend starts from fresh weights)")
    if cfg.backend == "rllib" and cfg.pool.snapshot_sampling != "uniform":
        raise ValueError(
            "pool.snapshot_sampling: the rllib backend samples snapshots uniformly only, "
            f"got {cfg.pool.snapshot_sampling!r}"
        )


def check_agent_specs(cfg: TrainConfig) -> None:
    """Bad opponent specs fail now, not at the first evaluation minutes into the run."""
    from agents import parse_spec  # deferred: agents imports the envs

    for key, specs in (
        ("pool.opponents", cfg.pool.opponents),
        ("eval.opponents", cfg.eval.opponents),
        ("br.target", [cfg.br.target] if cfg.br.target else []),
    ):
        for spec in specs:
            try:
                parse_spec(spec, cfg.game)
            except ValueError as e:
                raise ValueError(f"{key}: {e}") from None
    if cfg.br.target:  # built once: a model file must exist and fit this game and table
        from agents import make_agent, table_info

        try:
            make_agent(cfg.br.target, table_info(cfg.game, **cfg.env), 0)
        except ValueError as e:
            raise ValueError(f"br.target: {e}") from None


# --- reading a config ---------------------------------------------------------------------------


def load_config(path: str | Path | None, overrides: typing.Sequence[str] = ()) -> TrainConfig:
    """Read a YAML config (``None``: the defaults), apply ``--set`` overrides, validate."""
    raw: dict[str, Any] = {}
    if path is not None:
        raw = read_yaml_mapping(Path(path))
    for item in overrides:
        apply_override(raw, item)
    return config_from_dict(raw)


def read_yaml_mapping(path: Path) -> dict[str, Any]:
    """The top-level mapping of a YAML file; every problem a one-line ``ValueError``."""
    if path.is_dir():
        raise ValueError(f"config {str(path)!r} is a directory, not a YAML file")
    if not path.is_file():
        raise ValueError(f"config file {str(path)!r} does not exist")
    try:
        raw = parse_yaml(read_text_bounded(path, MAX_YAML_BYTES, "config file"), str(path))
    except YAMLError as e:
        where = f"{path}:{e.line}:{e.column}" if e.line is not None else str(path)
        raise ValueError(f"{where}: not valid YAML: {e.problem}") from None
    if raw is None:
        raise ValueError(f"config file {path} is empty; an empty file is not a config")
    if not isinstance(raw, dict):
        raise ValueError(
            f"config file {path} must hold a mapping of keys, not a {type(raw).__name__}"
        )
    return raw


def apply_override(raw: dict[str, Any], item: str) -> None:
    """Apply one ``key=value`` (``a.b=value`` for nested keys) to a raw config dict."""
    key, eq, text = item.partition("=")
    key = key.strip()
    if not eq or not key:
        raise ValueError(f"--set expects key=value, got {quoted(item)}")
    try:
        value = parse_yaml(text, f"--set {key}") if text.strip() else ""
    except YAMLError as e:
        raise ValueError(
            f"--set {key}: value {quoted(text)} is not valid YAML ({e.problem})"
        ) from None
    parts = key.split(".")
    node = raw
    for i, part in enumerate(parts[:-1]):
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ValueError(f"--set {key}: {'.'.join(parts[: i + 1])} is not a section")
        node = child
    node[parts[-1]] = value


def config_from_dict(raw: Any) -> TrainConfig:
    """Validate a raw config; ``ValueError`` with one line naming the first bad key."""
    if not isinstance(raw, dict):
        raise ValueError(f"config must be a mapping of keys, got {quoted(raw)}")
    try:
        return TrainConfig.model_validate(raw)
    except ValidationError as e:  # clipped: a value error of an env option may quote a value
        raise ValueError(clip(explain(e), 4 * MAX_QUOTED_CHARS)) from None
    except RecursionError:
        raise ValueError("config is nested too deeply") from None


def dump_config(cfg: TrainConfig) -> str:
    return yaml.safe_dump(cfg.to_dict(), sort_keys=False)


# --- pydantic's errors as one line in the schema's words ----------------------------------------

_TYPE_ERRORS = {
    "int_type", "int_parsing", "int_from_float", "float_type", "float_parsing", "bool_type",
    "bool_parsing", "string_type", "list_type", "dict_type", "model_type",
    "model_attributes_type", "literal_error", "union_tag_invalid", "finite_number",
}  # fmt: skip
_BOUND_ERRORS = {"greater_than", "greater_than_equal", "less_than", "less_than_equal"}


def explain(error: ValidationError) -> str:
    """The first problem of a ``ValidationError``; unknown keys are reported together."""
    errors = error.errors()
    unknown = [e for e in errors if e["type"] == "extra_forbidden"]
    if unknown:
        keys = [_resolve(e["loc"])[0] for e in unknown]
        section_key, _, _ = keys[0].rpartition(".")
        section = _resolve(unknown[0]["loc"][:-1])[1] if section_key else TrainConfig
        known = ", ".join(section.model_fields) if _is_model(section) else ""
        return (
            f"unknown config key(s): {', '.join(keys)}; "
            f"known keys{' in ' + section_key if section_key else ''}: {known}"
        )
    e = errors[0]
    if e["loc"] and e["loc"][-1] == "[key]":  # a mapping key of the wrong type (env: {1: 2})
        key = _resolve(e["loc"][:-2])[0]
        return f"{key} keys must be strings, got {quoted(e.get('input'))}"
    key, _, meta, field = _resolve(e["loc"])
    kind = e["type"]
    got = e.get("input")
    if kind == "value_error":
        message = str(e["ctx"]["error"]) if "ctx" in e else e["msg"]
        return f"{key} {message}, got {quoted(got)}" if key else message
    if kind in _TYPE_ERRORS:
        return f"{key or 'config'} must be {_describe(*field)}, got {quoted(got)}"
    if kind in _BOUND_ERRORS:
        null = " or null" if _optional(field[0]) else ""
        return f"{key} must be {_bounds(meta)}{null}, got {quoted(got)}"
    if kind == "too_short":
        n = e["ctx"]["min_length"]
        entries = "one entry" if n == 1 else f"{n} entries"
        return f"{key} must name at least {entries}, got {quoted(got)}"
    if kind == "too_long":
        return f"{key} must name at most {e['ctx']['max_length']} entries, got {quoted(got)}"
    if kind == "missing":
        return f"{key} is required"
    return f"{key}: {e['msg']}"


Node = tuple[Any, list[Any]]  # an annotation and its constraints (Ge, Gt, Strict ...)


def _resolve(loc: tuple[Any, ...]) -> tuple[str, Any, list[Any], Node]:
    """Walk an error location through the schema: the dotted key (``pool.opponents[1]``), the
    annotation and constraints there, and those of the enclosing key (for a union's member)."""
    key = ""
    node: Node = (TrainConfig, [])
    field: Node = node
    for part in loc:
        ann, meta = _unwrap(*node)
        if _is_model(ann) and part in ann.model_fields:
            info = ann.model_fields[part]
            key = f"{key}.{part}" if key else str(part)
            node = field = (info.annotation, list(info.metadata))
        elif typing.get_origin(ann) is list and isinstance(part, int):
            key = f"{key}[{part}]"
            node = field = (typing.get_args(ann)[0], [])
        elif _is_union(ann) and isinstance(part, str):  # a tagged branch: descend, same key
            branches = [a for a in typing.get_args(ann) if _tag(a) == part]
            node = (branches[0], []) if branches else (Any, [])
        else:
            key = f"{key}.{part}" if key else str(part)
            node = field = (Any, [])
    ann, meta = _unwrap(*node)
    return key, ann, meta, field


def _unwrap(ann: Any, meta: list[Any]) -> Node:
    """Strip ``Annotated`` layers, collecting their constraints; an Optional keeps its None."""
    meta = list(meta)
    while typing.get_origin(ann) is Annotated:
        ann, *extra = typing.get_args(ann)
        for m in extra:
            meta.extend(m.metadata if isinstance(m, FieldInfo) else [m])
    if _is_union(ann):
        args = [a for a in typing.get_args(ann) if a is not type(None)]
        if len(args) == 1:  # X | None: the constraints are X's
            return _unwrap(args[0], meta)
    return ann, meta


def _tag(ann: Any) -> str | None:
    if typing.get_origin(ann) is Annotated:
        for m in typing.get_args(ann)[1:]:
            if isinstance(m, Tag):
                return m.tag
    return None


def _is_union(ann: Any) -> bool:
    return typing.get_origin(ann) in (typing.Union, types.UnionType)


def _is_model(ann: Any) -> bool:
    return isinstance(ann, type) and issubclass(ann, BaseModel)


def _optional(ann: Any) -> bool:
    return _is_union(ann) and type(None) in typing.get_args(ann)


def _describe(ann: Any, meta: list[Any]) -> str:
    """What a key accepts, in words: ``an integer >= 1``, ``one of tanh, relu``."""
    if _optional(ann):
        return f"{_describe(*_unwrap(ann, meta))} or null"
    ann, meta = _unwrap(ann, meta)
    if _is_union(ann):
        return " or ".join(_describe(*_unwrap(a, [])) for a in typing.get_args(ann))
    origin = typing.get_origin(ann)
    bounds = _bounds(meta)
    if origin is Literal:
        return "one of " + ", ".join(str(a) for a in typing.get_args(ann))
    if origin is list:
        return f"a list ({_describe(typing.get_args(ann)[0], [])} each)"
    if ann is Schedule:
        return "a schedule mapping {schedule: linear or exponential, start: x, end: y}"
    if origin is dict or _is_model(ann):
        return "a mapping"
    if ann is bool:
        return "true or false"
    if ann is str:
        return "a string"
    noun = {int: "an integer", float: "a number"}.get(ann, "a value")
    return f"{noun} {bounds}" if bounds else noun


def _bounds(meta: list[Any]) -> str:
    lo = next(((">=", m.ge) for m in meta if getattr(m, "ge", None) is not None), None)
    lo = lo or next(((">", m.gt) for m in meta if getattr(m, "gt", None) is not None), None)
    hi = next((m.le for m in meta if getattr(m, "le", None) is not None), None)
    if lo and hi is not None and lo[0] == ">=":
        return f"between {_num(lo[1])} and {_num(hi)}"
    parts = [f"{lo[0]} {_num(lo[1])}"] if lo else []
    parts += [f"<= {_num(hi)}"] if hi is not None else []
    return " and ".join(parts)


def _num(x: float) -> str:
    return str(int(x)) if isinstance(x, int) or (math.isfinite(x) and x == int(x)) else str(x)


def schema_rows(model: type[BaseModel] = TrainConfig, prefix: str = "") -> list[tuple[str, ...]]:
    """(key, what it accepts, default, meaning) for every key: the table in docs/training.md."""
    rows: list[tuple[str, ...]] = []
    for name, info in model.model_fields.items():
        ann, _ = _unwrap(info.annotation, list(info.metadata))
        if _is_model(ann) and ann is not Schedule:
            rows += schema_rows(ann, f"{prefix}{name}.")
            continue
        default = info.get_default(call_default_factory=True)
        text = yaml.safe_dump(default, default_flow_style=True).removesuffix("...\n").strip()
        accepts = _describe(info.annotation, list(info.metadata))
        rows.append((prefix + name, accepts, text, info.description or ""))
    return rows


def schema_table() -> str:
    """The Markdown table of every key (``python -m brag_env.training.config`` prints it)."""
    lines = ["| key | accepts | default | meaning |", "|---|---|---|---|"]
    lines += [f"| `{k}` | {a} | `{d}` | {m} |" for k, a, d, m in schema_rows()]
    return "\n".join(lines)


if __name__ == "__main__":
    print(schema_table())
