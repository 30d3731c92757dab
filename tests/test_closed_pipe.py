"""A command whose reader goes away (``brag-evaluate ... | head -1``) ends quietly with status
141, as Unix tools do (``brag_env.ui.cli.quiet_on_closed_pipe``, on every console script's main)."""

from __future__ import annotations

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
