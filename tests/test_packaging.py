"""pyproject.toml: the core dependencies are what the envs, baselines, play/replay and
evaluate.py between baselines import; training libraries sit in the ``train`` extra, torch
without an exact pin; the console scripts lead to working ``main`` functions."""

from __future__ import annotations

import importlib
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
TRAINING = ("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "matplotlib")

# A fresh interpreter in which the training libraries cannot be imported at all; it uses the
# envs, the baselines, a tournament, play and replay, then lists the third-party modules loaded.
WITHOUT_TRAINING = f"""
import importlib.abc, io, sys, tempfile, os
BLOCKED = {TRAINING!r}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{{name}} is blocked (not a core dependency)")
sys.meta_path.insert(0, Block())

import numpy as np
from brag_env import brag_v0, put_v0
from agents import make_agent, table_info
from brag_env.evaluation import evaluate
from brag_env.play import main as play
from brag_env.replay import main as replay
import gymnasium, brag_env

env = brag_v0.env(num_players=3)
env.reset(seed=0)
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    env.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
for spec in ("brag:tight", "brag:tips", "random"):
    make_agent(spec, table_info("brag", num_players=3), 0)
for spec in ("put:greedy", "put:bluffer"):
    make_agent(spec, table_info("put"), 0)
evaluate("put", ["put:greedy", "random"], 2, seed=0)
selfplay = gymnasium.make("brag_env/PutVsPool-v0", opponents=["put:caller"])
selfplay.reset(seed=0)
os.chdir(tempfile.mkdtemp())
out = io.StringIO()
assert play(["brag", "--opponents", "random", "--hands", "1", "--seed", "0", "--history",
             "h.jsonl"], stdin=io.StringIO("1\\n" * 30), stdout=out) == 0
assert replay(["h.jsonl", "--no-pause"], stdin=io.StringIO(""), stdout=out) == 0
loaded = sorted({{m.split(".")[0] for m in sys.modules}} - set(sys.stdlib_module_names))
print(" ".join(loaded))
"""


def _names(requirements: list[str]) -> set[str]:
    return {
        r.split(";")[0].split("[")[0].split(">")[0].split("=")[0].split("<")[0].strip().lower()
        for r in requirements
    }


@pytest.mark.slow  # a fresh interpreter: seconds
def test_envs_baselines_play_replay_and_evaluate_run_without_training_libraries():
    result = subprocess.run(
        [sys.executable, "-c", WITHOUT_TRAINING],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    loaded = set(result.stdout.split())
    assert not loaded & set(TRAINING)
    core = _names(PROJECT["dependencies"])
    for module, requirement in (
        ("numpy", "numpy"),
        ("gymnasium", "gymnasium"),
        ("pettingzoo", "pettingzoo"),
        ("yaml", "pyyaml"),
        ("rich", "rich"),
        ("tqdm", "tqdm"),
    ):
        assert module in loaded and requirement in core, module


def test_training_libraries_are_extras_and_torch_has_no_exact_pin():
    core = _names(PROJECT["dependencies"])
    extras = PROJECT["optional-dependencies"]
    for requirement in ("torch", "stable-baselines3", "sb3-contrib", "tensorboard", "matplotlib"):
        assert requirement not in core
        assert requirement in _names(extras["train"])
    torch = next(r for r in extras["train"] if r.startswith("torch"))
    assert "==" not in torch and ">=" in torch
    assert {"test", "bench", "plot", "web"} <= set(extras)


@pytest.mark.parametrize("script", sorted(PROJECT["scripts"]))
def test_console_scripts_lead_to_a_main_that_answers_help(script, capsys):
    module, _, function = PROJECT["scripts"][script].partition(":")
    main = getattr(importlib.import_module(module), function)
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0 and "usage:" in capsys.readouterr().out


def test_play_and_replay_have_console_scripts():
    assert PROJECT["scripts"]["brag-play"] == "brag_env.play:main"
    assert PROJECT["scripts"]["brag-replay"] == "brag_env.replay:main"
    assert PROJECT["scripts"]["brag-web"] == "brag_env.web.cli:main"


FALLBACK_PROG = {
    "brag-train": "train.py",
    "brag-evaluate": "evaluate.py",
    "brag-play": "python -m brag_env.play",
    "brag-replay": "python -m brag_env.replay",
    "brag-web": "python -m brag_env.web",
}


@pytest.mark.parametrize("script", sorted(PROJECT["scripts"]))
def test_help_names_the_command_the_user_ran(script, monkeypatch, capsys):
    """``brag-play --help`` says ``usage: brag-play``; run another way, the way it was run."""
    module, _, function = PROJECT["scripts"][script].partition(":")
    main = getattr(importlib.import_module(module), function)
    for argv0, prog in ((f"/venv/bin/{script}", script), ("/x/cli.py", FALLBACK_PROG[script])):
        monkeypatch.setattr(sys, "argv", [argv0, "--help"])
        with pytest.raises(SystemExit):
            main()
        assert capsys.readouterr().out.startswith(f"usage: {prog} "), argv0
