"""Export a trained model for shipping: its policy weights and its record, nothing else.

    python -m brag_env.training.export runs/brag_headsup_ppo/model.zip models/brag_headsup.zip
    python -m brag_env.training.export --info models/brag_headsup.zip
    python -m brag_env.training.export --info models/brag_headsup.zip --write-config run.yaml

A model written by ``train.py`` is a full SB3 zip: the policy, the optimizer's state (Adam's
moment estimates, as large as the network twice over), the last rollout's observations and the
episode statistics, pickled. The exported file keeps three entries:

- ``policy.pth``: the policy's weights, byte for byte as the source holds them;
- ``data``: the JSON summaries the loader builds the network from (observation and action
  spaces, policy class, ``policy_kwargs``) and the step count; every pickled payload is emptied,
  so the file holds no pickle at all;
- ``brag_env_model.json``: the game and table options (what ``agents.model.check_table``
  compares with the table) and an ``export`` record: the source run's whole config, its seed,
  the steps trained, the command that reproduces the run, the git commit of the brag-env code
  at export time (and whether it had uncommitted changes: export right after training, from
  the same checkout), the library versions, and the source file's SHA-256.

The file is loaded back and its action probabilities compared with the source's before it is
written (atomically; an existing file only with ``--force``); it must stay under
``MAX_EXPORT_BYTES``. ``agents.model`` loads it like any model: a path, or ``model:NAME`` for
``models/NAME.zip`` (``models/README.md``). Exit status 0, or 2 with one line on stderr.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import subprocess
import sys
import tempfile
import zipfile
from importlib import metadata
from pathlib import Path
from typing import Any

from brag_env.io import (
    MAX_JSON_BYTES,
    FileError,
    check_model_zip,
    check_writable,
    loads_bounded,
    one_line_of,
    read_zip_entry,
    write_output,
)
from brag_env.resources import shipped_dir
from brag_env.ui.cli import OneLineParser, quiet_on_closed_pipe

#: The largest exported file accepted: a shipped model should be a few MB at most.
MAX_EXPORT_BYTES = 5 * 2**20
#: The ``data`` entries the loader needs (``agents.model._safe_objects``); the rest is dropped.
KEPT_DATA = ("policy_class", "observation_space", "action_space", "policy_kwargs", "num_timesteps")
#: The version of the export record's layout.
EXPORT_FORMAT = 1
REPO = Path(__file__).resolve().parents[2]
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed entry dates: the same source exports to the same bytes
_PROG = "python -m brag_env.training.export"


def _fail(path: str | Path, why: str) -> ValueError:
    return ValueError(f"cannot export {str(path)!r}: {why}")


def _run_config_path(source: Path) -> Path | None:
    """The ``config.yaml`` train.py wrote beside ``model.zip`` (one level up for snapshots)."""
    folders = [source.parent]
    if source.parent.name == "snapshots":
        folders.append(source.parent.parent)
    return next((f / "config.yaml" for f in folders if (f / "config.yaml").is_file()), None)


def _read_json_entry(path: Path, name: str) -> Any:
    """A JSON entry of a model zip, bounded; None if the zip has no such entry."""
    try:
        check_model_zip(path, "its zip")
        with zipfile.ZipFile(path) as archive:
            if name not in archive.namelist():
                return None
            return loads_bounded(read_zip_entry(archive, name, "its zip", MAX_JSON_BYTES), name)
    except FileError as e:
        raise ValueError(f"cannot read model {str(path)!r}: {e}") from None
    except (zipfile.BadZipFile, OSError, EOFError) as e:
        raise ValueError(f"cannot read model {str(path)!r}: corrupt archive ({e})") from None


def _training_record(source: Path, game: str, env_config: dict[str, Any]) -> dict[str, Any]:
    """The source run's config (validated) and where it was read; an exported source's record
    is carried over as it is."""
    from agents.model import MODEL_ENTRY
    from brag_env.training.config import load_config

    previous = _read_json_entry(source, MODEL_ENTRY)
    if isinstance(previous, dict) and isinstance(previous.get("export"), dict):
        return dict(previous["export"])
    config_path = _run_config_path(source)
    if config_path is None:
        raise _fail(
            source,
            "no config.yaml of its run beside it (or one folder up for snapshots): "
            "the record of how to reproduce it would be missing",
        )
    try:
        cfg = load_config(config_path)
    except ValueError as e:
        raise _fail(source, f"its run's {config_path}: {e}") from None
    if cfg.game != game or dict(cfg.env) != dict(env_config):
        raise _fail(
            source,
            f"{config_path} is not the config of this model (its game or table options differ "
            "from the ones the model records)",
        )
    config = cfg.to_dict()
    return {
        "config": config,
        "seed": cfg.seed,
        "total_timesteps": config.get("total_timesteps"),
        "run_file": _run_file(source),
        "command": _reproduce_command(cfg),
    }


def _run_file(source: Path) -> str:
    """Which file of the run this is: ``model.zip``, ``snapshots/<name>``, ..."""
    if source.parent.name == "snapshots":
        return f"snapshots/{source.name}"
    return source.name


def _reproduce_command(cfg: Any) -> str | None:
    """``python train.py --config configs/X.yaml --seed S`` if a repository config with that
    seed IS the run's config, else None (the recorded config is then the recipe). The run's
    name is left out: it only names the default run directory."""
    from brag_env.training.config import load_config

    wanted = {**cfg.to_dict(), "name": None}
    for path in sorted(shipped_dir("configs").glob("*.yaml")):
        try:
            candidate = load_config(path, [f"seed={cfg.seed}"])
        except ValueError:
            continue
        if {**candidate.to_dict(), "name": None} == wanted:
            return f"python train.py --config configs/{path.name} --seed {cfg.seed}"
    return None


def _git_state(folder: Path) -> dict[str, Any] | None:
    """The commit checked out in ``folder`` (the brag-env code) and whether tracked files differ
    from it; None outside a git checkout."""
    try:
        head = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "HEAD"],
            capture_output=True, text=True, timeout=20, check=True,
        ).stdout.strip()  # fmt: skip
        dirty = subprocess.run(
            ["git", "-C", str(folder), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, timeout=20, check=True,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    return {"commit": head, "uncommitted_changes": bool(dirty)}


def _versions() -> dict[str, str]:
    out = {}
    for name in ("brag-env", "stable-baselines3", "sb3-contrib", "torch"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return out


def _slim_data(data: dict[str, Any]) -> dict[str, Any]:
    """``KEPT_DATA`` of SB3's ``data``, every pickled payload emptied (its JSON summary kept)."""
    out: dict[str, Any] = {}
    for key in KEPT_DATA:
        if key not in data:
            continue
        entry = data[key]
        if isinstance(entry, dict) and ":serialized:" in entry:
            entry = {**entry, ":serialized:": ""}
        out[key] = entry
    return out


def _zip_bytes(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, payload in entries.items():
            info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, payload)
    return buffer.getvalue()


def _same_policy(a: Any, b: Any, observation_size: int) -> bool:
    """The two policies give the same action probabilities on random observations."""
    import torch

    generator = torch.Generator().manual_seed(0)
    obs = torch.randn(32, observation_size, generator=generator)
    with torch.inference_mode():
        pa = a.get_distribution(obs).distribution.probs
        pb = b.get_distribution(obs).distribution.probs
    return bool(torch.equal(pa, pb))


def export_model(source: str | Path, dest: str | Path, force: bool = False) -> dict[str, Any]:
    """Write the exported model (module docstring); returns its record. ``ValueError`` (one
    line) for an unusable source, an existing ``dest`` without ``force`` or an oversized file."""
    from agents.model import MODEL_ENTRY, load_policy

    source, dest = Path(source), Path(dest)
    if dest.suffix.lower() != ".zip":
        raise ValueError(f"the exported model {str(dest)!r} must end in .zip (agent specs do)")
    check_writable(dest, "the exported model", force)
    if dest.exists() and dest.resolve() == source.resolve():
        raise ValueError(f"the exported model {str(dest)!r} is the source itself")
    policy, info = load_policy(source)  # every check of the loader; a one-line ValueError
    if info.trained_env is None:
        raise _fail(source, "it records no game and table options")
    game, env_config = info.trained_env.game, info.trained_env.options
    try:
        with zipfile.ZipFile(source) as archive:
            weights = read_zip_entry(archive, "policy.pth", "its zip")
            data = loads_bounded(read_zip_entry(archive, "data", "its zip", MAX_JSON_BYTES), "data")
    except FileError as e:
        raise _fail(source, str(e)) from None
    except (zipfile.BadZipFile, OSError, EOFError) as e:
        raise _fail(source, f"corrupt archive ({e})") from None
    training = _training_record(source, game, env_config)
    if "source_sha256" not in training:  # a first export (a re-export keeps the original's)
        training.update(
            format=EXPORT_FORMAT,
            source=str(source),
            source_sha256=hashlib.sha256(source.read_bytes()).hexdigest(),
            num_timesteps=info.num_timesteps,
            git=_git_state(REPO),
            versions=_versions(),
        )
    record = {"game": game, "env_config": dict(env_config), "export": training}
    payload = _zip_bytes(
        {
            "data": json.dumps(_slim_data(data), indent=1, sort_keys=True).encode(),
            "policy.pth": weights,
            MODEL_ENTRY: json.dumps(record, indent=1, sort_keys=True).encode(),
        }
    )
    if len(payload) > MAX_EXPORT_BYTES:
        raise _fail(
            source,
            f"the exported file would take {len(payload):,} bytes, more than "
            f"{MAX_EXPORT_BYTES:,}: a shipped model should be a few MB at most",
        )
    with tempfile.TemporaryDirectory() as folder:  # load it back before it replaces anything
        trial = Path(folder) / dest.name
        trial.write_bytes(payload)
        exported, _ = load_policy(trial)
        if not _same_policy(policy, exported, int(info.observation_shape[0])):
            raise _fail(source, "the exported policy does not act like the source (a bug)")
    write_output(dest, payload, "the exported model")
    return record


# ------------------------------------------------------------------ --info


def read_record(path: str | Path) -> dict[str, Any]:
    """A model's ``brag_env_model.json`` record (``{}`` when it has none), validated as a
    mapping; the file is checked as a model first (``agents.model.load_policy``)."""
    from agents.model import MODEL_ENTRY

    path = Path(path)
    record = _read_json_entry(path, MODEL_ENTRY)
    if record is None:
        return {}
    if not isinstance(record, dict):
        raise ValueError(f"model {str(path)!r}: its {MODEL_ENTRY} entry is not a mapping")
    export = record.get("export")
    if export is not None and not isinstance(export, dict):
        raise ValueError(f"model {str(path)!r}: its export record is not a mapping")
    return record


def _short(value: Any, limit: int = 200) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def describe(path: str | Path) -> list[str]:
    """The lines ``--info`` prints: what the model is, how it was trained, how to redo it."""
    from agents.model import load_policy

    path = Path(path)
    policy, info = load_policy(path)
    record = read_record(path)
    size = path.stat().st_size
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    net = policy.net_arch if hasattr(policy, "net_arch") else "?"
    activation = getattr(policy, "activation_fn", None)
    lines = [
        f"{path}: {size:,} bytes, sha256 {digest}",
        f"game: {record.get('game', '?')}; table options: {_short(record.get('env_config', {}))}",
        f"network: {_short(net)}, {getattr(activation, '__name__', activation)}; observation "
        f"{info.observation_shape[0]}, {info.num_actions} actions; {info.num_timesteps:,} steps",
    ]
    export = record.get("export")
    if not export:
        lines.append("no export record: not written by brag_env.training.export")
        return lines
    command = export.get("command")
    config = export.get("config") if isinstance(export.get("config"), dict) else {}
    lines += [
        f"trained: run {config.get('name', '?')!r}, seed {export.get('seed')!r}, "
        f"{export.get('total_timesteps')!r} steps configured, file {export.get('run_file')!r}",
        "reproduce: "
        + (
            str(command)
            if command
            else f"{_PROG} --info {path} --write-config run.yaml && python train.py --config "
            "run.yaml (no config in configs/ matches the recorded one)"
        ),
    ]
    git = export.get("git")
    if isinstance(git, dict):
        changes = " (with uncommitted changes)" if git.get("uncommitted_changes") else ""
        lines.append(f"git commit at export: {git.get('commit')!r}{changes}")
    else:
        lines.append("git commit at export: unknown (not in a git checkout)")
    lines.append(
        f"exported from {export.get('source')!r} (sha256 {export.get('source_sha256')!r}); "
        f"versions {_short(export.get('versions', {}))}"
    )
    return lines


def write_config(path: str | Path, out: str | Path, force: bool) -> None:
    """The recorded run config as YAML (validated, so train.py takes it as it is)."""
    from brag_env.training.config import config_from_dict, dump_config

    export = read_record(path).get("export") or {}
    if not isinstance(export.get("config"), dict):
        raise ValueError(f"model {str(path)!r} records no training config (no export record)")
    check_writable(out, "--write-config", force)
    cfg = config_from_dict(export["config"])
    write_output(out, dump_config(cfg), "--write-config")


# ------------------------------------------------------------------ command line


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog=_PROG,
        description="Export a trained model (policy weights and record only) for shipping, or "
        "show a model's record.",
    )
    p.add_argument("source", nargs="?", help="the model to export, e.g. runs/NAME/model.zip")
    p.add_argument("dest", nargs="?", help="the file to write, e.g. models/NAME.zip")
    p.add_argument("--info", metavar="MODEL", help="print what MODEL records and exit")
    p.add_argument(
        "--write-config",
        metavar="FILE",
        help="with --info: write the recorded training config to FILE (for train.py --config)",
    )
    p.add_argument("--force", action="store_true", help="overwrite an existing output file")
    return p


@quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.info:
            if args.source or args.dest:
                raise ValueError("--info takes one model and no SOURCE/DEST")
            for line in describe(args.info):
                print(line)
            if args.write_config:
                write_config(args.info, args.write_config, args.force)
                print(f"wrote {args.write_config}")
            return 0
        if args.write_config:
            raise ValueError("--write-config goes with --info MODEL")
        if not (args.source and args.dest):
            raise ValueError("give SOURCE and DEST (or --info MODEL)")
        record = export_model(args.source, args.dest, args.force)
        size = Path(args.dest).stat().st_size
        command = record["export"].get("command") or "see --info"
        print(f"wrote {args.dest} ({size:,} bytes); reproduce: {command}")
        return 0
    except ValueError as e:  # FileError included
        print(f"{_PROG}: error: {one_line_of(e)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        raise  # stdout's reader has gone: quiet_on_closed_pipe ends the command
    except OSError as e:
        print(f"{_PROG}: error: {e.strerror or e} ({e.filename})", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
