"""train.py end to end on the smoke configs (train, save, load in evaluate.py), and --resume."""

from __future__ import annotations

import io
import json
import sys
import zipfile
from pathlib import Path

import pytest

from brag_env.training.checkpoint import (
    TRAINING_ENTRY,
    atomic_write_bytes,
    load_parameters,
    read_training_state,
)
from brag_env.training.config import load_config
from brag_env.training.envs import make_vec_env

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import evaluate  # noqa: E402
from brag_env.training import cli as train  # noqa: E402  (what train.py runs)

SMOKE = {
    "put_ppo_smoke": ["random"],
    "brag_ppo_smoke": ["random", "random", "random"],
    "brag_headsup_ppo_smoke": ["brag:tight"],
}


def smoke_args(name: str, out: Path, *extra: str) -> list[str]:
    return ["--config", str(ROOT / "configs" / f"{name}.yaml"), "--out", str(out), *extra]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SMOKE))
def test_smoke_config_trains_saves_and_loads_in_evaluate(name, tmp_path, capsys):
    out = tmp_path / name
    assert train.main(smoke_args(name, out)) == 0
    printed = capsys.readouterr().out
    cfg = load_config(ROOT / "configs" / f"{name}.yaml")
    assert "final evaluation" in printed
    for opponent in cfg.eval.opponents:
        assert opponent in printed.split("final evaluation", 1)[1]

    # The run directory: config as used, checkpoint at the last step, evaluations, TensorBoard.
    assert load_config(out / "config.yaml") == cfg
    state = read_training_state(out / "checkpoint.zip")
    assert state["num_timesteps"] == cfg.num_iterations * cfg.rollout_steps
    evals = [json.loads(line) for line in (out / "evals.jsonl").read_text().splitlines()]
    assert [e["label"] for e in evals][-1] == "final"
    # Periodic evaluations before the last step; at the last step only the final one.
    total = cfg.num_iterations * cfg.rollout_steps
    assert [e["step"] for e in evals] == [*range(cfg.eval.every, total, cfg.eval.every), total]
    final = json.loads((out / "final_eval.json").read_text())
    # The header gives the number of episodes actually played (whole seat rotations).
    unit = "matches" if cfg.game == "put" else "hands"
    assert f"({final[0]['n']} {unit} per opponent)" in printed
    assert not (out / "eval_model.zip").exists()
    assert [r["opponent"] for r in final] == cfg.eval.opponents
    assert all(r["ci_low"] <= r["mean"] <= r["ci_high"] for r in final)
    (events,) = (out / "tb").glob("events.out.tfevents.*")
    assert f"final/{cfg.eval.opponents[0]}/mean".encode() in events.read_bytes()
    assert b"train/policy_gradient_loss" in events.read_bytes()
    assert len(list((out / "snapshots").glob("step_*.zip"))) >= 1

    # model.zip is an agent spec for evaluate.py.
    count = "--matches" if cfg.game == "put" else "--hands"
    argv = ["--game", cfg.game, "--agents", str(out / "model.zip"), *SMOKE[name], count, "10"]
    assert evaluate.main(argv) == 0
    # ... which knows its game and table: a copy elsewhere refuses another table size.
    copy = tmp_path / "elsewhere" / "copy.zip"
    copy.parent.mkdir()
    copy.write_bytes((out / "model.zip").read_bytes())
    capsys.readouterr()
    wrong = ["random"] * (len(SMOKE[name]) + 1)
    assert evaluate.main(["--game", cfg.game, "--agents", str(copy), *wrong, count, "2"]) == 2
    assert "trained with other table options" in capsys.readouterr().err


@pytest.mark.slow
def test_interrupted_run_resumes_and_ends_at_the_same_step(tmp_path, monkeypatch, capsys):
    out = tmp_path / "run"
    args = smoke_args(
        "put_ppo_smoke", out, "--set", "total_timesteps=2048", "--set", "eval.every=0"
    )
    real_save = train.save_checkpoint

    def save_then_crash(*a, **kw):  # Ctrl-C right after the first checkpoint is on disk
        real_save(*a, **kw)
        raise KeyboardInterrupt

    monkeypatch.setattr(train, "save_checkpoint", save_then_crash)
    assert train.main(args) == 130
    assert "--resume" in capsys.readouterr().err
    assert read_training_state(out / "checkpoint.zip")["num_timesteps"] == 512
    assert not (out / "model.zip").exists()
    monkeypatch.undo()

    # Neither a fresh start over it nor a resume with another config is allowed.
    assert train.main(args) == 2
    assert "already holds a run" in capsys.readouterr().err
    assert train.main([*args, "--resume", "--set", "ppo.n_epochs=3"]) == 2
    assert "config differs" in capsys.readouterr().err

    assert train.main([*args, "--resume"]) == 0
    assert "resuming at step 512" in capsys.readouterr().out
    state = read_training_state(out / "checkpoint.zip")
    assert state["num_timesteps"] == 2048
    # Snapshots at 512 (before the crash), 1024 and 1536; max_snapshots=2 keeps the newest two.
    assert state["snapshots"] == ["snapshots/step_000001024.zip", "snapshots/step_000001536.zip"]
    assert (
        evaluate.main(
            ["--game", "put", "--agents", str(out / "model.zip"), "random", "--matches", "5"]
        )
        == 0
    )


def test_resume_without_a_run_is_an_error(tmp_path, capsys):
    assert train.main(["--out", str(tmp_path / "none"), "--resume"]) == 2
    assert "no run to resume" in capsys.readouterr().err


def test_bad_config_is_a_one_line_error(tmp_path, capsys):
    code = train.main(["--out", str(tmp_path / "x"), "--set", "ppo.lr=1"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("train.py: error: unknown config key(s): ppo.lr") and err.count("\n") == 1


def test_bad_opponent_spec_fails_before_training(tmp_path, capsys):
    args = smoke_args("put_ppo_smoke", tmp_path / "x", "--set", "eval.opponents=[put:nonsense]")
    assert train.main(args) == 2
    assert "eval.opponents: unknown put style 'nonsense'" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_default_config_is_put_ppo():
    assert train.DEFAULT_CONFIG == ROOT / "configs" / "put_ppo.yaml"
    assert load_config(train.DEFAULT_CONFIG).name == "put_ppo"


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path):
    path = tmp_path / "f.bin"
    atomic_write_bytes(path, b"old")
    with pytest.raises(TypeError):
        atomic_write_bytes(path, "not bytes")  # type: ignore[arg-type]
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["f.bin"]  # no temporary file left behind


def test_checkpoint_errors_name_the_problem(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        read_training_state(tmp_path / "missing.zip")
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="corrupt"):
        read_training_state(bad)


@pytest.mark.slow
def test_overwrite_removes_the_old_run_and_resume_checks_the_config(tmp_path, monkeypatch, capsys):
    out = tmp_path / "run"
    args = smoke_args("put_ppo_smoke", out, "--set", "eval.every=0", "--set", "eval.seed=7")
    assert train.main(args) == 0
    assert "final evaluation, seed 7 " in capsys.readouterr().out  # eval.seed, not the run's
    assert (out / "model.zip").exists() and (out / "snapshots").is_dir()

    # --overwrite with another config, interrupted before its first checkpoint: nothing of the
    # old run may survive, so there is nothing to resume.
    def crash(*a, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(train.MaskablePPO, "learn", crash)
    assert train.main([*args, "--overwrite", "--set", "ppo.n_epochs=3"]) == 130
    monkeypatch.undo()
    assert not any((out / name).exists() for name in ("checkpoint.zip", "model.zip", "snapshots"))
    assert not (out / "final_eval.json").exists()
    assert len(list(out.glob("tb/*"))) <= 1  # at most the new run's (empty) event file
    assert (out / "evals.jsonl").read_text() == ""
    capsys.readouterr()
    assert train.main(["--out", str(out), "--resume"]) == 2
    assert "does not exist" in capsys.readouterr().err

    # A config.yaml edited after the checkpoint was written is refused on --resume.
    assert train.main([*args, "--overwrite"]) == 0
    text = (out / "config.yaml").read_text()
    (out / "config.yaml").write_text(text.replace("n_epochs: 2", "n_epochs: 5"))
    capsys.readouterr()
    assert train.main(["--out", str(out), "--resume"]) == 2
    err = capsys.readouterr().err
    assert "does not match the config" in err and err.count("\n") == 1


@pytest.mark.slow
def test_damaged_or_foreign_checkpoint_is_a_one_line_error(tmp_path, capsys):
    put = tmp_path / "put"
    args = smoke_args("put_ppo_smoke", put, "--set", "eval.every=0")
    assert train.main(args) == 0
    good = (put / "checkpoint.zip").read_bytes()

    def resume_error() -> str:
        capsys.readouterr()
        assert train.main(["--out", str(put), "--resume"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("train.py: error: ") and err.count("\n") == 1, err
        return err

    (put / "checkpoint.zip").write_bytes(good[: len(good) // 2])  # truncated
    assert "corrupt" in resume_error()
    (put / "checkpoint.zip").write_bytes((put / "model.zip").read_bytes())
    assert "is a model, not a checkpoint" in resume_error()
    with zipfile.ZipFile(put / "checkpoint.zip", "w") as z:  # the state entry, no weights
        z.writestr(TRAINING_ENTRY, json.dumps({"num_timesteps": 512}))
    assert "missing data, policy.pth, policy.optimizer.pth" in resume_error()

    (put / "final_eval.json").unlink()  # as if killed before the end: --resume loads weights
    damaged = zipfile.ZipFile(put / "checkpoint.zip", "w")
    with zipfile.ZipFile(io.BytesIO(good)) as src, damaged as z:
        for item in src.infolist():  # intact zip, garbage weights
            z.writestr(item, b"garbage" if item.filename == "policy.pth" else src.read(item))
    assert "corrupt or from another run: its *.pth entries are damaged" in resume_error()

    # A Brag checkpoint in a Put run: refused before torch sees the weights.
    brag = tmp_path / "brag"
    assert train.main(smoke_args("brag_headsup_ppo_smoke", brag, "--set", "eval.every=0")) == 0
    (put / "checkpoint.zip").write_bytes((brag / "checkpoint.zip").read_bytes())
    assert "from another run: game 'brag'" in resume_error()

    # Same game and table, another network: set_parameters' state_dict error is a ValueError.
    (put / "checkpoint.zip").write_bytes(good)
    cfg = load_config(put / "config.yaml", ["ppo.net_arch=[8]"])
    venv = make_vec_env(cfg, seed=0)
    try:
        with pytest.raises(ValueError, match=r"from another run: Error\(s\) in loading state_dict"):
            load_parameters(train.build_model(cfg, venv, seed=0), put / "checkpoint.zip")
    finally:
        venv.close()


@pytest.mark.slow
def test_resume_drops_evaluations_after_the_checkpoint_and_refuses_a_finished_run(
    tmp_path, monkeypatch, capsys
):
    out = tmp_path / "run"
    args = smoke_args(
        "put_ppo_smoke",
        out,
        *("--set", "total_timesteps=2048", "--set", "checkpoint_every=1024"),
        *("--set", "eval.every=512"),
    )
    real_save = train.save_checkpoint
    calls = []

    def crash_at_second_checkpoint(*a, **kw):  # killed at step 2048, after evaluating at 1536
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        real_save(*a, **kw)

    monkeypatch.setattr(train, "save_checkpoint", crash_at_second_checkpoint)
    assert train.main(args) == 130
    monkeypatch.undo()
    evals_path = out / "evals.jsonl"
    steps = [json.loads(line)["step"] for line in evals_path.read_text().splitlines()]
    assert steps == [512, 1024, 1536]  # the checkpoint is at 1024
    (out / "eval_model.zip").write_bytes(b"left by a run killed mid-evaluation")

    assert train.main([*args, "--resume"]) == 0
    evals = [json.loads(line) for line in evals_path.read_text().splitlines()]
    assert [(e["step"], e["label"]) for e in evals] == [
        (512, "eval"),
        (1024, "eval"),
        (1536, "eval"),
        (2048, "final"),
    ]
    assert not (out / "eval_model.zip").exists()

    # A finished run: nothing to resume, exit 0, nothing appended or rewritten.
    before = evals_path.read_text(), (out / "model.zip").read_bytes()
    capsys.readouterr()
    assert train.main([*args, "--resume"]) == 0
    assert "already finished at step 2,048" in capsys.readouterr().out
    assert (evals_path.read_text(), (out / "model.zip").read_bytes()) == before


def test_build_model_passes_the_value_clipping_and_advantage_settings():
    cfg = load_config(
        ROOT / "configs" / "put_ppo_smoke.yaml",
        ["ppo.clip_range_vf=0.3", "ppo.normalize_advantage=false", "ppo.target_kl=0.02"],
    )
    venv = make_vec_env(cfg, seed=0)
    try:
        model = train.build_model(cfg, venv, seed=0)
    finally:
        venv.close()
    assert model.clip_range_vf(1.0) == 0.3 and model.normalize_advantage is False
    assert model.target_kl == 0.02


def test_build_model_turns_the_distributions_checks_off_and_trains_the_same_weights():
    import torch
    from torch.distributions import Categorical, Distribution

    cfg = load_config(ROOT / "configs" / "put_ppo_smoke.yaml", ["vec_env=batched"])
    bad = torch.tensor([-1.0, 2.0])  # not a probability vector

    def trained(validate: bool) -> dict:
        venv = make_vec_env(cfg, seed=0)
        try:
            model = train.build_model(cfg, venv, seed=0)
            Categorical(probs=bad)  # no check: no error
            Distribution.set_default_validate_args(validate)  # the reference: checks back on
            if validate:
                with pytest.raises(ValueError):
                    Categorical(probs=bad)
            model.learn(1024)
        finally:
            venv.close()
        return model.policy.state_dict()

    before = Distribution._validate_args
    try:
        checked, unchecked = trained(True), trained(False)
    finally:
        Distribution.set_default_validate_args(before)
    assert checked.keys() == unchecked.keys()
    assert all(torch.equal(checked[k], unchecked[k]) for k in checked)


@pytest.mark.slow  # a short training run
def test_a_diverged_run_is_a_one_line_error(tmp_path, capsys):
    """build_model turns torch's distribution checks off, so a policy whose logits overflow
    fails its next sample (LearnerPPO's sampler raises torch.multinomial's error): train.py
    says so in one line (exit 2), no traceback. (No
    evaluation comes first: the model loader would refuse the non-finite weights itself.)"""
    args = smoke_args("put_ppo_smoke", tmp_path / "run", "--progress", "off")
    args += ["--set", "ppo.learning_rate=1e30", "--set", "total_timesteps=4096"]
    args += ["--set", "eval.every=100000"]
    assert train.main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "training diverged by step" in err[0], err
    assert "ppo.learning_rate" in err[0]


def test_diverged_as_error_passes_other_errors_on():
    with pytest.raises(RuntimeError, match="something else"), train.diverged_as_error(None):  # type: ignore[arg-type]
        raise RuntimeError("something else")
