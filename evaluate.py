"""Evaluate agents against each other: payoffs with 95% confidence intervals, behaviour stats.

Examples::

    python evaluate.py --game brag --agents brag:tight random random random --hands 20000 --seed 0
    python evaluate.py --game put --agents put:greedy random --matches 2000 --seed 0
    python evaluate.py --game brag --round-robin random brag:tight brag:bluffer --hands 4000
    python evaluate.py --game brag --agents brag:tips random --option num_players=2 --duplicate

Agent specs: "random", "brag:<style>", "put:<style>" (optionally ":k=v,..." parameters) or a
path to a model .zip saved by train.py. The logic lives in ``brag_env.evaluation``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import warnings
from pathlib import Path
from typing import Any

from brag_env.ui.cli import OneLineParser, parse_options  # shared with play and replay

DEFAULT_COUNT = {"brag": 10_000, "put": 1_000}
_PROG = "evaluate.py"


def build_parser() -> argparse.ArgumentParser:
    from agents.registry import GAMES, styles

    specs = "\n".join(
        f"  {game + ':<style>':<15} styles: {', '.join(sorted(styles(game)))}" for game in GAMES
    )
    p = OneLineParser(
        prog=_PROG,
        description="Play agents against each other and report payoffs with 95% confidence "
        "intervals and behaviour statistics.",
        epilog="agent specs:\n  random\n"
        + specs
        + "\n  PATH.zip        a MaskablePPO model saved by train.py"
        + "\n  parameters:     e.g. brag:bluffer:bluff=0.5,bluff_bets=2 (README: Evaluate)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--game", required=True, help=f"one of: {', '.join(GAMES)}")
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--agents", nargs="+", metavar="SPEC", help="one agent spec per seat")
    who.add_argument(
        "--round-robin",
        nargs="+",
        metavar="SPEC",
        help="a pool of agents: every one against every other, with a payoff matrix",
    )
    p.add_argument(
        "--hands",
        type=int,
        help="Brag: number of hands (default 10000), rounded up to whole sessions and whole "
        "seating designs (README: Evaluate)",
    )
    p.add_argument(
        "--matches",
        type=int,
        help="Put: number of matches (default 1000), rounded up to whole seating designs",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of deals and agents (default 0)")
    p.add_argument(
        "--duplicate",
        action="store_true",
        help="replay every deal under every seating of the design (CI over deal groups)",
    )
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an env option, e.g. --option ante=5 --option raise_sizes=[2,4] (repeatable)",
    )
    p.add_argument(
        "--table-size",
        type=int,
        help="round robin: seats per table (default: the game's default, brag 4, put 2)",
    )
    p.add_argument("--json", metavar="FILE", help="write the full results as JSON")
    p.add_argument("--history", metavar="FILE", help="write every hand history as JSON Lines")
    p.add_argument(
        "--plot",
        nargs="?",
        const="eval_plots",
        metavar="DIR",
        help="save a payoff heatmap and per-decile action charts (default DIR: eval_plots)",
    )
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument(
        "--exploitability",
        action="store_true",
        help="heads-up Put: also each agent's exact exploitability (docs/solver.md)",
    )
    return p


def _count(args: argparse.Namespace) -> int:
    game = args.game
    wrong, right = ("matches", "hands") if game == "brag" else ("hands", "matches")
    if getattr(args, wrong) is not None:
        raise ValueError(f"{game} counts {right}: use --{right}, not --{wrong}")
    value = getattr(args, right)
    return DEFAULT_COUNT[game] if value is None else value


def _check_file(option: str, value: str) -> None:
    """``ValueError`` unless ``value`` can be written as a file (checked before the long run)."""
    path = Path(value)
    if path.is_dir():
        raise ValueError(f"{option} {value!r} is a directory, expected a file name")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"{option} {value!r}: the directory {str(parent)!r} does not exist")
    target = path if path.exists() else parent
    if not os.access(target, os.W_OK):
        raise ValueError(f"{option} {value!r}: {str(target)!r} is not writable")


def _check_directory(option: str, value: str) -> None:
    """``ValueError`` unless ``value`` is, or can be made, a writable directory."""
    path = Path(value)
    if path.exists() and not path.is_dir():
        raise ValueError(f"{option} {value!r} exists and is not a directory")
    existing = path
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"{option} {value!r}: {str(existing)!r} is not a directory")
    if not os.access(existing, os.W_OK):
        raise ValueError(f"{option} {value!r}: {str(existing)!r} is not writable")


def check_outputs(args: argparse.Namespace) -> None:
    """Check every output path first, so a typo does not cost a whole evaluation."""
    if args.json:
        _check_file("--json", args.json)
    if args.history:
        _check_file("--history", args.history)
    if args.plot:
        _check_directory("--plot", args.plot)


def run(args: argparse.Namespace) -> int:
    from brag_env.evaluation import evaluate, get_adapter, round_robin
    from brag_env.evaluation.report import print_round_robin, print_tournament

    game = get_adapter(args.game).name
    args.game = game
    count = _count(args)
    if args.seed < 0:
        raise ValueError(f"--seed must be a whole number >= 0, got {args.seed}")
    if args.table_size is not None and args.table_size < 2:
        raise ValueError(
            f"--table-size must be at least 2 (seats per table), got {args.table_size}"
        )
    options = parse_options(args.option)
    check_outputs(args)
    specs = args.round_robin or args.agents
    if args.exploitability:
        from brag_env.evaluation import exploitability

        exploitability.check(game, options, args.table_size or len(args.agents or specs[:2]))
    progress = not args.no_progress and sys.stderr.isatty()

    with contextlib.ExitStack() as stack:
        history = None
        if args.history:
            history = stack.enter_context(open(args.history, "w", encoding="utf-8"))
        if args.round_robin:
            result: Any = round_robin(
                game,
                args.round_robin,
                count,
                args.seed,
                args.duplicate,
                options,
                args.table_size,
                history,
                progress,
            )
            print_round_robin(result)
        else:
            if args.table_size is not None:
                raise ValueError("--table-size is for --round-robin; --agents gives one per seat")
            result = evaluate(
                game, args.agents, count, args.seed, args.duplicate, options, history, progress
            )
            print_tournament(result)

    report = result.to_dict()
    if args.exploitability:
        report["exploitability"] = exploitability.exploitabilities(specs, options)
        exploitability.print_table(report["exploitability"])
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2) + "\n", "utf-8")
    if args.plot:
        from brag_env.evaluation.plots import plot_round_robin, plot_tournament

        plot = plot_round_robin if args.round_robin else plot_tournament
        for path in plot(result, args.plot):
            print(f"wrote {path}")
    return 0


def _show_warning(message: Any, category: Any, *_: Any, **__: Any) -> None:
    print(f"{_PROG}: warning: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.showwarning = _show_warning
            return run(args)
    except (ValueError, OSError) as e:
        message = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        print(f"{_PROG}: error: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{_PROG}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
