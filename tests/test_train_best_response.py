"""Learned best responses (``br.target``) and the pool options for better self-play.

The config mode, the envs it builds (the target alone, no snapshots), the report's estimator and
labels, and end-to-end smoke runs of train.py in best-response mode for both games.
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from brag_env.evaluation.stats import mean_ci
from brag_env.selfplay import OpponentPool, VsPoolEnv
from brag_env.training.best_response import best_response_report, role_balanced, target_result
from brag_env.training.config import load_config
from brag_env.training.envs import make_vec_env

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from brag_env.training import cli as train  # noqa: E402  (what train.py runs)

BR_CONFIGS = (
    "brag_headsup_br",
    "brag_headsup_br_batched",
    "brag_br",
    "brag_br_long",
    "put_br",
    "put_br_hand",
)


# --- the config -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", BR_CONFIGS)
def test_shipped_br_configs_train_against_their_target_alone(name):
    cfg = load_config(ROOT / "configs" / f"{name}.yaml")
    assert cfg.br.target is not None
    assert cfg.opponent_specs == [cfg.br.target]
    assert cfg.eval_specs[0] == cfg.br.target
    assert cfg.pool.snapshot_every == 0


def test_self_play_configs_ship_with_br_off():
    for path in sorted((ROOT / "configs").glob("*.yaml")):
        if path.stem not in BR_CONFIGS:
            assert load_config(path).br.target is None, path.name


def test_br_target_replaces_the_pool_and_leads_the_evaluation():
    cfg = load_config(
        ROOT / "configs" / "brag_headsup_br.yaml",
        ["br.target=brag:never_look", "eval.opponents=[random, brag:never_look]"],
    )
    assert cfg.opponent_specs == ["brag:never_look"]
    assert cfg.eval_specs == ["brag:never_look", "random"]  # the target once, first


@pytest.mark.parametrize(
    "overrides, match",
    [
        (["pool.opponents=[random]"], r"pool\.opponents must be \[\] \(or \[brag:tight\]\)"),
        (["pool.opponents=[brag:tight, random]"], r"br\.target 'brag:tight' is the only opponent"),
        (["pool.snapshot_every=1000"], r"pool\.snapshot_every must be 0, got 1000"),
        (["br.target=brag:nosuch"], r"^br\.target: "),
        (["br.target=put:caller"], r"^br\.target: "),  # a Put agent at a Brag table
        (["br.target=3"], r"br\.target must be a string or null, got 3"),
        (["br.goal=1"], r"unknown config key\(s\): br\.goal; known keys in br: target"),
    ],
)
def test_contradicting_br_configs_are_one_line_errors(overrides, match):
    with pytest.raises(ValueError, match=match) as info:
        load_config(ROOT / "configs" / "brag_headsup_br.yaml", overrides)
    assert "\n" not in str(info.value)


def test_br_target_names_its_pool_entry_when_given_twice():
    cfg = load_config(ROOT / "configs" / "brag_headsup_br.yaml", ["pool.opponents=[brag:tight]"])
    assert cfg.opponent_specs == ["brag:tight"]


def test_br_with_the_rllib_backend_is_refused():
    with pytest.raises(ValueError, match=r"br\.target needs backend: sb3"):
        load_config(
            ROOT / "configs" / "put_rllib_smoke.yaml",
            ["br.target=put:caller", "pool.opponents=[]", "pool.snapshot_every=0"],
        )


def test_self_play_still_needs_a_pool():
    with pytest.raises(ValueError, match=r"pool\.opponents must name at least one entry, got \[\]"):
        load_config(ROOT / "configs" / "put_ppo.yaml", ["pool.opponents=[]"])


def test_a_model_file_target_must_exist_and_fit_the_table(tmp_path):
    missing = tmp_path / "gone.zip"
    with pytest.raises(ValueError, match=r"^br\.target: cannot load model .*gone\.zip.*no such"):
        load_config(ROOT / "configs" / "put_br.yaml", [f"br.target={missing}"])


# --- the envs of a best-response run ----------------------------------------------------------


def test_br_envs_seat_the_target_in_every_other_seat():
    cfg = load_config(
        ROOT / "configs" / "brag_br.yaml", ["n_envs=2", "ppo.n_steps=256", "ppo.batch_size=512"]
    )
    venv = make_vec_env(cfg, seed=0)
    try:
        pools = venv.get_attr("pool")
        assert [p.baselines for p in pools] == [["brag:tight"]] * 2
        assert all(p.snapshots == [] for p in pools)
        specs = venv.get_attr("_opponent_specs")
        venv.reset()
        for _ in range(50):
            masks = np.stack(venv.env_method("action_masks"))
            venv.step(masks.argmax(axis=1))
        for env_specs, seat in zip(
            venv.get_attr("_opponent_specs"), venv.get_attr("_seat"), strict=True
        ):
            assert [s for i, s in enumerate(env_specs) if i != seat] == ["brag:tight"] * 3
        assert specs  # the attribute exists before the first reset too
    finally:
        venv.close()


# --- pool options for self-play ---------------------------------------------------------------


def test_latest_sampling_always_draws_the_newest_snapshot():
    pool = OpponentPool(["random"], ["a.zip", "b.zip", "c.zip"], 1.0, 5, sampling="latest")
    rng = np.random.default_rng(0)
    assert {pool.draw(rng) for _ in range(200)} == {"c.zip"}
    pool.add_snapshot("d.zip")
    assert {pool.draw(rng) for _ in range(50)} == {"d.zip"}


def test_uniform_sampling_draws_every_kept_snapshot_alike():
    pool = OpponentPool(["random"], [f"{k}.zip" for k in range(6)], 1.0, 4, sampling="uniform")
    rng = np.random.default_rng(1)
    draws = [pool.draw(rng) for _ in range(4000)]
    counts = {spec: draws.count(spec) for spec in set(draws)}
    assert set(counts) == {"2.zip", "3.zip", "4.zip", "5.zip"}  # the 4 newest are kept
    assert all(abs(c - 1000) < 120 for c in counts.values()), counts


def test_unknown_snapshot_sampling_is_refused():
    with pytest.raises(ValueError, match="snapshot_sampling must be one of uniform, latest"):
        OpponentPool(["random"], sampling="oldest")
    with pytest.raises(ValueError, match=r"pool\.snapshot_sampling must be one of uniform, latest"):
        load_config(ROOT / "configs" / "put_ppo.yaml", ["pool.snapshot_sampling=oldest"])
    with pytest.raises(ValueError, match="the rllib backend samples snapshots uniformly only"):
        load_config(ROOT / "configs" / "put_rllib_smoke.yaml", ["pool.snapshot_sampling=latest"])


@pytest.mark.parametrize("vec_env, n_steps", [("dummy", 128), ("batched", 128)])
def test_the_envs_of_a_run_follow_pool_snapshot_sampling(vec_env, n_steps):
    cfg = load_config(
        ROOT / "configs" / "put_ppo_smoke.yaml",
        [f"vec_env={vec_env}", f"ppo.n_steps={n_steps}", "pool.snapshot_sampling=latest"],
    )
    venv = make_vec_env(cfg, seed=0)
    try:
        inner = venv.venv
        pools = [inner.pool] if vec_env == "batched" else inner.get_attr("pool")
        assert [p.sampling for p in pools] == ["latest"] * len(pools)
    finally:
        venv.close()


def test_never_look_plays_in_the_pool_and_never_looks():
    from agents.brag import NeverLook
    from brag_env.brag.rules import LOOK

    cfg = load_config(
        ROOT / "configs" / "brag_headsup_ppo.yaml", ["pool.opponents=[brag:never_look]"]
    )
    assert cfg.pool.opponents == ["brag:never_look"]
    env = VsPoolEnv(game="brag", env_config=cfg.env, opponents=cfg.pool.opponents, seed=3)
    actions = []
    env.reset()
    (probe,) = [a for a in env._opponents if a is not None]
    assert isinstance(probe, NeverLook)
    act = probe.act
    probe.act = lambda obs, mask: actions.append(act(obs, mask)) or actions[-1]
    rng = np.random.default_rng(0)
    for _ in range(300):
        legal = np.flatnonzero(env.action_masks())
        _, _, done, _, _ = env.step(int(rng.choice(legal)))
        if done:
            env.reset()
    assert len(actions) > 50 and LOOK not in actions


# --- the report ---------------------------------------------------------------------------------


def test_role_balanced_is_the_mean_of_the_two_role_means():
    # Match 0: two non-dealer hands (+1, +1) and one dealer hand (-2); match 1: one of each.
    hands = [(0, 0, 1.0), (0, 0, 1.0), (0, 1, -2.0), (1, 0, -1.0), (1, 1, 2.0)]
    est = role_balanced(hands)
    non_dealer, dealer = (1 + 1 - 1) / 3, (-2 + 2) / 2
    assert est.mean == pytest.approx((non_dealer + dealer) / 2)  # not the pooled mean 0.2
    assert est.n == 5 and est.units == 2


def test_role_balanced_ci_is_the_plain_ci_with_one_hand_per_role_and_match():
    rng = np.random.default_rng(5)
    nd, d = rng.normal(0.3, 1, 400), rng.normal(0.7, 1, 400)
    hands = [(g, 0, nd[g]) for g in range(400)] + [(g, 1, d[g]) for g in range(400)]
    est = role_balanced(hands)
    plain = mean_ci((nd + d) / 2)
    assert est.mean == pytest.approx(plain.mean)
    assert est.half_width == pytest.approx(plain.half_width)


def test_role_balanced_needs_both_roles():
    assert math.isnan(role_balanced([(0, 0, 1.0), (1, 0, 1.0)]).mean)
    assert role_balanced([]).n == 0


def test_put_report_splits_hands_by_role_consistently():
    """Baselines stand in for the learner: the role split must add up to the pooled figure, and
    the dealer (who answers every lead, docs/solver.md) must do better than the non-dealer."""
    report = best_response_report("put", "put:greedy", "put:greedy", 600, 0, {"num_players": 2})
    f = report["figures"]
    nd, d = f["points_per_hand_non_dealer"], f["points_per_hand_dealer"]
    assert nd["n"] + d["n"] == f["points_per_hand"]["n"]
    pooled = (nd["mean"] * nd["n"] + d["mean"] * d["n"]) / (nd["n"] + d["n"])
    assert pooled == pytest.approx(f["points_per_hand"]["mean"])
    assert d["mean"] > nd["mean"] and d["ci_low"] > nd["ci_high"]
    assert report["bound_metric"] == "points_per_hand_role_balanced"
    assert report["bound"]["mean"] == pytest.approx((nd["mean"] + d["mean"]) / 2)
    assert f["match_win_rate"]["unit"] == "share of matches"


# --- end to end -------------------------------------------------------------------------------


TINY = [
    "total_timesteps=512",
    "n_envs=2",
    "ppo.n_steps=256",
    "ppo.batch_size=256",
    "eval.every=0",
    "eval.final_episodes=40",
    "ppo.net_arch=[16]",
    "checkpoint_every=512",
]


@pytest.mark.slow
@pytest.mark.parametrize(
    "name, target, metric, unit",
    [
        ("brag_headsup_br", "brag:never_look", "payoff", "antes/hand"),
        ("put_br_hand", "put:caller", "points_per_hand_role_balanced", "points/hand"),
    ],
)
def test_br_run_reports_the_labelled_lower_bound(tmp_path, capsys, name, target, metric, unit):
    out = tmp_path / name
    argv = ["--config", str(ROOT / "configs" / f"{name}.yaml"), "--out", str(out)]
    argv += ["--progress", "off", "--set", f"br.target={target}"]
    for item in TINY:
        argv += ["--set", item]
    assert train.main(argv) == 0
    printed = capsys.readouterr().out
    report = json.loads((out / "best_response.json").read_text())
    assert report["target"] == target and report["bound_metric"] == metric
    assert report["label"].startswith(f"lower bound on the exploitability of {target} ({unit})")
    bound = report["bound"]
    assert bound == report["figures"][metric] and bound["unit"] == unit
    assert bound["ci_low"] <= bound["mean"] <= bound["ci_high"] and bound["n"] >= 40
    assert f"lower bound on the exploitability of {target}: {bound['mean']:+.4f}" in printed
    # The final evaluation leads with the target; no snapshot of the learner was ever taken.
    final = json.loads((out / "final_eval.json").read_text())
    assert final[0]["opponent"] == target
    assert not list(out.glob("snapshots/*.zip"))
    if name.startswith("put"):
        assert set(report["figures"]) == {
            "points_per_hand", "match_win_rate", "points_per_hand_non_dealer",
            "points_per_hand_dealer", "points_per_hand_role_balanced",
        }  # fmt: skip
        assert report["figures"]["match_win_rate"]["mean"] == pytest.approx(final[0]["mean"])
        # The trained model is an agent spec: a target itself, for the table it was trained on.
        model = str(out / "model.zip")
        cfg = load_config(ROOT / "configs" / f"{name}.yaml", [f"br.target={model}"])
        assert cfg.opponent_specs == [model]
        with pytest.raises(ValueError, match=r"^br\.target: .*other table options"):
            load_config(ROOT / "configs" / "put_br.yaml", [f"br.target={model}"])
    else:
        assert bound["mean"] == pytest.approx(final[0]["mean"])


# --- br.init: a warm start ---------------------------------------------------------------------


def _br4(*overrides: str):
    return load_config(ROOT / "configs" / "brag_br.yaml", list(overrides))


def test_br_init_starts_the_learner_from_the_models_weights():
    import torch

    from agents.model import load_policy

    cfg = _br4("br.init=model:brag_selfplay")
    weights = train.load_init_weights(cfg)
    venv = make_vec_env(cfg, seed=0)
    try:
        model = train.build_model(cfg, venv, seed=0)
        fresh = {k: v.clone() for k, v in model.policy.state_dict().items()}
        model.policy.load_state_dict(weights, strict=True)
    finally:
        venv.close()
    shipped = load_policy(ROOT / "models" / "brag_selfplay.zip")[0].state_dict()
    loaded = model.policy.state_dict()
    assert all(torch.equal(loaded[k], shipped[k]) for k in shipped)
    assert not all(torch.equal(fresh[k], shipped[k]) for k in shipped)
    assert train.load_init_weights(_br4()) is None  # br.init: null, fresh weights


@pytest.mark.parametrize(
    "overrides, message",
    [
        (["br.init=brag:tight"], "br.init must be a model file or model:NAME"),
        (["br.init=model:brag_headsup_selfplay"], "num_players"),  # a heads-up model, 4 seats
        (["br.init=model:brag_selfplay", "ppo.net_arch=[64, 64]"], "does not match ppo.net_arch"),
        (["br.init=runs/no_such_model.zip"], "no such file"),
    ],
)
def test_br_init_refuses_a_model_of_another_table_or_network_in_one_line(overrides, message):
    with pytest.raises(ValueError, match=message) as error:
        train.load_init_weights(_br4(*overrides))
    assert "\n" not in str(error.value)


def test_br_init_needs_the_sb3_backend():
    with pytest.raises(ValueError, match=r"br\.init needs backend: sb3"):
        load_config(ROOT / "configs" / "brag_rllib_smoke.yaml", ["br.init=model:brag_selfplay"])


@pytest.mark.slow  # a whole session of four seats, each rotation: about 0.4 s
def test_a_seven_card_brag_best_response_is_bounded_by_the_payoff_per_deal():
    # B24: a game whose headline is the payoff takes the payoff route (it used to take Put's
    # role tournament and fail on the brag7 target); its unit is antes per deal.
    report = best_response_report("brag7", "random", "brag7:balanced", 1, 0, {})
    assert report["num_players"] == 4 and report["bound_metric"] == "payoff"
    assert report["bound"]["unit"] == "antes/deal" and report["bound"]["n"] > 0
    assert target_result(report, "brag7")["metric"] == "payoff (antes/deal)"
