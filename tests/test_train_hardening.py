"""train.py, hardening round two (issue 30): one run per run directory (item 2), the training
state of a checkpoint validated (item 9), leftovers of a killed run removed and
``pool.max_snapshots`` honoured on disk (item 13)."""

from __future__ import annotations

import io
import json
import os
import stat
import zipfile
from pathlib import Path

import pytest

from brag_env.training import cli as train
from brag_env.training.checkpoint import TRAINING_ENTRY, read_training_state
from brag_env.training.files import LOCK_FILE, run_dir_lock
from tests.killed_process import run_until_killed

ROOT = Path(__file__).resolve().parents[1]
SMOKE = ROOT / "configs" / "put_ppo_smoke.yaml"


def smoke(out: Path, *extra: str) -> list[str]:
    return ["--config", str(SMOKE), "--out", str(out), "--set", "eval.every=0", *extra]


# ------------------------------------------------------------------ item 2: the run lock
def test_a_second_train_on_the_same_out_is_refused_in_one_line(tmp_path, capsys):
    out = tmp_path / "run"
    with run_dir_lock(out):  # as a first train.py holds it
        assert train.main(smoke(out)) == 2
    err = capsys.readouterr().err
    assert err == (
        f"train.py: error: {out} is in use by another train.py (pid {os.getpid()}): wait for "
        "it to finish, or use another --out\n"
    )
    assert sorted(p.name for p in out.iterdir()) == [LOCK_FILE]  # nothing of a run written


def test_the_lock_of_a_killed_run_does_not_block(tmp_path):
    out = tmp_path / "run"
    code = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from brag_env.training.files import run_dir_lock\n"
        "with run_dir_lock(Path(sys.argv[1])):\n"
        "    os.kill(os.getpid(), 9)\n"
    )
    run_until_killed(code, str(out))
    assert (out / LOCK_FILE).is_file()  # the file stays behind
    with run_dir_lock(out):  # and is free
        pass


def test_the_lock_is_exclusive_within_one_process_too(tmp_path):
    refused = pytest.raises(ValueError, match="in use by another")
    with run_dir_lock(tmp_path), refused, run_dir_lock(tmp_path):
        pass


ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="mknod of a device needs root")


@pytest.mark.parametrize(
    "kind", ["symlink", "fifo", "directory", pytest.param("device", marks=ROOT_ONLY)]
)
def test_a_lock_that_is_not_a_regular_file_is_refused_and_not_written(tmp_path, capsys, kind):
    """A planted .train.lock: a symlink is not followed (its target is not truncated), a FIFO
    does not block the open, and neither is written; one line, exit 2."""
    out = tmp_path / "run"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    if kind == "symlink":
        (out / LOCK_FILE).symlink_to(victim)
    elif kind == "fifo":
        os.mkfifo(out / LOCK_FILE)
    elif kind == "device":  # a /dev/null of its own
        os.mknod(out / LOCK_FILE, 0o600 | stat.S_IFCHR, os.makedev(1, 3))
    else:
        (out / LOCK_FILE).mkdir()
    assert train.main(smoke(out, "--set", "total_timesteps=1")) == 2
    err = capsys.readouterr().err
    assert err == (
        f"train.py: error: {out / LOCK_FILE} is not a regular file (a symlink, FIFO, device or "
        "directory): train.py will not write its lock there; remove it, or use another --out\n"
    )
    assert victim.read_text() == "precious\n"
    assert sorted(p.name for p in out.iterdir()) == [LOCK_FILE]  # nothing of a run written


# ------------------------------------------------------------------ item 9: the training state
def _checkpoint(path: Path, state: object, env_config: dict | None = None) -> Path:
    """A zip with the entries read_training_state looks at (the weights are not read)."""
    with zipfile.ZipFile(path, "w") as archive:
        for name in ("data", "policy.pth", "policy.optimizer.pth"):
            archive.writestr(name, b"{}")
        archive.writestr(
            "brag_env_model.json", json.dumps({"game": "put", "env_config": env_config or {}})
        )
        archive.writestr(TRAINING_ENTRY, json.dumps(state))
    return path


GOOD = {"num_timesteps": 512, "n_updates": 4, "snapshots": [], "evals": [], "config_hash": "x"}


@pytest.mark.parametrize(
    "change, fragment",
    [
        ({"n_updates": None}, "n_updates must be a whole number between 0 and"),
        ({"num_timesteps": 1e30}, "num_timesteps must be a whole number between 0 and"),
        ({"num_timesteps": 10**40}, "got 10000000000000000000000000000000000000000"),
        ({"num_timesteps": True}, "num_timesteps must be a whole number"),
        ({"snapshots": [1, 2]}, "snapshots must hold names snapshots/step_NNNNNNNNN.zip, got 1"),
        ({"snapshots": ["../../model.zip"]}, "got '../../model.zip'"),
        ({"snapshots": ["/etc/passwd"]}, "got '/etc/passwd'"),
        ({"snapshots": ["snapshots/../../x/step_000000512.zip"]}, "snapshots must hold"),
        ({"evals": 5}, "evals must be a list, got 5"),
        ({"evals": [{"a": 1}]}, "evals must hold lines of text"),
        ({"config_hash": 3}, "config_hash must be text"),
    ],
)
def test_a_checkpoint_with_a_bad_training_state_is_one_line(tmp_path, change, fragment):
    path = _checkpoint(tmp_path / "checkpoint.zip", {**GOOD, **change})
    with pytest.raises(ValueError) as refused:
        read_training_state(path)
    assert fragment in str(refused.value) and "\n" not in str(refused.value)


def test_a_good_training_state_is_read_as_written(tmp_path):
    state = {**GOOD, "snapshots": ["snapshots/step_000000512.zip"], "evals": ["random +0.1"]}
    assert read_training_state(_checkpoint(tmp_path / "c.zip", state)) == state


def test_resume_from_a_checkpoint_naming_a_snapshot_outside_the_run_is_refused(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / "config.yaml").write_text(SMOKE.read_text())
    state = {**GOOD, "snapshots": ["../elsewhere/step_000000512.zip"]}
    _checkpoint(out / "checkpoint.zip", state)
    assert train.main(["--out", str(out), "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "snapshots must hold names snapshots/step_" in err


def _snapshot_names(*steps: int) -> list[str]:
    return [f"snapshots/step_{step:09d}.zip" for step in steps]


# put_ppo_smoke.yaml: rollouts of 4 envs x 128 steps = 512, total_timesteps 1024, max_snapshots 2.
@pytest.mark.parametrize(
    "change, files, fragment",
    [
        ({"num_timesteps": 1536}, [], "num_timesteps 1,536 is beyond the run's 1,024 steps"),
        ({"num_timesteps": 500}, [], "num_timesteps 500 is not a whole number of rollouts (ppo"),
        (
            {"snapshots": _snapshot_names(512, 512)},
            [512],
            "lists snapshots/step_000000512.zip twice",
        ),
        (
            {"snapshots": _snapshot_names(128, 256, 512)},
            [128, 256, 512],
            "snapshots lists 3 files, more than pool.max_snapshots (2)",
        ),
        ({"snapshots": _snapshot_names(256, 512)}, [256], "step_000000512.zip does not exist"),
    ],
)
def test_a_resume_whose_state_does_not_fit_the_run_is_refused_before_it_prints_or_writes(
    tmp_path, capsys, change, files, fragment
):
    out = tmp_path / "run"
    (out / "snapshots").mkdir(parents=True)
    (out / "config.yaml").write_text(SMOKE.read_text())
    (out / "evals.jsonl").write_text('{"step": 1024, "label": "eval", "results": []}\n')
    for step in files:
        (out / _snapshot_names(step)[0]).write_bytes(b"a snapshot")
    state = {**GOOD, **change, "config_hash": train.config_hash(train.load_config(SMOKE))}
    _checkpoint(out / "checkpoint.zip", state, {"num_players": 2})  # the smoke run's table
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert train.main(["--out", str(out), "--resume"]) == 2
    printed = capsys.readouterr()
    assert printed.out == "" and printed.err.count("\n") == 1
    assert printed.err.startswith(
        f"train.py: error: checkpoint {str(out / 'checkpoint.zip')!r}: {TRAINING_ENTRY}: "
    )
    assert fragment in printed.err
    after = {p: p.read_bytes() for p in out.rglob("*") if p.is_file() and p.name != LOCK_FILE}
    assert after == before  # no tb/, evals.jsonl not truncated


@pytest.mark.slow  # builds the envs and the learner: seconds
def test_a_resume_whose_weights_do_not_load_prints_and_truncates_nothing(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / "config.yaml").write_text(SMOKE.read_text())
    later = '{"step": 1024, "label": "eval", "results": []}\n'
    (out / "evals.jsonl").write_text(later)
    state = {**GOOD, "config_hash": train.config_hash(train.load_config(SMOKE))}
    _checkpoint(out / "checkpoint.zip", state, {"num_players": 2})  # its weights are b"{}"
    assert train.main(["--out", str(out), "--resume"]) == 2
    printed = capsys.readouterr()
    assert printed.out == "" and "is corrupt or from another run" in printed.err
    assert (out / "evals.jsonl").read_text() == later and not (out / "tb").exists()


# ------------------------------------------------------------------ item 13: leftovers, snapshots
@pytest.mark.slow  # a real run of 2,048 steps: seconds
def test_a_run_removes_killed_runs_temp_files_and_keeps_max_snapshots_on_disk(tmp_path):
    out = tmp_path / "run"
    (out / "snapshots").mkdir(parents=True)
    left = [
        out / ".checkpoint.zip.k1ll3d00.tmp",
        out / "snapshots" / ".step_000000512.zip.abcdefgh.tmp",
    ]
    for path in left:
        path.write_bytes(b"half a file")
    own = out / "notes.tmp"  # not the writers' pattern: the user's
    own.write_text("mine")
    args = smoke(out, "--set", "total_timesteps=2048", "--set", "checkpoint_every=1024")
    assert train.main(args) == 0
    assert not any(path.exists() for path in left) and own.read_text() == "mine"
    snapshots = sorted(p.name for p in (out / "snapshots").iterdir())
    state = read_training_state(out / "checkpoint.zip")
    assert len(snapshots) == 2 == len(state["snapshots"])  # max_snapshots: 2, of 4 taken
    assert snapshots == [Path(name).name for name in state["snapshots"]]
    assert snapshots == ["step_000001024.zip", "step_000001536.zip"]  # the newest two


# ------------------------------------------------------------------ item 12: size bounds
@pytest.mark.parametrize(
    "setting, message",
    [
        ("eval.final_episodes=1000000000000", "eval.final_episodes must be between 1 and"),
        ("ppo.net_arch=[100000000]", "ppo.net_arch[0] must be between 1 and 8192"),
        ("total_timesteps=" + "1" + "0" * 30, "total_timesteps must be between 1 and"),
        ("n_envs=100000", "n_envs must be between 1 and 16384"),
        ("ppo.n_steps=1000000", "a rollout (ppo.n_steps * n_envs = 4,000,000) must be at most"),
    ],
)
def test_absurd_sizes_are_refused_before_the_run_directory_is_written(
    tmp_path, capsys, setting, message
):
    out = tmp_path / "run"
    assert train.main(smoke(out, "--set", setting)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"train.py: error: {message}") and err.count("\n") == 1
    assert not out.exists()


def test_a_rollout_too_large_in_bytes_is_refused_before_the_run_directory(tmp_path, capsys):
    """The step bound allows 2,097,152 steps; with perfect recall a Brag step observes 11,086
    values, so that rollout is 86.7 GiB: refused from the table's observation size."""
    out = tmp_path / "run"
    args = ["--config", str(ROOT / "configs" / "brag_ppo_smoke.yaml"), "--out", str(out)]
    for setting in ("env.perfect_recall=true", "n_envs=64", "ppo.n_steps=32768"):
        args += ["--set", setting]
    assert train.main([*args, "--set", "vec_env=dummy"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "train.py: error: a rollout buffer of 86.7 GiB (ppo.n_steps * n_envs = 2,097,152 steps "
        "of the table's observation and action mask) must be at most 4 GiB: lower ppo.n_steps "
        "or n_envs\n"
    )
    assert not out.exists()


def test_the_rollout_bytes_follow_the_tables_observation():
    from brag_env.training.config import load_config, rollout_bytes

    plain = load_config(ROOT / "configs" / "brag_ppo_smoke.yaml")  # 517 values, 8 actions
    recall = load_config(ROOT / "configs" / "brag_ppo_smoke.yaml", ["env.perfect_recall=true"])
    assert rollout_bytes(plain) == plain.rollout_steps * (517 + 8 + 7) * 4
    assert rollout_bytes(recall) == recall.rollout_steps * (11_086 + 8 + 7) * 4


# ------------------------------------------------------------------ item 14: writer threads
def test_a_writer_thread_dying_of_a_full_disk_prints_no_traceback(monkeypatch):
    import errno
    import threading

    from brag_env.training.files import quiet_disk_errors_in_threads

    shown = []  # what the usual hook (a traceback on stderr) would print
    monkeypatch.setattr(threading, "excepthook", lambda args: shown.append(args.exc_value))

    def fail(error: Exception) -> None:
        raise error

    full = OSError(errno.ENOSPC, "No space left on device")
    bug = RuntimeError("a bug")
    with quiet_disk_errors_in_threads():
        for error in (full, bug):
            thread = threading.Thread(target=fail, args=(error,))
            thread.start()
            thread.join()
    assert shown == [bug]  # the full disk: the main thread reports it, in one line
    assert threading.excepthook is not None and threading.excepthook.__name__ == "<lambda>"


# ------------------------------------------------------------------ item 7: what a resume repeats
@pytest.mark.slow  # three short runs: seconds
def test_a_resume_is_reproducible_from_its_checkpoint(tmp_path, monkeypatch, capsys):
    """docs/training.md, "What --resume reproduces": the same checkpoint resumed twice gives the
    same run, bit for bit (weights, evaluations); the weights, optimizer, step count, update
    count, pool and evaluation history come from the checkpoint. (The deals and draws after
    the checkpoint are not the uninterrupted run's: see the docs.)"""
    import shutil

    import torch

    first = tmp_path / "first"
    args = smoke(first, "--set", "total_timesteps=1024", "--set", "eval.every=512")
    real_save = train.save_checkpoint

    def save_then_crash(*a, **kw):  # killed right after the first checkpoint is on disk
        real_save(*a, **kw)
        raise KeyboardInterrupt

    monkeypatch.setattr(train, "save_checkpoint", save_then_crash)
    assert train.main(args) == 130
    monkeypatch.undo()
    second = tmp_path / "second"
    shutil.copytree(first, second)
    saved = read_training_state(first / "checkpoint.zip")
    assert saved["num_timesteps"] == 512 and saved["n_updates"] == 2  # 2 epochs, 1 rollout
    finals = []
    for out in (first, second):
        assert train.main(["--out", str(out), "--resume"]) == 0
        with zipfile.ZipFile(out / "model.zip") as archive:
            weights = torch.load(io.BytesIO(archive.read("policy.pth")), weights_only=True)
        evals = [json.loads(line) for line in (out / "evals.jsonl").read_text().splitlines()]
        for entry in evals:
            for result in entry["results"]:
                result.pop("seconds")
        finals.append((weights, evals, read_training_state(out / "checkpoint.zip")))
    capsys.readouterr()
    (w1, e1, s1), (w2, e2, s2) = finals
    assert w1.keys() == w2.keys() and all(torch.equal(w1[k], w2[k]) for k in w1)
    assert e1 == e2 and [e["step"] for e in e1] == [512, 1024]
    assert s1["n_updates"] == s2["n_updates"] == 4 and s1["num_timesteps"] == 1024
