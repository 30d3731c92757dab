"""Trained-model agents: a MaskablePPO ``.zip`` saved by ``train.py``, loaded without unpickling.

An SB3 ``.zip`` holds ``data`` (JSON; entries that were not JSON-serialisable are cloudpickled,
base64-encoded, inside it: the spaces, the policy class, schedules, buffers) and ``*.pth`` files
(torch's format). Unpickling ``data`` could run arbitrary code, so ``load_policy`` never does:
it rebuilds what the policy needs (the spaces, the policy class and its keyword arguments) from
the plain-JSON summary SB3 stores next to each pickle (shapes, sizes, names), accepting only
whitelisted classes (the MaskablePPO MLP policy, common torch activations and optimizers), builds
the policy network and loads ``policy.pth`` into it with ``torch.load(weights_only=True)``.
Nothing else is read: no optimizer state, no rollout data, so an exported model
(``brag_env.training.export``: the policy weights and the table record only) loads like a full
``model.zip`` or checkpoint.

A model is tied to the table options it was trained with, not only to the observation size: the
observation divides chips by ``starting_chips`` and the stake by ``max_stake``, counts hands in
``hands_per_session`` and so on, so a model trained with ``max_stake=32`` misreads a table with
``max_stake=64`` although the shapes agree. ``ModelAgent.bind`` therefore compares the training
options (``trained_env``) with the table's and refuses a model whose observation or actions
would mean something else (``OBSERVATION_OPTIONS``); other rule differences only warn.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import math
import pickle
import warnings
import zipfile
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from agents.base import Agent, TableInfo
from brag_env.extras import require
from brag_env.games import GAMES, game_spec
from brag_env.io import (
    MAX_JSON_BYTES,
    FileError,
    check_model_zip,
    check_zip,
    load_yaml,
    loads_bounded,
    quoted,
    read_zip_entry,
)

# What a model file may declare, checked before a network is built from it (its first layer
# is observation size x width floats). The tables here: observations of a few hundred floats,
# at most a few dozen actions, layers of 64-256.
MAX_OBSERVATION_SIZE = 2**16
MAX_ACTIONS = 2**12
MAX_LAYER, MAX_LAYERS = 8192, 16

_POLICY_MODULE = "sb3_contrib.common.maskable.policies"
_POLICY_CLASS = "MaskableActorCriticPolicy"
_ACTIVATIONS = ("Tanh", "ReLU", "LeakyReLU", "ELU", "GELU", "SiLU", "Sigmoid", "Softplus")
_OPTIMIZERS = ("Adam", "AdamW", "SGD", "RMSprop")
_PLAIN_POLICY_KWARGS = {
    "net_arch",
    "ortho_init",
    "log_std_init",
    "normalize_images",
    "share_features_extractor",
    "optimizer_kwargs",
}


#: The JSON entry, inside a model .zip, naming the game and table options it was trained with:
#: ``{"game": "brag", "env_config": {...}}`` (``env_config`` as given to ``brag_v1.env``).
MODEL_ENTRY = "brag_env_model.json"
#: Table options that change what the observation's numbers or the action ids mean, per game
#: (each game's ``model_options`` in brag_env/games.py).
OBSERVATION_OPTIONS: dict[str, tuple[str, ...]] = {
    name: spec.model_options for name, spec in GAMES.items()
}


@dataclass(frozen=True)
class TrainedEnv:
    """The game and table options a model was trained with, and where they were read."""

    game: str
    options: dict[str, Any]
    source: str


@dataclass(frozen=True)
class SavedModelInfo:
    """What a saved model expects: a flat observation shape and a number of actions."""

    path: str
    observation_shape: tuple[int, ...]
    num_actions: int
    num_timesteps: int
    trained_env: TrainedEnv | None = None


def _fail(path: str | Path, why: str) -> ValueError:
    return ValueError(f"cannot load model {str(path)!r}: {why}")


def _read_data(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise _fail(path, "no such file")
    if not zipfile.is_zipfile(path):
        raise _fail(path, "not a zip archive (expected a model.zip saved by train.py)")
    try:
        # Limits first (entries, inflated sizes, also inside the *.pth zips), from the
        # directories: SB3 and torch would inflate whatever the file holds.
        check_model_zip(path, "its zip")
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            if "data" not in names or "policy.pth" not in names:
                raise _fail(path, "the archive lacks 'data' or 'policy.pth': not an SB3 model")
            raw = read_zip_entry(archive, "data", "its zip", MAX_JSON_BYTES)
        data = loads_bounded(raw, "its 'data' entry")
    except FileError as e:
        raise _fail(path, str(e)) from None
    except (zipfile.BadZipFile, OSError, EOFError) as e:
        raise _fail(path, f"corrupt archive ({e})") from None
    if not isinstance(data, dict):
        raise _fail(path, "its 'data' entry is not a JSON object")
    return data


def _summary(entry: Any) -> dict[str, Any] | None:
    """The JSON summary SB3 writes beside a pickled entry, or None if the entry is plain JSON."""
    if isinstance(entry, dict) and ":serialized:" in entry:
        return entry
    return None


def _as_list(value: Any) -> list[Any]:
    """A recorded shape as a list of its entries, unconverted (they are checked by the caller:
    ``int()`` would make a shape of 220.5 one of 220)."""
    if isinstance(value, str):  # SB3 str()-ed it
        text = value.replace("(", "[").replace(")", "]").replace(",]", "]")
        value = loads_bounded(text, "a shape")
    return list(value)


def _whole(value: Any) -> int:
    """A count as SB3 records one (a JSON integer, or its decimal text such as ``"8"``);
    ``ValueError`` for anything else (``8.5``, ``true``, ``"8.0"``), never truncated."""
    if type(value) is int:
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    raise ValueError(f"not a whole number: {quoted(value)}")


def _class_name(text: Any) -> str:
    """``"<class 'torch.nn.ReLU'>"`` -> ``"torch.nn.ReLU"``."""
    text = str(text)
    if text.startswith("<class '") and text.endswith("'>"):
        return text[len("<class '") : -2]
    return text


def _env_record(path: Path, record: Any, source: str) -> TrainedEnv:
    if not isinstance(record, dict):
        raise _fail(path, f"{source} is not a mapping")
    game, options = record.get("game"), record.get("env_config", record.get("env", {}))
    if game not in OBSERVATION_OPTIONS:
        raise _fail(path, f"{source} names no known game (got {game!r})")
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise _fail(path, f"the table options in {source} are not a mapping")
    return TrainedEnv(str(game), dict(options), source)


def trained_env(path: str | Path) -> TrainedEnv | None:
    """The game and options a model was trained with, or None if nothing records them.

    Read from the zip's ``MODEL_ENTRY``, else from the ``config.yaml`` that ``train.py`` writes
    in the run directory (beside ``model.zip``, or one level up for ``snapshots/*.zip``).
    """
    path = Path(path)
    if not path.is_file():
        raise _fail(path, "no such file")
    try:
        with zipfile.ZipFile(path) as archive:
            if MODEL_ENTRY in archive.namelist():
                check_zip(archive, "its zip")
                raw = read_zip_entry(archive, MODEL_ENTRY, "its zip", MAX_JSON_BYTES)
                record = loads_bounded(raw, f"its {MODEL_ENTRY} entry")
                return _env_record(path, record, f"its {MODEL_ENTRY} entry")
    except FileError as e:
        raise _fail(path, str(e)) from None
    except (zipfile.BadZipFile, OSError, EOFError) as e:
        raise _fail(path, f"unreadable {MODEL_ENTRY} entry ({e})") from None
    folders = [path.parent] + ([path.parent.parent] if path.parent.name == "snapshots" else [])
    for folder in folders:
        config = folder / "config.yaml"
        if config.is_file():
            try:
                record = load_yaml(config)
            except FileError as e:
                raise _fail(path, f"the run's config: {e}") from None
            return _env_record(path, record, str(config))
    return None


#: The options that change the observation's layout (not only what its numbers mean): a table
#: gets a model's recorded value when the user does not set it (``with_model_observation``).
LAYOUT_OPTIONS = ("perfect_recall",)


def with_model_observation(game: str, specs: Any, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with each ``LAYOUT_OPTIONS`` value the model specs among ``specs`` record
    (``perfect_recall: true`` for a model trained on the event history), so evaluate.py, play
    and the exact measure give such a model the observation it was trained on. A value the
    user set is kept (the model's ``check_table`` then refuses a mismatch in one line); models
    recording different values cannot share a table: ``ValueError``. Older records without
    the option mean its default."""
    from agents.registry import parse_spec

    out = dict(options)
    for key in LAYOUT_OPTIONS:
        if key in options:
            continue
        recorded: dict[str, Any] = {}
        for spec in dict.fromkeys(specs):
            parsed = parse_spec(spec, game)
            if parsed.kind != "model" or parsed.path is None:
                continue
            trained = trained_env(parsed.path)
            if trained is not None and trained.game == game:
                recorded[parsed.label] = trained.options.get(key, False)
        values = set(recorded.values())
        if len(values) > 1:
            listed = ", ".join(f"{name} ({key}={value!r})" for name, value in recorded.items())
            raise ValueError(
                f"models read different observations and cannot share a table: {listed}"
            )
        if values and values != {False}:
            out[key] = values.pop()
    return out


def training_config(info: SavedModelInfo, config_type: Any) -> dict[str, Any]:
    """Every table option (``config_type(...).to_dict()``) the model was trained with;
    ``ValueError`` when its record holds bad ones (``info.trained_env`` must be set)."""
    trained = info.trained_env
    assert trained is not None
    options = dict(trained.options)
    try:
        for flag in game_spec(trained.game).action_flags:
            if flag not in options:
                # Records written before the env version that added the flag (and runs on its
                # defaults) do not name it: the model's action count tells whether it had the
                # flag's action (Brag's B16 cover, from brag_v1).
                with_flag = config_type.from_dict({**options, flag: True})
                options[flag] = info.num_actions == with_flag.num_actions
        return dict(config_type.from_dict(options).to_dict())
    except (TypeError, ValueError) as e:
        raise ValueError(
            f"model {info.path!r}: bad table options in {trained.source}: {e}"
        ) from None


def check_table(info: SavedModelInfo, table: TableInfo) -> None:
    """Refuse a table whose observation or actions mean something else than in training.

    ``ValueError`` for another game or an ``OBSERVATION_OPTIONS`` difference; a warning when no
    training options are recorded or other rules differ (the model still reads the table right).
    """
    trained = info.trained_env
    where = f"model {info.path!r}"
    if trained is None:
        warnings.warn(
            f"{where} does not record the table options it was trained with (no {MODEL_ENTRY} "
            "entry, no config.yaml beside it): only the observation and action sizes are checked",
            stacklevel=3,
        )
        return
    if trained.game != table.game:
        raise ValueError(
            f"{where} was trained for {trained.game} (per {trained.source}), not {table.game}"
        )
    if table.config is None or not hasattr(table.config, "to_dict"):
        return
    config = training_config(info, type(table.config))
    now = table.config.to_dict()
    keys = OBSERVATION_OPTIONS[table.game]
    bad = [f"{k}={config[k]!r} in training, {now[k]!r} here" for k in keys if config[k] != now[k]]
    if bad:
        raise ValueError(
            f"{where} was trained with other table options (per {trained.source}): "
            + "; ".join(bad)
            + ": its observations would mean something else; evaluate it with the training options"
        )
    other = [k for k in now if k not in keys and k != "reward" and config.get(k) != now[k]]
    if other:
        diff = ", ".join(f"{k}={config.get(k)!r} in training, {now[k]!r} here" for k in other)
        warnings.warn(f"{where} was trained under other rules: {diff}", stacklevel=3)


def _safe_objects(path: Path, data: dict[str, Any]) -> tuple[dict[str, Any], SavedModelInfo]:
    """What the policy is built from (spaces, policy class and kwargs), rebuilt from the JSON
    summaries of ``data``, and the model's expected shapes."""
    import gymnasium as gym
    import torch

    obs_entry = _summary(data.get("observation_space"))
    act_entry = _summary(data.get("action_space"))
    if obs_entry is None or act_entry is None:
        raise _fail(path, "it does not record its observation and action spaces")
    if "box.Box" not in obs_entry.get(":type:", ""):
        raise _fail(
            path, f"unsupported observation space {obs_entry.get(':type:')}, expected a Box"
        )
    if "discrete.Discrete" not in act_entry.get(":type:", ""):
        raise _fail(path, f"unsupported action space {act_entry.get(':type:')}, expected Discrete")
    try:
        shape = tuple(_as_list(obs_entry["_shape"]))
        num_actions = _whole(act_entry["n"])
    except (KeyError, TypeError, ValueError):  # FileError is a ValueError
        raise _fail(path, "its observation/action space records are unreadable") from None
    # Checked before a network is built on them: a huge shape would allocate gigabytes, and a
    # fraction is refused rather than truncated to another size.
    size = shape[0] if len(shape) == 1 else None
    if type(size) is not int or not 1 <= size <= MAX_OBSERVATION_SIZE:
        raise _fail(
            path,
            f"its observation shape {quoted(shape)} is not one size between 1 and "
            f"{MAX_OBSERVATION_SIZE:,}: refused",
        )
    if not 1 <= num_actions <= MAX_ACTIONS:
        raise _fail(path, f"its {num_actions:,} actions are not between 1 and {MAX_ACTIONS:,}")

    policy_entry = _summary(data.get("policy_class"))
    init_text = str((policy_entry or {}).get("__init__", ""))
    if (
        policy_entry is None
        or policy_entry.get("__module__") != _POLICY_MODULE
        or f"{_POLICY_CLASS}.__init__" not in init_text
    ):
        raise _fail(path, "not a MaskablePPO MLP policy (MaskablePPO('MlpPolicy', ...))")

    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    custom: dict[str, Any] = {
        "observation_space": gym.spaces.Box(-np.inf, np.inf, shape, np.float32),
        "action_space": gym.spaces.Discrete(num_actions),
        "policy_class": MaskableActorCriticPolicy,
    }
    kwargs_entry = data.get("policy_kwargs")
    if isinstance(kwargs_entry, dict):  # pickled (with a JSON summary) or plain JSON: both checked
        custom["policy_kwargs"] = _policy_kwargs(path, kwargs_entry, torch)
    elif kwargs_entry is not None:
        raise _fail(path, "its policy_kwargs entry is not a mapping")
    # Everything else (schedules, buffers of the last rollout, episode info) is never read.
    info = SavedModelInfo(str(path), shape, num_actions, int(data.get("num_timesteps", 0) or 0))
    return custom, info


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _layer_sizes(value: Any) -> bool:
    return (
        isinstance(value, list)
        and len(value) <= MAX_LAYERS
        and all(
            isinstance(v, int) and not isinstance(v, bool) and 0 < v <= MAX_LAYER for v in value
        )
    )


def _plain_value_ok(key: str, value: Any) -> bool:
    """Whether a plain policy_kwargs value has the one form SB3's MLP policy takes for it."""
    if key == "net_arch":
        if isinstance(value, dict):
            return set(value) <= {"pi", "vf"} and all(map(_layer_sizes, value.values()))
        return _layer_sizes(value)
    if key == "log_std_init":
        return _is_number(value)
    if key == "optimizer_kwargs":
        return value is None or (
            isinstance(value, dict)
            and all(
                isinstance(k, str)
                and (_is_number(v) or isinstance(v, bool) or v is None or _layer_list(v))
                for k, v in value.items()
            )
        )
    return isinstance(value, bool)  # ortho_init, normalize_images, share_features_extractor


def _layer_list(value: Any) -> bool:
    return isinstance(value, list) and all(_is_number(v) for v in value)


def _policy_kwargs(path: Path, entry: dict[str, Any], torch: Any) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    for key, value in entry.items():
        if key.startswith(":"):
            continue
        if key in _PLAIN_POLICY_KWARGS:
            if not _plain_value_ok(key, value):  # e.g. a str()-ed value: not recoverable safely
                raise _fail(path, f"policy_kwargs[{key!r}] is not plain JSON of the expected form")
            kwargs[key] = value
        elif key == "activation_fn":
            kwargs[key] = _torch_class(path, key, value, torch.nn, _ACTIVATIONS)
        elif key == "optimizer_class":
            kwargs[key] = _torch_class(path, key, value, torch.optim, _OPTIMIZERS)
        else:
            raise _fail(path, f"unsupported policy_kwargs entry {key!r}")
    return kwargs


def _torch_class(path: Path, key: str, value: Any, module: Any, allowed: tuple[str, ...]) -> Any:
    """The class of ``module`` (torch.nn or torch.optim) that a saved entry names, if it is one
    of ``allowed``; anything else (another module, an unknown class) is refused."""
    name = _class_name(value)
    short = name.rsplit(".", 1)[-1]
    if not name.startswith(module.__name__ + ".") or short not in allowed:
        raise _fail(path, f"unsupported {key} {name}")
    return getattr(module, short)


def load_policy(path: str | Path) -> tuple[Any, SavedModelInfo]:
    """Load the policy network of a MaskablePPO ``.zip`` on the CPU, without unpickling anything.

    Returns ``(policy, info)``. Raises ``ValueError`` with one line naming the problem for a
    missing, corrupt or unsupported file. Loads are cached by path, size and modification time
    (the policy is only read, so agents may share it); a rewritten file is loaded again.
    """
    path = Path(path)
    try:
        stat = path.stat()
    except OSError:
        raise _fail(path, "no such file") from None
    require("train", "a trained model", "torch", "sb3_contrib")  # one line if they are missing
    policy, info = _load_cached(str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    # Read every time: the run's config.yaml is not part of the cache key.
    return policy, dataclasses.replace(info, path=str(path), trained_env=trained_env(path))


@functools.lru_cache(maxsize=16)
def _load_cached(path_text: str, size: int, mtime_ns: int) -> tuple[Any, SavedModelInfo]:
    path = Path(path_text)
    data = _read_data(path)
    custom, info = _safe_objects(path, data)
    return _build_policy(path, custom), info


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return f"{type(error).__name__}: {text.splitlines()[0] if text else ''}".rstrip(": ")


def _build_policy(path: Path, custom: dict[str, Any]) -> Any:
    """The policy network from ``custom`` (spaces, policy kwargs) and the ``policy.pth`` weights.

    Built directly rather than through ``MaskablePPO.load``: only the policy's weights are read
    (``torch.load(weights_only=True)``), so a model file without optimizer state (an exported
    model, ``brag_env.training.export``) loads like a full one, and every weight must fit.
    """
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    try:
        with zipfile.ZipFile(path) as archive:
            raw = read_zip_entry(archive, "policy.pth", "its zip")
        state = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except FileError as e:
        raise _fail(path, str(e)) from None
    except pickle.UnpicklingError:  # torch's message would advise weights_only=False: never
        why = "its policy.pth holds more than tensors (pickled Python objects): refused unread"
        raise _fail(path, why) from None
    except Exception as e:  # torch raises many types for a damaged file; report one line
        raise _fail(path, f"its policy.pth: {_first_line(e)}") from None
    if not isinstance(state, dict):
        raise _fail(path, "its policy.pth is not a state dict")
    for name, tensor in state.items():  # NaN weights would play, silently, a broken policy
        floating = isinstance(tensor, torch.Tensor) and tensor.is_floating_point()
        if floating and not bool(torch.isfinite(tensor).all()):
            raise _fail(path, f"its weight {quoted(name)} holds NaN or infinite values")
    try:
        # Building the layers draws their initial weights from torch's global stream, which a
        # training run samples its actions from: a model loaded mid-run (an evaluation, a
        # snapshot joining the pool) would change what the run trains. The weights are
        # overwritten anyway, so the stream is put back as it was.
        with torch.random.fork_rng(devices=[]):
            policy = MaskableActorCriticPolicy(
                custom["observation_space"],
                custom["action_space"],
                lambda _: 0.0,  # the learning rate: only the (unused) optimizer reads it
                **custom.get("policy_kwargs", {}),
            )
        policy.load_state_dict(state, strict=True)
    except Exception as e:  # e.g. weights of another shape than the recorded network
        raise _fail(path, f"its weights do not fit its policy: {_first_line(e)}") from None
    policy.set_training_mode(False)
    return policy


def _numpy_actor(policy: Any) -> list[tuple[str, Any, Any]] | None:
    """The actor network as float32 numpy layers, or None if it holds anything but Linear +
    activations.

    A forward pass through torch costs ~0.5 ms per decision for these tiny MLPs; numpy takes a
    few microseconds, which keeps evaluations of 20,000 hands fast. float32, as torch computes.
    """
    from stable_baselines3.common.torch_layers import FlattenExtractor
    from torch import nn

    if not isinstance(policy.pi_features_extractor, FlattenExtractor):
        return None
    layers: list[tuple[str, Any, Any]] = []
    for module in [*policy.mlp_extractor.policy_net, policy.action_net]:
        if isinstance(module, nn.Linear):
            weight = np.ascontiguousarray(module.weight.detach().numpy().astype(np.float32).T)
            bias = module.bias.detach().numpy().astype(np.float32).copy()
            layers.append(("linear", weight, bias))
        elif isinstance(module, nn.LeakyReLU):
            layers.append(("leaky_relu", np.float32(module.negative_slope), None))
        elif type(module) in (nn.Tanh, nn.ReLU, nn.Sigmoid):
            layers.append((type(module).__name__.lower(), None, None))
        else:
            return None
    return layers


def _forward(layers: list[tuple[str, Any, Any]], x: np.ndarray) -> np.ndarray:
    """Logits for one observation (1-D) or a batch (rows); float32 in, float32 out."""
    for kind, a, b in layers:
        if kind == "linear":
            x = x @ a
            x += b
        elif kind == "tanh":
            np.tanh(x, out=x)
        elif kind == "relu":
            np.maximum(x, 0.0, out=x)
        elif kind == "leaky_relu":
            x = np.where(x > 0, x, a * x)
        else:  # sigmoid
            x = 1.0 / (1.0 + np.exp(-x))
    return x


class ModelAgent(Agent):
    """A trained MaskablePPO policy (spec: a path to its ``.zip``).

    Parameters: ``deterministic`` (default false) plays the most probable legal action instead of
    sampling from the policy's distribution (samples use the agent's seeded generator).
    The model must have been trained on this game's flat observation vector with the table
    options that shape the observation (``check_table``, when the agent sits down).
    """

    reads_file: ClassVar[bool] = True

    DEFAULTS: ClassVar[dict[str, Any]] = {"deterministic": False}

    def __init__(
        self,
        path: str | Path,
        seed: int | np.random.Generator | None = None,
        name: str = "",
        deterministic: bool = False,
    ) -> None:
        super().__init__(seed, name or str(path))
        self.policy, self.info = load_policy(path)
        self.deterministic = bool(deterministic)
        self._layers = _numpy_actor(self.policy)

    def bind(self, table: TableInfo) -> None:
        super().bind(table)
        check_table(self.info, table)
        if tuple(table.observation_shape) != self.info.observation_shape:
            raise ValueError(
                f"model {self.info.path!r} expects observations of shape "
                f"{self.info.observation_shape}, but this {table.game} table gives "
                f"{tuple(table.observation_shape)}: wrong game or different table options"
            )
        if table.num_actions != self.info.num_actions:
            raise ValueError(
                f"model {self.info.path!r} has {self.info.num_actions} actions, but this "
                f"{table.game} table has {table.num_actions}: wrong game or different options"
            )

    def action_probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The policy's distribution over actions, zero on illegal ones."""
        mask = np.asarray(action_mask, dtype=bool).reshape(-1)
        if self._layers is not None:
            obs = np.asarray(observation, dtype=np.float32).reshape(-1)
            logits = _forward(self._layers, obs).astype(np.float64)
            logits[~mask] = -np.inf
            probs = np.exp(logits - logits.max())
        else:
            import torch

            obs = torch.as_tensor(np.asarray(observation, dtype=np.float32).reshape(1, -1))
            with torch.inference_mode():
                dist = self.policy.get_distribution(obs, action_masks=mask.reshape(1, -1))
                probs = dist.distribution.probs[0].numpy().astype(np.float64)
            probs[~mask] = 0.0
        total = probs.sum()
        if not total > 0:  # every legal action underflowed: fall back to uniform legal play
            probs = mask.astype(np.float64)
            total = probs.sum()
        return probs / total

    @property
    def first_layer(self) -> tuple[np.ndarray, np.ndarray] | None:
        """The actor's first linear layer in numpy, ``(weight, bias)`` with ``weight`` of shape
        (observation size, hidden), or None without the numpy actor. A caller whose batch rows
        share most of their observation (``brag_env.exploiters.lbr``) computes
        ``observation @ weight + bias`` in parts and passes it as ``first_layer_output``."""
        if self._layers is None or self._layers[0][0] != "linear":
            return None
        return self._layers[0][1], self._layers[0][2]

    def action_probabilities_batch(
        self,
        observations: np.ndarray | None,
        masks: np.ndarray,
        first_layer_output: np.ndarray | None = None,
    ) -> np.ndarray:
        """``action_probabilities`` for every row, in one forward pass: (k, A), zero on illegal
        actions. ``first_layer_output`` (k, hidden), if given, stands for ``observations @
        weight + bias`` of ``first_layer`` (``observations`` is then not read)."""
        masks = np.asarray(masks, dtype=bool)
        if first_layer_output is not None:
            if self.first_layer is None:
                raise ValueError("this model has no numpy first layer to start after")
            logits = _forward(self._layers[1:], np.asarray(first_layer_output, np.float32))
        elif self._layers is not None:
            logits = _forward(self._layers, np.asarray(observations, dtype=np.float32))
        else:
            return np.array(
                [self.action_probabilities(o, m) for o, m in zip(observations, masks, strict=True)]
            )
        logits = np.where(masks, logits.astype(np.float64), -np.inf)
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        total = probs.sum(axis=1, keepdims=True)
        under = ~(total[:, 0] > 0)  # every legal action underflowed: uniform legal play
        probs[under] = masks[under]
        total[under] = masks[under].sum(axis=1, keepdims=True)
        return probs / total

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if self._layers is None:
            return self._act_torch(observation, action_mask)
        # Past the forward pass, Python floats on ~30 logits beat a dozen tiny numpy calls.
        obs = np.asarray(observation, dtype=np.float32).reshape(-1)
        logits = _forward(self._layers, obs).tolist()
        legal = [i for i, v in enumerate(np.asarray(action_mask).tolist()) if v]
        if not legal:
            raise ValueError("the action mask allows no action")
        top = max(logits[i] for i in legal)
        if self.deterministic:
            return next(i for i in legal if logits[i] == top)
        cumulative = list(accumulate(math.exp(logits[i] - top) for i in legal))
        pick = bisect_right(cumulative, self.rng.random() * cumulative[-1])
        return legal[min(pick, len(legal) - 1)]

    def _act_torch(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        probs = self.action_probabilities(observation, action_mask)
        if self.deterministic:
            return int(np.argmax(probs))
        legal = np.flatnonzero(probs)
        cumulative = np.cumsum(probs[legal])
        pick = int(np.searchsorted(cumulative, self.rng.random() * cumulative[-1], side="right"))
        return int(legal[min(pick, legal.size - 1)])

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, rows: np.ndarray
    ) -> np.ndarray:
        """One action per row of ``observations`` (one forward pass for all of them).

        ``rows`` (the tables' ids) is unused: a snapshot keeps no per-table state. Samples use
        ``self.rng`` (one uniform per row), so a seeded agent repeats its batch choices.
        """
        masks = np.asarray(masks, dtype=bool)
        if self._layers is None:
            return np.array(
                [self.act(o, m) for o, m in zip(observations, masks, strict=True)], np.int64
            )
        logits = _forward(self._layers, np.asarray(observations, dtype=np.float32))
        logits = logits.astype(np.float64)
        logits[~masks] = -np.inf
        probs = np.exp(logits - logits.max(axis=1, keepdims=True))
        if self.deterministic:
            return probs.argmax(axis=1)
        cumulative = np.cumsum(probs, axis=1)
        target = self.rng.random(len(probs)) * cumulative[:, -1]
        pick = (cumulative <= target[:, None]).sum(axis=1)
        # rounding can push the pick past the last legal action: take the last legal one then
        last_legal = masks.shape[1] - 1 - masks[:, ::-1].argmax(axis=1)
        return np.minimum(pick, last_legal)

    def reset_rows(self, rows: np.ndarray) -> None:
        """Nothing to forget per table (see ``act_batch``)."""
