"""A core-only install (``pip install .``) asked for something an extra brings gets one line on
stderr naming the extra, and exit status 2, from every command (``brag_env.extras``).

The missing module is simulated: ``None`` in ``sys.modules`` makes its import fail as if it were
not installed; the training command, whose module tries to import torch when it loads, runs in a new
interpreter with torch blocked before that import.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from brag_env.evaluation.cli import main as evaluate
from brag_env.exploit import main as exploit
from brag_env.extras import MissingExtra, require
from brag_env.play import main as play

ROOT = Path(__file__).resolve().parents[1]
INSTALL = 'pip install "brag-env[{}]"'


def one_error_line(capsys, extra: str, module: str) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert f"{module} is not installed" in lines[0] and INSTALL.format(extra) in lines[0]
    return lines[0]


PUT_MODEL = "model:put_selfplay"
COMMANDS = {
    "evaluate": (evaluate, ["--game", "put", "--agents", PUT_MODEL, "random", "--matches", "2"]),
    "play": (play, ["put", "--opponents", PUT_MODEL, "--seed", "0"]),
    "exploit": (exploit, ["put", PUT_MODEL, "--deck-ranks", "3"]),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_model_without_torch_is_one_line_in_every_command(command, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "torch", None)
    main, args = COMMANDS[command]
    assert main(args) == 2
    assert one_error_line(capsys, "train", "torch").endswith('pip install -e ".[train]")')


@pytest.mark.slow  # imports torch for real when no other test has: seconds
def test_a_model_without_sb3_contrib_names_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)
    main, args = COMMANDS["evaluate"]
    assert main(args) == 2
    assert one_error_line(capsys, "train", "sb3_contrib").startswith("evaluate.py: error: ")


def test_plot_without_matplotlib_is_refused_before_the_tournament(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    args = ["--game", "put", "--agents", "put:greedy", "random", "--matches", "2"]
    assert evaluate([*args, "--plot", str(tmp_path)]) == 2
    one_error_line(capsys, "plot", "matplotlib")
    assert "decisions in" not in capsys.readouterr().out


def test_require_names_the_module_really_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(MissingExtra, match=r"^torch is not installed; a model needs the train"):
        require("train", "a model", "torch")
    require("train", "a model", "numpy")  # installed: no error


BLOCKED_TRAIN = """
import sys
sys.modules["torch"] = None
sys.argv = ["brag-train", "--help"]
import brag_env.training.cli  # imports in a core install: only running it needs torch
print("imported")
sys.exit(brag_env.training.cli.main())
"""


@pytest.mark.slow  # a new interpreter: about a second
def test_brag_train_without_torch_is_one_line_and_exit_2():
    result = subprocess.run(
        [sys.executable, "-c", BLOCKED_TRAIN], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 2 and result.stdout == "imported\n"
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("brag-train: error: torch is not installed; training needs")
    assert INSTALL.format("train") in result.stderr
