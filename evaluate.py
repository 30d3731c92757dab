"""Evaluate agents against each other: payoffs with 95% confidence intervals, behaviour stats.

Examples::

    python evaluate.py --game brag --agents brag:tight random random random --hands 20000 --seed 0
    python evaluate.py --game put --agents put:greedy random --matches 2000 --seed 0
    python evaluate.py --game brag --round-robin random brag:tight brag:bluffer --hands 4000
    python evaluate.py --game brag --agents brag:tips random --option num_players=2 --duplicate

Agent specs: "random", "brag:<style>", "put:<style>" (optionally ":k=v,..." parameters) or a
path to a model .zip saved by train.py. This file is a thin entry point: the command is
``brag_env.evaluation.cli`` (installed as ``brag-evaluate``), the logic ``brag_env.evaluation``.
"""

from __future__ import annotations

import sys

from brag_env.evaluation.cli import build_parser, check_outputs, main, parse_options, run

__all__ = ["build_parser", "check_outputs", "main", "parse_options", "run"]

if __name__ == "__main__":
    sys.exit(main())
