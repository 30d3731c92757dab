"""A Put model trained on the event history (``perfect_recall``) is given that observation by
evaluate.py, play and the exact measure, read from the option its file records."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import evaluate  # noqa: E402
from agents.model import with_model_observation  # noqa: E402
from brag_env import put_v1  # noqa: E402
from brag_env.exploit import main as exploit_main  # noqa: E402
from brag_env.exploit import measure  # noqa: E402
from brag_env.play import main as play_main  # noqa: E402
from brag_env.put.rules import PutConfig  # noqa: E402
from brag_env.put.solver.game import HandGame, exploitability  # noqa: E402
from brag_env.put.solver.strategy import uniform  # noqa: E402
from tests.seat_spaces import SeatSpaces  # noqa: E402


def _uniform_model(folder: Path, **options) -> Path:
    """An MLP whose action logits are all zero (uniform over legal actions: a known
    exploitability), saved as train.py saves, with its table options recorded."""
    torch = pytest.importorskip("torch")
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from brag_env.training.checkpoint import save_model

    model = sb3_contrib.MaskablePPO(
        "MlpPolicy",
        SeatSpaces(put_v1.raw_env(**options)),
        policy_kwargs={"net_arch": [8]},
        seed=0,
        device="cpu",
    )
    with torch.no_grad():
        model.policy.action_net.weight.zero_()
        model.policy.action_net.bias.zero_()
    path = folder / "model.zip"
    save_model(model, path, "put", dict(options))
    return path


@pytest.fixture(scope="module")
def recall_model(tmp_path_factory):
    return _uniform_model(tmp_path_factory.mktemp("recall"), deck_ranks=3, perfect_recall=True)


@pytest.fixture(scope="module")
def plain_model(tmp_path_factory):
    return _uniform_model(tmp_path_factory.mktemp("plain"), deck_ranks=3)


def test_the_exact_measure_asks_a_recall_model_its_own_observations(recall_model, capsys):
    """Planted: a uniform policy's exploitability is random's, whatever it reads."""
    game = HandGame.build(PutConfig(deck_ranks=3))
    want = exploitability(game, uniform(game.tree)).exploitability
    got = measure(str(recall_model), PutConfig(deck_ranks=3), game=game)
    assert got.exploitability == pytest.approx(want, abs=1e-9)
    assert exploit_main(["put", str(recall_model), "--deck-ranks", "3"]) == 0
    assert f"exploitability:              {want:.6f}" in capsys.readouterr().out


@pytest.mark.slow  # about 0.5 s: whole matches on the scalar env
def test_evaluate_builds_the_recall_table_for_a_recall_model(recall_model, capsys):
    argv = ["--game", "put", "--agents", str(recall_model), "random", "--matches", "4"]
    argv += ["--option", "deck_ranks=3", "--no-progress", "--seed", "1"]
    assert evaluate.main(argv) == 0
    assert "matches" in capsys.readouterr().out


def test_models_reading_different_observations_are_refused_in_one_line(
    recall_model, plain_model, capsys
):
    argv = ["--game", "put", "--agents", str(recall_model), str(plain_model), "--matches", "2"]
    argv += ["--option", "deck_ranks=3", "--no-progress"]
    assert evaluate.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "read different observations" in err and len(err.splitlines()) == 1
    # a table set against the model's record: the model's own check refuses it
    argv = ["--game", "put", "--agents", str(recall_model), "random", "--matches", "2"]
    argv += ["--option", "deck_ranks=3", "--option", "perfect_recall=false", "--no-progress"]
    assert evaluate.main(argv) == 2
    assert "perfect_recall=True in training, False here" in capsys.readouterr().err


def test_options_are_filled_only_from_models(recall_model, plain_model):
    assert with_model_observation("put", ["random", "put:caller"], {}) == {}
    assert with_model_observation("put", [str(plain_model)], {"deck_ranks": 3}) == {"deck_ranks": 3}
    filled = with_model_observation("put", [str(recall_model), "random"], {"deck_ranks": 3})
    assert filled == {"deck_ranks": 3, "perfect_recall": True}


def test_play_seats_a_recall_model(recall_model):
    out = io.StringIO()
    args = ["put", "--opponents", str(recall_model), "--seed", "0", "--option", "deck_ranks=3"]
    assert play_main(args, stdin=io.StringIO("q\n"), stdout=out) == 0
    assert "loading" in out.getvalue()
