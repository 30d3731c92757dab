"""Command-line helpers shared by ``brag_env.play`` and ``brag_env.replay``."""

from __future__ import annotations

import argparse
from typing import Any, NoReturn

from brag_env.io import YAMLError, brief, parse_yaml
from brag_env.io import one_line_of as one_line

__all__ = ["OneLineParser", "one_line", "parse_options"]


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a bad command line in one line, without the usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


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
