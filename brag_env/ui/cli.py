"""Command-line helpers shared by the commands (play, replay, evaluate, train, exploit)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, NoReturn

from brag_env.io import YAMLError, brief, parse_yaml
from brag_env.io import one_line_of as one_line

__all__ = ["OneLineParser", "one_line", "parse_options", "prog_name"]


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a bad command line in one line, without the usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def prog_name(command: str, fallback: str, argv: list[str] | None = None) -> str:
    """The name the user ran, for usage lines and errors: ``command`` (an installed console
    script such as ``brag-play``) when it is the running program, else ``fallback`` (``python -m
    brag_env.play``). ``argv`` given means a call from Python: the fallback."""
    running = Path(sys.argv[0]).name if argv is None and sys.argv and sys.argv[0] else ""
    return command if running.startswith(command) else fallback  # brag-play, brag-play.exe


def parse_options(items: list[str], what: str = "--option") -> dict[str, Any]:
    """``["ante=5", "raise_sizes=[2,4]"]`` -> ``{"ante": 5, "raise_sizes": (2, 4)}``.

    Values are read as YAML scalars/lists (numbers, true/false, strings, ``[a, b]``), the same
    way ``evaluate.py --option`` reads them. ``what`` names an option in the errors (the web
    form says "rule option").
    """
    options: dict[str, Any] = {}
    for item in items:
        key, eq, raw = item.partition("=")
        key = key.strip()
        if not eq or not key or not raw.strip():
            raise ValueError(f"bad {what} {brief(item)}: expected KEY=VALUE, e.g. ante=5")
        if len(raw) > 10_000:
            raise ValueError(f"bad {what} {key}=...: the value is {len(raw):,} characters long")
        try:
            value = parse_yaml(raw, f"{what} {key}")  # bounded: nesting, aliases
        except YAMLError as e:
            raise ValueError(f"bad {what} {brief(key)}={brief(raw)}: {e.problem}") from None
        if isinstance(value, list):
            value = tuple(value)
        options[key] = value
    return options
