"""Evaluate agents against each other: payoffs with 95% confidence intervals, behaviour stats:
``python evaluate.py --help``.

The command itself, with its examples and agent specs, is ``brag_env/evaluation/cli.py``
(installed as ``brag-evaluate``), the logic ``brag_env.evaluation``; this file runs it from a
clone of the repository.
"""

from __future__ import annotations

import sys

from brag_env.evaluation.cli import build_parser, check_outputs, main, parse_options, run

__all__ = ["build_parser", "check_outputs", "main", "parse_options", "run"]

if __name__ == "__main__":
    sys.exit(main())
