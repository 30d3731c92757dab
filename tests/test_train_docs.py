"""docs/training.md matches the code: its commands parse, its configs exist."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

from brag_env.training.config import load_config

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import train  # noqa: E402


def section() -> str:
    return (ROOT / "docs" / "training.md").read_text(encoding="utf-8")


def test_every_documented_train_command_parses_and_its_config_loads():
    block = re.search(r"```sh\n(python train\.py.*?)```", section(), re.S)
    assert block is not None
    commands = [line for line in block.group(1).splitlines() if line.startswith("python train.py")]
    assert commands[0] == "python train.py"  # the default run
    for line in commands:
        args = train.parse_args(shlex.split(line)[2:])
        overrides = list(args.overrides) + ([f"seed={args.seed}"] if args.seed is not None else [])
        load_config(args.config or train.DEFAULT_CONFIG, overrides)


def test_every_shipped_config_is_in_the_table():
    text = section()
    for path in (ROOT / "configs").glob("*.yaml"):
        assert f"`{path.name}`" in text, path.name
