"""Model files and checkpoints, written atomically.

Both are ordinary Stable-Baselines3 ``MaskablePPO`` zips (``model.save``) plus a JSON entry naming
the game and table options (``brag_env_model.json``), so ``agents`` loads them as agent specs with
its safe loader (``agents/model.py``: nothing is unpickled) and checks the table. A checkpoint
carries a second JSON entry, ``brag_env_training.json``, with what ``--resume`` needs besides the
weights: the steps done, the opponent pool and the evaluation history. Resuming restores weights
and optimizer state with SB3's ``set_parameters``, which reads only the ``*.pth`` entries, with
``torch.load(weights_only=True)``.

Atomic: the zip is built in memory, written to a temporary file in the target directory and renamed
over the target with ``os.replace`` (``brag_env.io.atomic_write_bytes``), so a run killed at any
moment leaves the previous file intact. Read: the zip's directory is checked against the limits of
``brag_env.io`` (entries, uncompressed sizes) before anything is inflated.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import re
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from brag_env.io import (
    MAX_JSON_BYTES,
    FileError,
    atomic_write_bytes,
    check_model_zip,
    loads_bounded,
    quoted,
    read_zip_entry,
)

if TYPE_CHECKING:
    from brag_env.training.config import TrainConfig

__all__ = [
    "atomic_write_bytes",
    "check_state_fits_run",
    "load_parameters",
    "read_training_state",
    "save_model",
]

TRAINING_ENTRY = "brag_env_training.json"


def save_model(
    model: Any,
    path: str | os.PathLike[str],
    game: str,
    env_config: dict[str, Any],
    training_state: dict[str, Any] | None = None,
) -> Path:
    """Save an SB3 model to ``path`` atomically; with ``training_state``, as a checkpoint.

    The zip records the game and table options it was trained with (``agents.model.MODEL_ENTRY``),
    so a model file checks its table wherever it is copied to.
    """
    from agents.model import MODEL_ENTRY

    buffer = io.BytesIO()
    model.save(buffer)
    with zipfile.ZipFile(buffer, mode="a") as archive:
        record = {"game": game, "env_config": dict(env_config)}
        archive.writestr(MODEL_ENTRY, json.dumps(record, sort_keys=True))
        if training_state is not None:
            archive.writestr(TRAINING_ENTRY, json.dumps(training_state, indent=1, sort_keys=True))
    atomic_write_bytes(path, buffer.getvalue())
    return Path(path)


# What SB3's model.save writes for a PPO model, and what set_parameters needs to resume.
CHECKPOINT_ENTRIES = ("data", "policy.pth", "policy.optimizer.pth")


def read_training_state(
    path: str | os.PathLike[str],
    game: str | None = None,
    env_config: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The training state stored in a checkpoint; ``ValueError`` naming the problem if unusable.

    The zip must be intact (every entry's CRC checked), hold SB3's entries and the training state,
    and, given ``game`` / ``env_config``, record that game and those table options: a checkpoint
    of another run would otherwise fail later inside torch with a size mismatch.
    """
    from agents.model import MODEL_ENTRY

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"checkpoint {str(path)!r} does not exist")
    where = f"checkpoint {str(path)!r}"
    try:
        check_model_zip(path, where)  # before testzip inflates every entry
        with zipfile.ZipFile(path) as archive:
            bad = archive.testzip()
            if bad is not None:
                raise ValueError(f"checkpoint {str(path)!r} is corrupt (bad CRC in {bad})")
            names = set(archive.namelist())
            missing = [n for n in (*CHECKPOINT_ENTRIES, MODEL_ENTRY) if n not in names]
            if missing:
                raise ValueError(
                    f"checkpoint {str(path)!r} is corrupt or not written by train.py "
                    f"(missing {', '.join(missing)})"
                )
            if TRAINING_ENTRY not in names:
                raise ValueError(f"{path} is a model, not a checkpoint (no {TRAINING_ENTRY})")
            state = _json_entry(archive, TRAINING_ENTRY, where)
            record = _json_entry(archive, MODEL_ENTRY, where)
    except FileError:
        raise
    except (zipfile.BadZipFile, OSError, EOFError) as e:
        raise ValueError(f"checkpoint {str(path)!r} is corrupt ({e})") from None
    if not isinstance(state, dict) or "num_timesteps" not in state:
        raise ValueError(f"checkpoint {str(path)!r}: {TRAINING_ENTRY} lacks num_timesteps")
    check_training_state(state, f"checkpoint {str(path)!r}: {TRAINING_ENTRY}")
    if not isinstance(record, dict):
        raise ValueError(f"checkpoint {str(path)!r}: {MODEL_ENTRY} is not a mapping")
    if game is not None and record.get("game") != game:
        raise ValueError(
            f"checkpoint {str(path)!r} is from another run: game {record.get('game')!r}, "
            f"the config says {game!r}"
        )
    if env_config is not None and record.get("env_config") != dict(env_config):
        raise ValueError(
            f"checkpoint {str(path)!r} is from another run: table options "
            f"{record.get('env_config')}, the config says {dict(env_config)}"
        )
    return state


# What train.py writes as a snapshot's name: relative to the run directory, inside snapshots/.
SNAPSHOT_NAME = re.compile(r"snapshots/step_[0-9]{9,11}\.zip")
MAX_STATE_ENTRIES = 100_000  # snapshots or evaluations listed in one training state


def check_training_state(state: dict[str, Any], where: str) -> None:
    """The training state's contents, key by key (``ValueError``, one line): whole numbers of
    steps and updates in range, snapshot names as train.py writes them (so a snapshot is always
    loaded from the run's own ``snapshots/``, never ``../`` or an absolute path), evaluations
    as lines of text."""
    from brag_env.training.config import MAX_TIMESTEPS

    for key in ("num_timesteps", "n_updates"):
        value = state.get(key, 0 if key == "n_updates" else None)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TIMESTEPS:
            raise ValueError(
                f"{where}: {key} must be a whole number between 0 and {MAX_TIMESTEPS:,}, "
                f"got {quoted(value)}"
            )
    for key, test, what in (
        (
            "snapshots",
            lambda v: isinstance(v, str) and SNAPSHOT_NAME.fullmatch(v),
            "names snapshots/step_NNNNNNNNN.zip",
        ),
        ("evals", lambda v: isinstance(v, str) and len(v) <= 10_000, "lines of text"),
    ):
        values = state.get(key, [])
        if not isinstance(values, list) or len(values) > MAX_STATE_ENTRIES:
            raise ValueError(f"{where}: {key} must be a list, got {quoted(values)}")
        bad = [v for v in values if not test(v)]
        if bad:
            raise ValueError(f"{where}: {key} must hold {what}, got {quoted(bad[0])}")
    if not isinstance(state.get("config_hash", ""), str):
        raise ValueError(f"{where}: config_hash must be text, got {quoted(state['config_hash'])}")


def check_state_fits_run(
    state: dict[str, Any], cfg: TrainConfig, run_dir: Path, where: str
) -> None:
    """A checked training state (``check_training_state``) against the run it resumes
    (``cfg``: its ``TrainConfig``): the steps done are whole rollouts (every checkpoint is taken
    between two) and within the run's steps, the snapshots are at most ``pool.max_snapshots``
    distinct files that exist in ``run_dir``. Called before a resume prints or writes anything;
    ``ValueError``, one line."""
    done, rollout = state["num_timesteps"], cfg.rollout_steps
    total = cfg.num_iterations * rollout  # total_timesteps rounded up to whole rollouts
    if done > total:
        raise ValueError(
            f"{where}: num_timesteps {done:,} is beyond the run's {total:,} steps "
            f"(total_timesteps {cfg.total_timesteps:,} in whole rollouts)"
        )
    if done % rollout:
        raise ValueError(
            f"{where}: num_timesteps {done:,} is not a whole number of rollouts "
            f"(ppo.n_steps * n_envs = {rollout:,})"
        )
    names = state.get("snapshots", [])
    if len(names) > cfg.pool.max_snapshots:
        raise ValueError(
            f"{where}: snapshots lists {len(names):,} files, more than pool.max_snapshots "
            f"({cfg.pool.max_snapshots})"
        )
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ValueError(f"{where}: snapshots lists {name} twice")
        seen.add(name)
        if not (run_dir / name).is_file():
            raise ValueError(f"{where}: snapshot {run_dir / name} does not exist")


def _json_entry(archive: zipfile.ZipFile, name: str, where: str) -> Any:
    data = read_zip_entry(archive, name, where, MAX_JSON_BYTES)
    return loads_bounded(data, f"{where} entry {name!r}")


def load_parameters(model: Any, path: str | os.PathLike[str]) -> None:
    """Weights and optimizer state from a checkpoint into ``model`` (SB3's ``set_parameters``,
    which reads the ``*.pth`` entries with ``torch.load(weights_only=True)``); any failure is a
    ``ValueError`` (a damaged file, or a network of another shape)."""
    try:
        check_model_zip(path, f"checkpoint {str(path)!r}")
        model.set_parameters(str(path), exact_match=True, device="cpu")
    except FileError:
        raise
    except pickle.UnpicklingError:  # torch's message would suggest weights_only=False: no
        reason = "its *.pth entries are damaged or hold more than tensors (weights_only refused)"
    except Exception as e:  # torch and zipfile raise many types; the caller wants one line
        reason = " ".join(str(e).split())[:200] or type(e).__name__
    else:
        return
    raise ValueError(f"checkpoint {str(path)!r} is corrupt or from another run: {reason}")
