"""The training config: every shipped config is valid, unknown keys and bad values are errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from brag_env.training.config import (
    TrainConfig,
    apply_override,
    config_from_dict,
    dump_config,
    load_config,
)

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))


def test_the_expected_configs_ship():
    names = {p.stem for p in CONFIGS}
    for name in ("put_ppo", "brag_ppo", "brag_headsup_ppo"):
        assert {name, f"{name}_smoke"} <= names


@pytest.mark.parametrize("path", CONFIGS, ids=[p.stem for p in CONFIGS])
def test_shipped_configs_are_valid_and_spell_out_every_key(path):
    import yaml

    cfg = load_config(path)
    assert cfg.name == path.stem
    raw = yaml.safe_load(path.read_text())
    # Every hyper-parameter is visible in the file itself, not only in the schema's defaults.
    expected = _keys(cfg.to_dict(), skip=("env",))
    if cfg.backend == "sb3":  # an SB3 config need not name the RLlib backend's keys
        expected -= {k for k in expected if k == "backend" or k.split(".")[0] == "rllib"}
    assert _keys(raw) == expected
    # The env options are valid options of the game.
    from brag_env.selfplay import make_aec_env

    make_aec_env(cfg.game, cfg.env)


def _keys(d: dict, prefix: str = "", skip: tuple[str, ...] = ()) -> set[str]:
    out = set()
    for k, v in d.items():
        out.add(prefix + k)
        if isinstance(v, dict) and k not in skip and prefix + k != "env":
            out |= _keys(v, f"{prefix}{k}.")
    return out


def test_smoke_configs_are_small():
    for path in CONFIGS:
        if path.stem.endswith("_smoke"):
            cfg = load_config(path)
            assert cfg.total_timesteps <= 4096 and cfg.eval.final_episodes <= 100


def test_defaults_round_trip_through_yaml(tmp_path):
    cfg = load_config(None, ["game=brag", "ppo.net_arch=[16, 8]"])
    path = tmp_path / "c.yaml"
    path.write_text(dump_config(cfg))
    assert load_config(path) == cfg


@pytest.mark.parametrize(
    "raw, match",
    [
        ({"learning_rate": 1e-3}, r"unknown config key\(s\): learning_rate"),
        ({"ppo": {"lr": 1e-3}}, r"unknown config key\(s\): ppo\.lr; known keys in ppo"),
        ({"eval": {"opponent": ["random"]}}, r"eval\.opponent"),
        ({"ppo": 3}, "ppo must be a mapping"),
        ({"n_envs": "8"}, "n_envs must be an integer"),
        ({"n_envs": True}, "n_envs must be an integer"),
        ({"ppo": {"gamma": "high"}}, "ppo.gamma must be a number"),
        ({"ppo": {"net_arch": 64}}, "ppo.net_arch must be a list"),
        ({"pool": {"opponents": ["random", 3]}}, r"pool\.opponents\[1\] must be a string"),
        ({"eval": {"deterministic": "yes"}}, "eval.deterministic must be true or false"),
        ({"env": [1]}, "env must be a mapping"),
        ({"game": "chess"}, "game must be one of brag, put"),
        ({"vec_env": "ray"}, "vec_env must be one of dummy, subproc"),
        ({"ppo": {"activation": "gelu"}}, "ppo.activation must be one of"),
        ({"n_envs": 0}, "n_envs must be between 1 and 16384"),
        ({"ppo": {"gamma": 1.5}}, "ppo.gamma must be between 0 and 1"),
        ({"ppo": {"learning_rate": 0}}, "ppo.learning_rate must be > 0"),
        ({"ppo": {"batch_size": 4096}}, "exceeds a rollout"),
        ({"pool": {"opponents": []}}, "pool.opponents must name at least one"),
        ({"eval": {"opponents": []}}, "eval.opponents must name at least one"),
        ({"ppo": {"target_kl": 0}}, "ppo.target_kl must be > 0 or null"),
        ({"ppo": {"target_kl": -0.01}}, "ppo.target_kl must be > 0 or null"),
        ({"ppo": {"clip_range_vf": 0}}, "ppo.clip_range_vf must be > 0 or null"),
        ({"ppo": {"n_steps": 100, "batch_size": 300}, "n_envs": 8}, "must divide a rollout"),
        ({"eval": {"seed": "one"}}, "eval.seed must be an integer"),
        ({"name": "a/b"}, "name must be a plain directory name"),
        ({"eval": {"every": -1}}, "eval.every must be between 0 and 10000000000"),
    ],
)
def test_bad_configs_name_the_key(raw, match):
    with pytest.raises(ValueError, match=match):
        config_from_dict(raw)


def test_set_overrides_nested_keys_with_yaml_values():
    cfg = load_config(
        None,
        [
            "total_timesteps=20000",
            "ppo.learning_rate=1e-4",  # YAML 1.1 reads this as a string: still a number here
            "pool.opponents=[random, brag:tight]",
            "env.num_players=2",
            "game=brag",
        ],
    )
    assert cfg.total_timesteps == 20000
    assert cfg.ppo.learning_rate == pytest.approx(1e-4)
    assert cfg.pool.opponents == ["random", "brag:tight"]
    assert cfg.env == {"num_players": 2}


@pytest.mark.parametrize(
    "item, match",
    [
        ("total_timesteps", "expects key=value"),
        ("=3", "expects key=value"),
        ("n_envs.x=3", "n_envs is not a section"),
        ("ppo.batch_size=[1", "not valid YAML"),
    ],
)
def test_bad_overrides_are_errors(item, match):
    raw = {"n_envs": 4}
    with pytest.raises(ValueError, match=match):
        apply_override(raw, item)


def test_unknown_override_key_is_an_error():
    with pytest.raises(ValueError, match="unknown config key"):
        load_config(None, ["ppo.nsteps=3"])


def test_missing_or_broken_files_are_errors(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        load_config(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: [1\n")
    with pytest.raises(ValueError, match="not valid YAML"):
        load_config(bad)
    bad.write_text("- 1\n- 2\n")
    with pytest.raises(ValueError, match="mapping"):
        load_config(bad)


def test_iterations_round_up_to_whole_rollouts():
    cfg = TrainConfig(total_timesteps=1000, n_envs=4)
    cfg.ppo.n_steps = 128
    assert cfg.rollout_steps == 512 and cfg.num_iterations == 2


def test_docs_list_every_key_with_its_bounds_and_default():
    """docs/training.md carries the schema's table (``python -m brag_env.training.config``)."""
    from brag_env.training.config import schema_table

    docs = (ROOT / "docs" / "training.md").read_text(encoding="utf-8")
    for row in schema_table().splitlines():
        assert row in docs, f"docs/training.md lacks the row: {row}"


@pytest.mark.parametrize(
    "value, match",
    [
        ({"schedule": "cosine", "start": 1, "end": 2}, "ppo.learning_rate.schedule must be one of"),
        ({"schedule": "linear", "start": 0, "end": 2}, r"ppo.learning_rate.start must be > 0"),
        ({"schedule": "linear", "start": 1}, "ppo.learning_rate.end is required"),
        ({"schedule": "linear", "start": 1, "end": 1, "steps": 3}, "ppo.learning_rate.steps"),
        ("fast", r"ppo.learning_rate must be a number > 0 or a schedule mapping"),
        (-1.0, "ppo.learning_rate must be > 0, got -1.0"),
    ],
)
def test_bad_schedules_name_the_key(value, match):
    with pytest.raises(ValueError, match=match):
        config_from_dict({"ppo": {"learning_rate": value}})


def test_schedules_interpolate_and_round_trip(tmp_path):
    cfg = load_config(
        None,
        [
            "ppo.learning_rate={schedule: linear, start: 1.0e-3, end: 1.0e-5}",
            "ppo.clip_range={schedule: exponential, start: 0.4, end: 0.1}",
        ],
    )
    lr, clip = cfg.ppo.learning_rate, cfg.ppo.clip_range
    assert [lr(p) for p in (1.0, 0.5, 0.0)] == pytest.approx([1e-3, 5.05e-4, 1e-5])
    assert [clip(p) for p in (1.0, 0.5, 0.0)] == pytest.approx([0.4, 0.2, 0.1])
    path = tmp_path / "c.yaml"
    path.write_text(dump_config(cfg))
    assert load_config(path) == cfg
    assert "schedule: linear" in path.read_text()


@pytest.mark.parametrize(
    "raw, match",
    [
        ({"seed": -1}, "seed must be between 0 and 2147483647, got -1"),
        ({"env": {"bogus": 1}}, r"env: unknown Put option\(s\): bogus"),
        ({"game": "brag", "env": {"min_stake": 3}}, "env.min_stake must be even"),
        ({"env": {"num_players": None}}, "env.num_players must be an integer"),
        ({"env": {1: 2}}, "env keys must be strings"),
        (
            {"ppo": {"n_steps": "x"}},
            r"ppo.n_steps must be an integer between 1 and 2097152, got 'x'",
        ),
        ({"ppo": {"net_arch": [0]}}, r"ppo.net_arch\[0\] must be between 1 and 8192, got 0"),
        ({"ppo": {"gamma": "nan"}}, "ppo.gamma must be between 0 and 1"),
        ({"reward_scale": "inf"}, "reward_scale must be a number > 0"),
        ({"episode": "hand"}, "episode: hand needs game: put with env.reward: points"),
        (
            {"episode": "hand", "env": {"reward": "points"}, "backend": "rllib"},
            "episode: hand needs backend: sb3",
        ),
        ({"episode": "deal"}, "episode must be one of"),
    ],
)
def test_more_bad_configs_name_the_key(raw, match):
    with pytest.raises(ValueError, match=match):
        config_from_dict(raw)


def test_empty_directory_and_broken_yaml_are_one_line_errors(tmp_path):
    empty = tmp_path / "empty.yaml"
    empty.write_text("\n# only a comment\n")
    with pytest.raises(ValueError, match="is empty"):
        load_config(empty)
    with pytest.raises(ValueError, match="is a directory"):
        load_config(tmp_path)
    bad = tmp_path / "bad.yaml"
    bad.write_text("ppo:\n  n_steps: 1\n bad: 2\n")
    with pytest.raises(ValueError) as info:
        load_config(bad)
    assert str(info.value).startswith(f"{bad}:3:") and "\n" not in str(info.value)
