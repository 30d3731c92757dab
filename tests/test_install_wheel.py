"""A non-editable install carries the shipped models and configs: the wheel is built from a copy
of the repository, installed into a fresh virtual environment, and its commands run from an
empty folder far from any clone (``brag_env/resources.py``, ``pyproject.toml``'s package-data).

Offline: the wheel is built without build isolation (the running environment's setuptools, at
least 77 for the license string: the test extra asks for it) and installed with ``--no-deps
--no-index``; the new environment sees the running one's site-packages through a ``.pth`` line
(torch and the rest are not installed again). A plain path line adds that folder without running
its ``.pth`` files, so an editable install of brag-env there cannot shadow the wheel: the test
checks which copy was imported.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOT_SOURCES = shutil.ignore_patterns(
    ".git", "runs", "build", "dist", "__pycache__", "*.egg-info", ".*cache", ".hypothesis", ".venv*"
)
TINY_TRAINING = [
    *("--set", "total_timesteps=256", "--set", "n_envs=2", "--set", "ppo.n_steps=128"),
    *("--set", "ppo.batch_size=64", "--set", "ppo.n_epochs=1", "--set", "checkpoint_every=256"),
    *("--set", "pool.snapshot_every=256", "--set", "eval.every=0"),
    *("--set", "eval.episodes=4", "--set", "eval.final_episodes=4", "--progress", "off"),
]


def clean_env() -> dict[str, str]:
    """The environment without the variables that point Python at other code than the wheel."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> tuple[Path, Path]:
    """(the fresh venv's bin folder, an empty working folder)."""
    base = tmp_path_factory.mktemp("wheel")
    source = base / "src"
    shutil.copytree(ROOT, source, symlinks=True, ignore=NOT_SOURCES)
    pip = [sys.executable, "-m", "pip"]
    # No PYTHONPATH: with it pointing at a checkout holding an egg-info, pip takes brag-env for
    # "already installed" and installs nothing.
    quiet = {
        "check": True,
        "capture_output": True,
        "text": True,
        "timeout": 300,
        "env": clean_env(),
    }
    build = ("wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", base / "dist")
    subprocess.run([*pip, *build, source], **quiet)
    (wheel,) = (base / "dist").glob("brag_env-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "brag_env/models/put_equilibrium.npz" in names
    assert "brag_env/configs/put_ppo.yaml" in names
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], **quiet)
    python = venv / "bin" / "python"
    subprocess.run([*pip, "--python", python, "install", "--no-deps", "--no-index", wheel], **quiet)
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], **quiet
    ).stdout.strip()
    (Path(site) / "outer_environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    work = base / "elsewhere"
    work.mkdir()
    return venv / "bin", work


def run(installed: tuple[Path, Path], *command: str, status: int = 0) -> str:
    """stdout of ``command`` run from the empty folder (stderr instead when ``status`` != 0)."""
    bin_dir, work = installed
    env = clean_env()
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    result = subprocess.run(
        [str(bin_dir / command[0]), *command[1:]],
        capture_output=True,
        text=True,
        cwd=work,
        env=env,
        timeout=600,
    )
    assert result.returncode == status, result.stderr[-2000:]
    return result.stdout if status == 0 else result.stderr


@pytest.mark.slow  # builds and installs a wheel, then runs four commands: about 40 s
def test_the_wheel_plays_the_shipped_models_and_trains_from_any_folder(installed):
    bin_dir, work = installed
    where = run(installed, "python", "-c", "import brag_env, agents; print(brag_env.__file__)")
    assert where.startswith(str(bin_dir.parent)), where  # the wheel, not a clone
    evaluate = ("brag-evaluate", "--seed", "0")
    for agents in (
        "--game put --agents model:put_selfplay random --matches 6",
        "--game put --agents put:equilibrium random --matches 6",
        "--game brag --agents model:brag_selfplay random random random --hands 8",
        "--game brag --agents model:brag_headsup_selfplay brag:never_look --hands 8"
        " --option num_players=2",
    ):
        assert "decisions in" in run(installed, *evaluate, *agents.split()), agents
    # brag-train's default config (put_ppo.yaml) ships too.
    run(installed, "brag-train", "--out", "run", *TINY_TRAINING)
    assert (work / "run" / "model.zip").is_file()
    assert "name: put_ppo" in (work / "run" / "config.yaml").read_text()
    # Every shipped config by name: found (the bad --set key is the only error), or listed.
    for name in ("brag_headsup_ppo.yaml", "configs/brag_headsup_ppo.yaml"):
        err = run(installed, "brag-train", "--config", name, "--set", "nope=1", status=2)
        assert err.startswith("brag-train: error: unknown config key(s): nope"), err
    err = run(installed, "brag-train", "--config", "nope.yaml", status=2)
    assert "the shipped configs: " in err and "brag_br.yaml, " in err


@pytest.mark.slow  # the wheel's command in a shell pipe: a second or two
def test_an_installed_command_read_by_head_ends_quietly(installed):
    bin_dir, work = installed
    env = {**clean_env(), "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    command = "brag-evaluate --game put --agents put:greedy random --matches 200 --no-progress"
    result = subprocess.run(
        ["bash", "-c", f"{command} | head -1; echo status ${{PIPESTATUS[0]}}"],
        capture_output=True,
        text=True,
        cwd=work,
        env=env,
        timeout=300,
    )
    # 141 when a write met the closed pipe, 0 when head read everything before it left: the race
    # is the pipe's. Before the fix: status 1.
    assert result.stdout.splitlines()[-1] in ("status 141", "status 0"), result
    assert result.stderr == ""
