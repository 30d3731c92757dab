"""Command-line helpers shared by the commands (play, replay, evaluate, train, exploit)."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, ParamSpec

from brag_env.io import YAMLError, brief, parse_yaml
from brag_env.io import one_line_of as one_line

__all__ = ["OneLineParser", "one_line", "parse_options", "prog_name", "quiet_on_closed_pipe"]

P = ParamSpec("P")
#: The exit status of a command whose reader went away (``| head``): 128 + SIGPIPE, what a shell
#: reports for a command that the signal ended.
CLOSED_PIPE = 141


def quiet_on_closed_pipe(main: Callable[P, int]) -> Callable[P, int]:
    """Wrap a command's ``main``: when stdout's reader has gone (``brag-evaluate ... | head -1``),
    end with status 141 and no message, as Unix tools do, rather than a traceback or an error.
    The mains let ``BrokenPipeError`` through their ``except OSError`` clauses to get here."""

    @functools.wraps(main)
    def run(*args: P.args, **kwargs: P.kwargs) -> int:
        try:
            status = main(*args, **kwargs)
            sys.stdout.flush()  # inside the try: the last buffered output meets the closed pipe
        except BrokenPipeError:
            pass
        except SystemExit as stop:  # rich's Console ends with SystemExit(1) on a closed pipe
            if not isinstance(stop.__context__, BrokenPipeError):
                raise
        else:
            return status
        # Python flushes stdout again at exit; pointed at /dev/null that flush cannot fail.
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), sys.stdout.fileno())
        return CLOSED_PIPE

    return run


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
