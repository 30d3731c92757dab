"""A command whose reader goes away (``brag-evaluate ... | head -1``) ends quietly with status
141, as Unix tools do (``brag_env.ui.cli.quiet_on_closed_pipe``, on every console script's main
and every ``python -m`` module's own main)."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from brag_env.ui.cli import CLOSED_PIPE, quiet_on_closed_pipe

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_every_console_script_is_wrapped(script):
    module, _, function = SCRIPTS[script].partition(":")
    main = getattr(importlib.import_module(module), function)
    assert main.__wrapped__.__name__ == "main", script  # functools.wraps of quiet_on_closed_pipe


def test_other_exits_and_errors_pass_through():
    assert quiet_on_closed_pipe(lambda: 3)() == 3

    def usage_error() -> int:
        raise SystemExit(2)

    with pytest.raises(SystemExit):
        quiet_on_closed_pipe(usage_error)()


@pytest.mark.slow  # a new interpreter that plays 200 Put matches: about two seconds
@pytest.mark.parametrize("through_rich", [True, False])
def test_a_closed_stdout_is_status_141_and_no_message(through_rich):
    if through_rich:  # rich's Console raises SystemExit(1) on the broken pipe
        code = (
            "import sys; from brag_env.evaluation.cli import main; sys.exit(main(['--game', "
            "'put', '--agents', 'put:greedy', 'random', '--matches', '200', '--no-progress']))"
        )
    else:  # plain print(): a BrokenPipeError out of main
        code = (
            "import sys; from brag_env.ui.cli import quiet_on_closed_pipe\n"
            "sys.exit(quiet_on_closed_pipe(lambda: [print('x' * 1000) for _ in range(99)] and 0)())"
        )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    proc.stdout.close()  # the reader goes away before the first line
    stderr = proc.stderr.read()
    assert proc.wait(timeout=120) == CLOSED_PIPE and stderr == b"", stderr.decode()


def _module_mains() -> list[Path]:
    """Files of the package run as ``python -m ...`` that define their own ``main``."""
    found = []
    for path in sorted((ROOT / "brag_env").rglob("*.py")):
        source = path.read_text()
        if '__name__ == "__main__"' in source and "\ndef main(" in source:
            found.append(path)
    return found


@pytest.mark.parametrize("path", _module_mains(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_main_is_wrapped(path):
    tree = ast.parse(path.read_text())
    (main,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main"]
    names = [d.id for d in main.decorator_list if isinstance(d, ast.Name)]
    assert "quiet_on_closed_pipe" in names, path


def test_model_info_into_a_closed_pipe_is_quiet():
    """``python -m brag_env.training.export --info MODEL | head -1`` used to end with
    "error: Broken pipe (None)"."""
    code = (
        "import sys; from brag_env.training.export import main\n"
        "sys.exit(main(['--info', 'models/brag_headsup_brpool.zip']))"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT
    )
    proc.stdout.close()
    stderr = proc.stderr.read()
    assert proc.wait(timeout=120) == CLOSED_PIPE and stderr == b"", stderr.decode()
