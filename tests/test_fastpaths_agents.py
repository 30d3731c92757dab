"""The fast agent paths decide exactly as before: Put baselines, snapshot ModelAgent, batches."""

import hashlib
import importlib.util
from pathlib import Path

import numpy as np
import pytest
import torch

from agents import make_agent, table_info_from_env
from agents.model import ModelAgent
from brag_env import put_v0
from brag_env.games import GAME_NAMES
from tests.seat_spaces import SeatSpaces

# sha256 of the decisions of ``_decisions`` computed with the code before the fast paths
# (commit 03d10b7): numpy views per field, float64 forward pass.
BASELINE_DECISIONS = {
    2: "cda68cfe80103567a68f58e8dc5dcea9397581a5714c312afff7b82bee3821fe",
    3: "fef0e236fb70d5ff9f77ced2609435f95cc59300b1ba6c5726132bb1b26426f0",
    4: "7ca45b61467630a8855776f4bd7cb167734e9872d38e159c4f77478ccf2bb06e",
}


def _bench_module():
    """bench/agent_speed.py, loaded from its file (bench/ is not a package)."""
    path = Path(__file__).resolve().parents[1] / "bench" / "agent_speed.py"
    spec = importlib.util.spec_from_file_location("bench_agent_speed", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_bench = _bench_module()
_record = _bench.record  # (observation, mask) of every decision of random play


@pytest.mark.slow
def test_agent_speed_bench_runs(capsys):
    """The whole bench: every baseline and a saved model seated at its own game's table, the
    games in the game table's order."""
    assert _bench.main(["--decisions", "30"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    expected = [
        label
        for game in GAME_NAMES
        if game in _bench.TIMED
        for label in (*_bench.TIMED[game].baselines, f"{game}:model")
    ]
    assert [row.split()[0] for row in rows] == expected
    assert len(rows) == 12  # Brag 3 + 1, Put 4 + 1, Seven-card Brag 2 + 1


SPECS = ("put:greedy", "put:caller", "put:bluffer", "put:bluffer:bluff=1.0")


def _decisions(num_players: int) -> str:
    env = put_v0.raw_env(num_players=num_players)
    samples = _record(env, 3000, 1)
    table = table_info_from_env(env)
    text = []
    for spec in SPECS:
        agent = make_agent(spec, table, seed=3)
        text.append(",".join(str(agent.act(o, m)) for o, m in samples))
    return hashlib.sha256(";".join(text).encode()).hexdigest()


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_put_baselines_decide_as_before_P1_P8(num_players):
    assert _decisions(num_players) == BASELINE_DECISIONS[num_players]


@pytest.fixture(scope="module")
def put_model(tmp_path_factory):
    from sb3_contrib import MaskablePPO

    torch.manual_seed(0)
    model = MaskablePPO(
        "MlpPolicy",
        SeatSpaces(put_v0.raw_env()),
        policy_kwargs={"net_arch": [32, 32], "activation_fn": torch.nn.Tanh},
        seed=0,
        device="cpu",
    )
    folder = tmp_path_factory.mktemp("put_model")
    model.save(folder / "model.zip")
    (folder / "config.yaml").write_text("game: put\nenv:\n  num_players: 2\n")
    return folder / "model.zip"


def _reference_act(agent: ModelAgent, obs: np.ndarray, mask: np.ndarray) -> int:
    """The decision rule before the fast path: float64 forward pass, numpy softmax."""
    x = obs.astype(np.float64)
    for kind, a, b in agent._layers:
        x = x @ a.astype(np.float64) + b.astype(np.float64) if kind == "linear" else np.tanh(x)
    legal_mask = mask.astype(bool)
    logits = np.where(legal_mask, x, -np.inf)
    probs = np.exp(logits - logits.max())
    probs /= probs.sum()
    legal = np.flatnonzero(probs)
    cumulative = np.cumsum(probs[legal])
    pick = int(np.searchsorted(cumulative, agent.rng.random() * cumulative[-1], side="right"))
    return int(legal[min(pick, legal.size - 1)])


def test_model_agent_samples_as_the_float64_rule_with_the_same_seed(put_model):
    env = put_v0.raw_env()
    samples = _record(env, 3000, 2)
    table = table_info_from_env(env)
    fast = make_agent(str(put_model), table, seed=5)
    slow = make_agent(str(put_model), table, seed=5)
    assert [fast.act(o, m) for o, m in samples] == [_reference_act(slow, o, m) for o, m in samples]
    again = make_agent(str(put_model), table, seed=5)
    first = [again.act(o, m) for o, m in samples[:200]]
    again.seed(5)
    assert [again.act(o, m) for o, m in samples[:200]] == first


def test_model_act_batch_matches_act_when_deterministic_and_repeats_with_its_seed(put_model):
    env = put_v0.raw_env()
    samples = _record(env, 1000, 3)
    table = table_info_from_env(env)
    obs = np.stack([o for o, _ in samples])
    masks = np.stack([m for _, m in samples])
    rows = np.arange(len(samples))
    det = make_agent(f"{put_model}:deterministic=true", table, seed=0)
    assert det.act_batch(obs, masks, rows).tolist() == [det.act(o, m) for o, m in samples]
    a = make_agent(str(put_model), table, seed=9).act_batch(obs, masks, rows)
    b = make_agent(str(put_model), table, seed=9).act_batch(obs, masks, rows)
    assert a.tolist() == b.tolist()
    assert masks[rows, a].all()  # every sampled action is legal
    # the batch samples the same distribution: with the same uniforms, the same picks as act()
    scalar = make_agent(str(put_model), table, seed=9)
    assert sum(scalar.act(o, m) == x for (o, m), x in zip(samples, a, strict=True)) >= 995


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize(
    "spec",
    [
        "random",
        "put:greedy",
        "put:caller",
        "put:bluffer:bluff=0.0",
        "put:bluffer:bluff=1.0",
        "put:bluffer",  # one generator, rows in order: the batch draws the scalar stream (P4)
        "put:bluffer:bluff=0.6,put_at=0.9",
    ],
)
def test_put_act_batch_decides_as_act_row_by_row(num_players, spec):
    env = put_v0.raw_env(num_players=num_players)
    samples = _record(env, 1500, 4)
    table = table_info_from_env(env)
    obs = np.stack([o for o, _ in samples])
    masks = np.stack([m for _, m in samples])
    rows = np.arange(len(samples))
    batch = make_agent(spec, table, seed=0)
    batch.reset_rows(rows)
    got = batch.act_batch(obs, masks, rows)
    assert masks[rows, got].all()
    if spec == "random":  # the same uniform legal choice, drawn in one call
        counts = np.bincount(got, minlength=masks.shape[1])
        assert (counts > 0).sum() > 5
        return
    scalar = make_agent(spec, table, seed=0)
    want = []
    for o, m in samples:
        scalar.reset()  # each row is its own table: fresh per-hand state
        want.append(scalar.act(o, m))
    assert got.tolist() == want


def test_bluffer_batch_keeps_its_bluff_per_table():
    env = put_v0.raw_env()
    table = table_info_from_env(env)
    agent = make_agent("put:bluffer:bluff=1.0,put_at=1.0", table, seed=0)
    env.reset(seed=0)
    first = env.observe(env.agent_selection)
    obs, mask = first["observation"][None], first["action_mask"][None]
    assert mask[0, 13]  # Put may be called at the first turn
    assert agent.act_batch(obs, mask, np.array([7])).tolist() == [13]  # bluffs at table 7
    agent.reset_rows(np.array([7]))
    assert agent._bluff_rows[7] == 0
