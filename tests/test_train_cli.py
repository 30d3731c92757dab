"""train.py as a command: schedules over one learn() call, reproducibility, one-line errors for
bad input (exit 2) and for run files that cannot be written (exit 1, last checkpoint intact)."""

from __future__ import annotations

import errno
import json
import os
import re
import tomllib
from pathlib import Path

import pytest

from brag_env.training import cli as train
from brag_env.training.checkpoint import read_training_state
from brag_env.training.config import load_config

ROOT = Path(__file__).resolve().parents[1]
SMOKE = ROOT / "configs" / "put_ppo_smoke.yaml"


def smoke(out: Path, *extra: str) -> list[str]:
    return ["--config", str(SMOKE), "--out", str(out), "--set", "eval.every=0", *extra]


def tb_scalars(run_dir: Path, tag: str) -> list[float]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    values = []  # a resumed run adds an event file per session: all, in step order
    for events in (run_dir / "tb").glob("events.out.tfevents.*"):
        acc = EventAccumulator(str(events))
        acc.Reload()
        if tag in acc.Tags()["scalars"]:
            values += [(e.step, e.value) for e in acc.Scalars(tag)]
    return [value for _, value in sorted(values, key=lambda sv: sv[0])]  # stable


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_schedules_follow_progress_over_the_whole_run_and_after_resume(tmp_path, monkeypatch):
    """One learn() call: SB3's progress_remaining after rollout k of 4 is 1 - k/4, so a linear
    schedule 1e-3 -> 1e-5 gives these four learning rates. (One learn() per rollout, as before,
    made progress_remaining 0 at every update: four times the end value.)"""
    lr = "ppo.learning_rate={schedule: linear, start: 1.0e-3, end: 1.0e-5}"
    clip = "ppo.clip_range={schedule: exponential, start: 0.4, end: 0.1}"
    args = smoke(tmp_path / "a", "--set", "total_timesteps=2048", "--set", lr, "--set", clip)
    assert train.main(args) == 0
    cfg = load_config(tmp_path / "a" / "config.yaml")
    expected_lr = [1e-3 + (1e-5 - 1e-3) * k / 4 for k in (1, 2, 3, 4)]
    assert tb_scalars(tmp_path / "a", "train/learning_rate") == pytest.approx(expected_lr, 1e-6)
    expected_clip = [0.4 * 0.25 ** (k / 4) for k in (1, 2, 3, 4)]
    assert tb_scalars(tmp_path / "a", "train/clip_range") == pytest.approx(expected_clip, 1e-6)
    assert cfg.ppo.learning_rate(0.0) == pytest.approx(1e-5)  # config.yaml keeps the schedule

    # Interrupted after the first checkpoint (step 512) and resumed: the same rates from there.
    real_save = train.save_checkpoint

    def save_then_crash(*a, **kw):
        real_save(*a, **kw)
        raise KeyboardInterrupt

    resumed = smoke(tmp_path / "b", "--set", "total_timesteps=2048", "--set", lr, "--set", clip)
    monkeypatch.setattr(train, "save_checkpoint", save_then_crash)
    assert train.main(resumed) == 130
    monkeypatch.undo()
    assert train.main([*resumed, "--resume"]) == 0
    rates = tb_scalars(tmp_path / "b", "train/learning_rate")
    assert rates[-3:] == pytest.approx(expected_lr[1:], 1e-6)


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_same_seed_same_run(tmp_path):
    for name in ("a", "b"):
        assert train.main(smoke(tmp_path / name, "--set", "eval.every=512")) == 0

    def evals(name: str) -> list:
        lines = (tmp_path / name / "evals.jsonl").read_text().splitlines()
        entries = [json.loads(line) for line in lines]
        for entry in entries:
            for r in entry["results"]:
                r.pop("seconds")  # wall time
        return entries

    assert evals("a") == evals("b") and len(evals("a")) == 2
    assert tb_scalars(tmp_path / "a", "train/loss") == tb_scalars(tmp_path / "b", "train/loss")


def one_line_error(capsys, argv: list[str], code: int = 2) -> str:
    capsys.readouterr()
    assert train.main(argv) == code
    err = capsys.readouterr().err
    assert err.startswith("train.py: error: ") and err.count("\n") == 1, err
    return err


def test_empty_config_file_is_an_error_not_an_all_defaults_run(tmp_path, capsys):
    empty = tmp_path / "empty.yaml"
    empty.write_text("# nothing but a comment\n")
    err = one_line_error(capsys, ["--config", str(empty), "--out", str(tmp_path / "run")])
    assert f"config file {empty} is empty" in err
    assert not (tmp_path / "run").exists()


def test_config_directory_is_named_as_a_directory(tmp_path, capsys):
    err = one_line_error(capsys, ["--config", str(tmp_path), "--out", str(tmp_path / "run")])
    assert "is a directory" in err and "does not exist" not in err


def test_yaml_syntax_error_is_one_line_with_file_line_and_column(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nppo:\n  n_steps: [1, 2\n  batch_size: 4\n")
    err = one_line_error(capsys, ["--config", str(bad), "--out", str(tmp_path / "run")])
    assert re.match(rf"train.py: error: {re.escape(str(bad))}:\d+:\d+: not valid YAML: \w", err)


def test_negative_seed_names_the_seed(tmp_path, capsys):
    err = one_line_error(capsys, [*smoke(tmp_path / "run"), "--seed", "-1"])
    assert "seed must be between 0 and 2147483647, got -1" in err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    "setting, message",
    [
        ("env.bogus=1", "env: unknown Put option(s): bogus"),
        ("env.num_players=7", "env.num_players must be between 2 and 4, got 7"),
        ("ppo.n_steps=x", "ppo.n_steps must be an integer between 1 and 2097152, got 'x'"),
        ("ppo.learning_rate={schedule: cosine, start: 1, end: 2}", "ppo.learning_rate.schedule"),
    ],
)
def test_bad_config_leaves_no_run_directory(tmp_path, capsys, setting, message):
    """The whole config, table options included, is checked before anything is written."""
    err = one_line_error(capsys, [*smoke(tmp_path / "run"), "--set", setting])
    assert message in err
    assert not (tmp_path / "run").exists()


def fail_writes(monkeypatch, name_part: str, error: int, when=lambda: True) -> None:
    """Make the fsync of a temporary run file whose name contains ``name_part`` fail with
    ``error``, as a full disk (ENOSPC) or a refused write (EACCES) does: every run file is
    written to a temporary file, fsynced, then renamed over the target."""
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        if name_part in os.readlink(f"/proc/self/fd/{fd}") and when():
            raise OSError(error, os.strerror(error))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_full_disk_at_a_checkpoint_is_one_line_and_keeps_the_last_checkpoint(
    tmp_path, monkeypatch, capsys
):
    out = tmp_path / "run"
    args = smoke(out, "--set", "total_timesteps=2048")
    checkpoint = out / "checkpoint.zip"
    fail_writes(monkeypatch, ".checkpoint.zip.", errno.ENOSPC, when=checkpoint.exists)
    err = one_line_error(capsys, args, code=1)
    monkeypatch.undo()
    assert err == f"train.py: error: cannot write {checkpoint}: No space left on device\n"
    assert read_training_state(checkpoint)["num_timesteps"] == 512  # the first one, intact
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]  # no temporary file left
    # Space freed: the run resumes from that checkpoint and finishes.
    assert train.main([*args, "--resume"]) == 0
    assert read_training_state(checkpoint)["num_timesteps"] == 2048


@pytest.mark.parametrize(
    "name, error, reason",
    [
        ("config.yaml", errno.EACCES, "Permission denied"),
        ("evals.jsonl", errno.ENOSPC, "No space left on device"),
        ("snapshots/step_", errno.ENOSPC, "No space left on device"),
        ("model.zip", errno.ENOSPC, "No space left on device"),
        ("final_eval.json", errno.EROFS, "Read-only file system"),
    ],
)
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_unwritable_run_files_are_one_line_errors_naming_the_file(
    tmp_path, monkeypatch, capsys, name, error, reason
):
    out = tmp_path / "run"
    folder, _, stem = name.rpartition("/")
    fail_writes(monkeypatch, f"{folder}/.{stem}" if folder else f"/.{name}.", error)
    err = one_line_error(capsys, smoke(out), code=1)
    assert err.startswith(f"train.py: error: cannot write {out / name}") and err.endswith(
        f": {reason}\n"
    )


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_full_disk_under_tensorboard_names_the_tb_directory(tmp_path, monkeypatch, capsys):
    from stable_baselines3.common.logger import TensorBoardOutputFormat

    out = tmp_path / "run"
    real_write = TensorBoardOutputFormat.write

    def write(self, *a, **kw):  # the event file fails once the first checkpoint is on disk
        if (out / "checkpoint.zip").exists():
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(self, *a, **kw)

    monkeypatch.setattr(TensorBoardOutputFormat, "write", write)
    args = smoke(out, "--set", "total_timesteps=2048")
    err = one_line_error(capsys, args, code=1)
    assert err == f"train.py: error: cannot write {out / 'tb'}: No space left on device\n"
    assert read_training_state(out / "checkpoint.zip")["num_timesteps"] == 512


def test_brag_train_console_script_points_at_the_cli():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["project"]["scripts"]["brag-train"] == "brag_env.training.cli:main"
    train = project["project"]["optional-dependencies"]["train"]
    assert any(d.startswith("pydantic>=2") for d in train)  # only training reads the schema


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_final_table_is_rich_and_aligned(tmp_path, capsys):
    assert train.main(smoke(tmp_path / "run")) == 0
    printed = capsys.readouterr().out
    table = printed.split("per opponent):\n", 1)[1].split("learning curves:")[0]
    rows = [line for line in table.splitlines() if "[" in line]
    assert [row.split()[0] for row in rows] == ["random", "put:greedy"]
    # Right-aligned columns: every row's numbers end in the same places as the header's.
    header = next(line for line in table.splitlines() if "match win rate" in line)
    for row in rows:
        assert len(row) == len(header)
        assert row.index("%") == header.index("match win rate") + len("match win rate") - 1
    assert (tmp_path / "run" / "curves.png").stat().st_size > 0


def test_installed_command_finds_the_default_config_in_a_clone_or_asks_for_one(
    tmp_path, monkeypatch, capsys
):
    """An installed package has no configs/ beside it: ./configs/put_ppo.yaml, else --config."""
    monkeypatch.setattr(train, "DEFAULT_CONFIG", tmp_path / "site-packages" / "put_ppo.yaml")
    monkeypatch.chdir(ROOT)
    assert train.default_config() == Path("configs") / "put_ppo.yaml"
    monkeypatch.chdir(tmp_path)
    err = one_line_error(capsys, ["--out", str(tmp_path / "run")])
    assert "no default config here (configs/put_ppo.yaml); pass --config FILE" in err


# ------------------------------------------------------------------ issue 28: shipped configs
def test_a_shipped_config_is_found_by_name_from_any_folder(tmp_path, monkeypatch, capsys):
    """brag-train --config NAME or configs/NAME: a file if there is one, else the shipped one."""
    monkeypatch.chdir(tmp_path)
    shipped = train.SHIPPED_CONFIGS / "brag_headsup_ppo.yaml"
    assert train.find_config("brag_headsup_ppo.yaml") == shipped
    assert train.find_config("configs/brag_headsup_ppo.yaml") == shipped
    (tmp_path / "brag_headsup_ppo.yaml").write_text("name: mine\n")  # the user's own file wins
    assert train.find_config("brag_headsup_ppo.yaml") == Path("brag_headsup_ppo.yaml")
    for missing in ("nope.yaml", "elsewhere/brag_ppo.yaml"):  # only bare names fall back
        err = one_line_error(capsys, ["--config", missing, "--out", str(tmp_path / "run")])
        assert f"config file '{missing}' does not exist; the shipped configs: " in err
        assert "brag_headsup_ppo.yaml, " in err and "put_ppo.yaml" in err
    assert not (tmp_path / "run").exists()


def test_the_help_shows_commands_that_work_from_an_empty_folder(tmp_path, monkeypatch, capsys):
    """Every brag-train line of --help's epilog parses and finds its config outside a clone."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit):
        train.parse_args(["--help"])
    shown = capsys.readouterr().out
    commands = [line.split("#")[0].split() for line in shown.splitlines() if "brag-train" in line]
    commands = [words[1:] for words in commands if words and words[0] == "brag-train"]
    assert len(commands) >= 3, shown
    for argv in commands:
        args = train.parse_args(argv)
        overrides = [*args.overrides, *([f"seed={args.seed}"] if args.seed is not None else [])]
        path = train.find_config(args.config) if args.config else train.default_config()
        assert load_config(path, overrides).name


@pytest.mark.slow  # builds the model and its envs before the (interrupted) run: about a second
def test_status_lines_name_the_installed_command(tmp_path, monkeypatch, capsys):
    def interrupt(*a, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(train.MaskablePPO, "learn", interrupt)
    monkeypatch.setattr("sys.argv", ["/venv/bin/brag-train", *smoke(tmp_path / "run")])
    assert train.main() == 130
    captured = capsys.readouterr()
    assert captured.out.startswith("brag-train: put, ") and "train.py" not in captured.out
    assert captured.err.strip().startswith("brag-train: interrupted")
