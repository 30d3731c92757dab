"""The config keys of the RLlib backend, checked before Ray is needed (runs in the main venv)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from brag_env.training.config import load_config

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import train  # noqa: E402

SMOKE = ROOT / "configs" / "put_rllib_smoke.yaml"


def test_rllib_smoke_configs_load_with_their_env_runner_settings():
    for name in ("put_rllib_smoke", "brag_rllib_smoke"):
        cfg = load_config(ROOT / "configs" / f"{name}.yaml")
        assert cfg.backend == "rllib"
        assert cfg.rllib.address is None
        assert cfg.rllib.num_env_runners >= 1
        assert cfg.rllib.num_cpus_per_env_runner == 1.0
    assert load_config(None).backend == "sb3"  # the default path is unchanged


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("backend=ray", "backend must be one of sb3, rllib, got 'ray'"),
        ("rllib.num_env_runners=-1", "rllib.num_env_runners must be between 0 and 4096"),
        ("rllib.num_cpus_per_env_runner=0", "rllib.num_cpus_per_env_runner must be > 0"),
        ("rllib.workers=2", "unknown config key(s): rllib.workers"),
        ("rllib.resources_per_env_runner=4", "rllib.resources_per_env_runner must be a mapping"),
    ],
)
def test_bad_rllib_keys_are_one_line_errors_naming_the_key(override, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_config(SMOKE, [override])


def test_rllib_backend_refuses_sb3_only_settings_before_writing_anything(tmp_path, capsys):
    out = tmp_path / "run"
    code = train.main(["--config", str(SMOKE), "--out", str(out), "--set", "ppo.target_kl=0.02"])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    try:
        import ray.rllib  # noqa: F401
    except ImportError:  # the main venv: Ray is missing, which is said first
        assert "backend: rllib needs Ray RLlib" in err
    else:
        assert "ppo.target_kl: backend rllib has no early stop on KL" in err
    assert not out.exists()
