"""Test helper: run Python code in a child process that kills itself, to test what a crash
leaves behind."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_until_killed(code: str, *args: str) -> None:
    """Run ``code`` (which ends by SIGKILL-ing its own process) with this checkout importable
    and ``args`` as ``sys.argv[1:]``; checks it died by that signal."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, check=False)
    assert done.returncode == -9
