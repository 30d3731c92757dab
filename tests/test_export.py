"""Shipping a model: export a tiny trained run (weights and record only), load it back as an agent
spec (a path or ``model:NAME``) in evaluate and play, show its record, refuse bad input."""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents import (
    make_agent,
    parse_spec,
    registry,
    table_info,
)
from brag_env.training import export

SMOKE = "configs/brag_headsup_ppo_smoke.yaml"
# A few hundred steps: one rollout of 2 envs x 128 steps.
OVERRIDES = ["total_timesteps=256", "n_envs=2", "eval.episodes=4", "eval.final_episodes=4"]
TABLE = {"num_players": 2, "ante": 1, "min_stake": 2, "max_stake": 32, "raise_sizes": [2]}


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    from brag_env.training.cli import main as train_main

    out = tmp_path_factory.mktemp("run")
    argv = ["--config", SMOKE, "--out", str(out), "--progress", "off"]
    for item in OVERRIDES:
        argv += ["--set", item]
    assert train_main(argv) == 0
    return out


@pytest.fixture(scope="module")
def exported(run_dir, tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("models") / "tiny.zip"
    assert export.main([str(run_dir / "model.zip"), str(dest)]) == 0
    return dest


def _probabilities(spec: str, seed: int = 0) -> np.ndarray:
    from brag_env import brag_v1

    table = table_info("brag", **TABLE)
    agent = make_agent(spec, table, seed)
    env = brag_v1.env(**TABLE)
    env.reset(seed=seed)
    rows = []
    for _ in range(6):
        obs = env.observe(env.agent_selection)
        legal = np.flatnonzero(obs["action_mask"])
        if legal.size == 0:  # the hand is over
            break
        rows.append(agent.action_probabilities(obs["observation"], obs["action_mask"]))
        env.step(int(legal[-1]))  # the last legal action: a stay or a raise, never a fold
    return np.array(rows)


@pytest.mark.slow
def test_the_export_holds_the_weights_and_the_record_only(run_dir, exported):
    with zipfile.ZipFile(exported) as archive:
        names = sorted(archive.namelist())
        data = json.loads(archive.read("data"))
        record = json.loads(archive.read("brag_env_model.json"))
        weights = archive.read("policy.pth")
    with zipfile.ZipFile(run_dir / "model.zip") as source:
        assert "policy.optimizer.pth" in source.namelist()  # what the export leaves out
        assert weights == source.read("policy.pth")  # the weights byte for byte
    assert names == ["brag_env_model.json", "data", "policy.pth"]  # no optimizer, no buffers
    assert sorted(data) == sorted(export.KEPT_DATA)
    pickled = [v for v in data.values() if isinstance(v, dict) and ":serialized:" in v]
    assert pickled and all(v[":serialized:"] == "" for v in pickled)  # no pickle left
    size = exported.stat().st_size
    assert size < export.MAX_EXPORT_BYTES and size < (run_dir / "model.zip").stat().st_size / 2
    assert record["game"] == "brag" and record["env_config"] == {**TABLE, "hands_per_session": 1}
    training = record["export"]
    assert training["seed"] == 0 and training["total_timesteps"] == 256
    assert training["num_timesteps"] == 256 and training["run_file"] == "model.zip"
    assert training["config"]["n_envs"] == 2 and training["config"]["name"] == (
        "brag_headsup_ppo_smoke"
    )
    assert training["command"] is None  # --set overrides: no file in configs/ is this config
    assert len(training["source_sha256"]) == 64 and "torch" in training["versions"]


@pytest.mark.slow
def test_the_exported_model_plays_like_the_source(run_dir, exported):
    assert np.array_equal(_probabilities(str(exported)), _probabilities(str(run_dir / "model.zip")))
    from brag_env.evaluation import evaluate

    result = evaluate("brag", [str(exported), "random"], 8, seed=0, options=TABLE)
    assert result.agents[0].payoff.n == 8


@pytest.mark.slow
def test_exports_are_reproducible_and_refuse_to_overwrite(run_dir, exported, tmp_path, capsys):
    again = tmp_path / "again.zip"
    assert export.main([str(run_dir / "model.zip"), str(again)]) == 0
    assert again.read_bytes() == exported.read_bytes()  # same source, same bytes
    capsys.readouterr()
    assert export.main([str(run_dir / "model.zip"), str(again)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "already exists" in err and "--force" in err
    assert export.main([str(run_dir / "model.zip"), str(again), "--force"]) == 0
    # Re-exporting an exported model keeps the original record.
    copy = tmp_path / "copy.zip"
    assert export.main([str(exported), str(copy)]) == 0
    assert export.read_record(copy) == export.read_record(exported)


@pytest.mark.slow
def test_model_name_specs_load_from_the_models_folder(exported, tmp_path, monkeypatch):
    folder = tmp_path / "models"
    folder.mkdir()
    shutil.copy(exported, folder / "tiny.zip")
    monkeypatch.setattr(registry, "MODELS_DIR", folder)
    spec = parse_spec("model:tiny:deterministic=true", "brag")
    assert spec.kind == "model" and spec.path == str(folder / "tiny.zip")
    assert spec.label == "model:tiny:deterministic=true" and spec.params == {"deterministic": True}
    assert registry.shipped_models() == ["tiny"]
    assert np.array_equal(_probabilities("model:tiny"), _probabilities(str(exported)))
    with pytest.raises(ValueError, match=r"no shipped model 'nope'.*\(shipped: tiny\)"):
        parse_spec("model:nope")
    for bad in ("model:../tiny", "model:tiny.zip", "model:", "model:a/b"):
        with pytest.raises(ValueError, match="model:<name> takes the name of a file in models/"):
            parse_spec(bad)


@pytest.mark.slow
def test_play_and_evaluate_take_a_shipped_model(exported, tmp_path, monkeypatch, capsys):
    import evaluate as evaluate_cli
    from brag_env.play import main as play_main

    folder = tmp_path / "models"
    folder.mkdir()
    shutil.copy(exported, folder / "tiny.zip")
    monkeypatch.setattr(registry, "MODELS_DIR", folder)
    options = [f"--option={k}={json.dumps(v).replace(' ', '')}" for k, v in TABLE.items()]
    argv = ["--game", "brag", "--agents", "model:tiny", "brag:tight", "--hands", "4"]
    assert evaluate_cli.main([*argv, *options, "--no-progress"]) == 0
    assert "model:tiny" in capsys.readouterr().out
    out = io.StringIO()
    play = ["brag", "--opponents", "model:tiny", "--seed", "1", "--hands", "1"]
    code = play_main([*play, *options], stdin=io.StringIO("2\n" * 40), stdout=out)
    assert code == 0 and "seat 1: model:tiny" in out.getvalue()


@pytest.mark.slow
def test_info_prints_the_record_and_writes_the_config(run_dir, exported, tmp_path, capsys):
    from brag_env.training.config import load_config

    assert export.main(["--info", str(exported)]) == 0
    text = capsys.readouterr().out
    assert f"{exported}: {exported.stat().st_size:,} bytes" in text
    assert "seed 0, 256 steps configured" in text and "256 steps" in text
    assert "--write-config run.yaml && python train.py --config run.yaml" in text
    out = tmp_path / "run.yaml"
    assert export.main(["--info", str(exported), "--write-config", str(out)]) == 0
    assert load_config(out).to_dict() == load_config(run_dir / "config.yaml").to_dict()
    assert export.main(["--info", str(exported), "--write-config", str(out)]) == 2  # no --force
    assert export.main(["--info", str(run_dir / "model.zip")]) == 0
    assert "no export record" in capsys.readouterr().out


@pytest.mark.slow  # loads every config in configs/
def test_the_reproduce_command_names_a_config_file_only_when_it_matches():
    from brag_env.training.config import load_config

    cfg = load_config(SMOKE, ["seed=7"])
    assert export._reproduce_command(cfg) == f"python train.py --config {SMOKE} --seed 7"
    changed = load_config(SMOKE, ["seed=7", "total_timesteps=2048"])
    assert export._reproduce_command(changed) is None


@pytest.mark.slow
def test_bad_sources_and_corrupt_models_are_one_line_errors(run_dir, exported, tmp_path, capsys):
    def fails(argv: list[str], needle: str) -> None:
        capsys.readouterr()
        assert export.main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and needle in err, err

    lone = tmp_path / "lone" / "model.zip"  # no config.yaml beside it: no recipe to record
    lone.parent.mkdir()
    shutil.copy(run_dir / "model.zip", lone)
    fails([str(lone), str(tmp_path / "a.zip")], "no config.yaml of its run")
    fails([str(run_dir / "config.yaml"), str(tmp_path / "b.zip")], "not a zip archive")
    fails([str(run_dir / "model.zip"), str(tmp_path / "c.txt")], "must end in .zip")
    fails([str(tmp_path / "missing.zip"), str(tmp_path / "d.zip")], "no such file")
    truncated = tmp_path / "truncated.zip"
    truncated.write_bytes(exported.read_bytes()[:-200])
    fails(["--info", str(truncated)], "cannot load model")
    with pytest.raises(ValueError, match="cannot load model"):
        make_agent(str(truncated), table_info("brag", **TABLE))
    # Weights that do not fit the recorded network: a one-line error, not a torch traceback.
    wrong = tmp_path / "wrong.zip"
    with zipfile.ZipFile(exported) as zin, zipfile.ZipFile(wrong, "w") as zout:
        for item in zin.infolist():
            payload = zin.read(item.filename)
            if item.filename == "data":
                data = json.loads(payload)
                data["policy_kwargs"]["net_arch"] = {"pi": [8], "vf": [8]}
                payload = json.dumps(data).encode()
            zout.writestr(item, payload)
    fails(["--info", str(wrong)], "its weights do not fit its policy")
    # A tampered export record.
    tampered = tmp_path / "tampered.zip"
    with zipfile.ZipFile(exported) as zin, zipfile.ZipFile(tampered, "w") as zout:
        for item in zin.infolist():
            payload = zin.read(item.filename)
            if item.filename == "brag_env_model.json":
                payload = json.dumps({**json.loads(payload), "export": [1, 2]}).encode()
            zout.writestr(item, payload)
    fails(["--info", str(tampered)], "its export record is not a mapping")


@pytest.mark.slow
def test_an_oversized_export_is_refused(run_dir, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(export, "MAX_EXPORT_BYTES", 1000)
    dest = tmp_path / "big.zip"
    assert export.main([str(run_dir / "model.zip"), str(dest)]) == 2
    assert "a few MB at most" in capsys.readouterr().err and not dest.exists()


@pytest.mark.slow
def test_training_can_start_from_an_exported_model(exported, run_dir):
    """The documented way to fine-tune a shipped model: set_parameters, exact_match=False."""
    import torch
    from sb3_contrib import MaskablePPO

    from agents.model import load_policy
    from brag_env.training.cli import build_model
    from brag_env.training.config import load_config
    from brag_env.training.envs import make_vec_env

    cfg = load_config(run_dir / "config.yaml")
    venv = make_vec_env(cfg, seed=0, snapshots=[])
    try:
        model: MaskablePPO = build_model(cfg, venv, seed=1)
        model.set_parameters(str(exported), exact_match=False, device="cpu")
        shipped, _ = load_policy(exported)
        for name, tensor in shipped.state_dict().items():
            assert torch.equal(model.policy.state_dict()[name], tensor), name
    finally:
        venv.close()
