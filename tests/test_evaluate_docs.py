"""docs/evaluation.md matches the code: commands, styles, parameters, statistics."""

import re
import shlex
from pathlib import Path

import pytest

from agents.registry import parse_spec, styles
from brag_env.evaluation.report import BEHAVIOUR_COLUMNS

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def section() -> str:
    return (ROOT / "docs" / "evaluation.md").read_text(encoding="utf-8")


def test_the_first_baseline_commands_are_documented(section):
    assert (
        "python evaluate.py --game brag --agents brag:tight random random random "
        "--hands 20000 --seed 0" in section
    )
    assert "python evaluate.py --game put --agents put:greedy random --matches 2000 --seed 0" in (
        section
    )


def test_every_documented_command_parses(section):
    import evaluate

    block = re.search(r"```sh\n(python evaluate\.py.*?)```", section, re.S)
    assert block is not None
    commands = [line for line in block.group(1).splitlines() if line.strip()]
    assert len(commands) >= 3
    parser = evaluate.build_parser()
    for line in commands:
        args = parser.parse_args(shlex.split(line)[2:])
        evaluate.parse_options(args.option)
        for spec in args.agents or args.round_robin:
            parse_spec(spec, args.game)


@pytest.mark.parametrize("game", ["brag", "put", "brag7"])
def test_every_style_and_default_parameter_is_documented(section, game):
    header = {
        "brag": "| Brag style |",
        "put": "| Put style |",
        "brag7": "| Seven-card Brag style |",
    }[game]
    table = section.split(header, 1)[1].split("\n\n", 1)[0]
    for name, cls in styles(game).items():
        if name == "random":
            continue
        row = re.search(rf"^\| `{name}` \|(.*)$", table, re.M)
        assert row is not None, f"{game}:{name} has no row in docs/evaluation.md"
        for key, value in cls.DEFAULTS.items():
            assert f"`{key}={value}`" in row.group(1), f"{game}:{name} {key}={value}"


def test_every_reported_statistic_is_defined(section):
    for columns in BEHAVIOUR_COLUMNS.values():
        for _, title in columns:
            assert f"**{title}**" in section, title
