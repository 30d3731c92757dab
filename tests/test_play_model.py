"""A trained-model opponent (a MaskablePPO .zip, as train.py saves) at the human's table."""

from __future__ import annotations

import io
import json

import pytest

from brag_env import brag_v1
from brag_env.play import main as play_main
from brag_env.replay import main as replay_main
from tests.seat_spaces import SeatSpaces


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    torch = pytest.importorskip("torch")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    torch.manual_seed(0)
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        SeatSpaces(brag_v1.raw_env(num_players=2)),
        policy_kwargs={"net_arch": [8]},
        seed=0,
        device="cpu",
    )
    # Brackets in the path: rich would read "[v2]" as markup if the label were not escaped.
    path = tmp_path_factory.mktemp("m[v2]") / "model.zip"
    model.save(path)
    return path


# The untrained model is saved without its table options; the loader says so.
@pytest.mark.filterwarnings("ignore:model .* does not record the table options")
def test_play_against_a_model(model_path, tmp_path):
    history = str(tmp_path / "h.jsonl")
    label = f"{model_path.parent.name}/model.zip"  # the spec's short label
    out = io.StringIO()
    code = play_main(
        [
            "brag",
            "--opponents",
            str(model_path),
            "--seed",
            "2",
            "--hands",
            "3",
            "--history",
            history,
        ],
        stdin=io.StringIO("2\n" * 40),
        stdout=out,
    )
    assert code == 0
    text = out.getvalue()
    # A line before the model loads, once, then the table: no blank wait at the start.
    assert text.startswith(f"loading {label}…\n") and text.count("loading ") == 1
    assert "[v2]" in label
    assert f"seat 1: {label}" in text  # in the seating line
    assert f"seat 1  {label}" in text  # in the table's player column
    with open(history) as lines:
        records = [json.loads(line) for line in lines]
    assert len(records) == 3
    assert all(r["seat_agents"] == ["human", label] for r in records)
    assert any(a["seat"] == 1 for r in records for a in r["actions"])  # the model acted
    out = io.StringIO()
    assert replay_main([history], stdin=io.StringIO(""), stdout=out) == 0
    assert f"seat 0: human · seat 1: {label}" in out.getvalue()
    assert f"seat 1 ({label}) to act" in out.getvalue()


def test_baselines_load_without_a_loading_line():
    out = io.StringIO()
    args = ["put", "--opponents", "put:caller", "--seed", "0"]
    assert play_main(args, stdin=io.StringIO("q\n"), stdout=out) == 0
    assert "loading" not in out.getvalue()
