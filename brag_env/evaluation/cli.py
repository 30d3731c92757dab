"""The ``evaluate.py`` / ``brag-evaluate`` command: agents against each other, payoffs with 95%
confidence intervals and behaviour statistics (the logic is ``brag_env.evaluation``).

Examples::

    python evaluate.py --game brag --agents brag:tight random random random --hands 20000 --seed 0
    python evaluate.py --game put --agents put:greedy random --matches 2000 --seed 0
    python evaluate.py --game brag --round-robin random brag:tight brag:bluffer --hands 4000
    python evaluate.py --game brag --agents brag:tips random --option num_players=2 --duplicate

Agent specs: "random", "brag:<style>", "put:<style>" (optionally ":k=v,..." parameters) or a
path to a model .zip saved by train.py.

Outputs (``--json``, ``--history``, ``--plot``) are checked before the run, refused if they exist
unless ``--force`` is given, and written atomically (``brag_env.io``): a failed or interrupted
run leaves no partial file and the previous one intact.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from pathlib import Path
from typing import Any

from agents.registry import GAMES, styles
from brag_env.evaluation import evaluate, few_sessions_warning, get_adapter, round_robin
from brag_env.extras import require
from brag_env.games import GAMES as GAME_SPECS
from brag_env.games import game_spec
from brag_env.io import AtomicFile, FileError, check_writable, write_output
from brag_env.ui.cli import OneLineParser, one_line, parse_options, prog_name, quiet_on_closed_pipe

DEFAULT_COUNT = {name: spec.default_count for name, spec in GAME_SPECS.items()}
_PROG = "evaluate.py"


def _count_help(flag: str) -> str:
    """The help of ``--hands`` or ``--matches``: what it counts for each game of the table that
    counts its samples with it, and its default there."""
    counted = [spec for spec in GAME_SPECS.values() if spec.count_flag == flag]
    games = "; ".join(
        f"{spec.title}: number of {spec.samples} (default {spec.default_count})" for spec in counted
    )
    sessions = "whole sessions and " if any(spec.sessions for spec in counted) else ""
    return f"{games}; rounded up to {sessions}whole seating designs (docs/evaluation.md)"


def build_parser(prog: str = _PROG) -> argparse.ArgumentParser:
    specs = "\n".join(
        f"  {game + ':<style>':<15} styles: {', '.join(sorted(styles(game)))}" for game in GAMES
    )
    p = OneLineParser(
        prog=prog,
        description="Play agents against each other and report payoffs with 95% confidence "
        "intervals and behaviour statistics.",
        epilog="agent specs:\n  random\n"
        + specs
        + "\n  PATH.zip        a MaskablePPO model saved by train.py"
        + "\n  model:NAME      a shipped model, models/NAME.zip (models/README.md)"
        + "\n  parameters:     e.g. brag:bluffer:bluff=0.5,bluff_bets=2"
        + "\n  (the parameters of every style: docs/evaluation.md in the repository)",
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
        help=_count_help("hands"),
    )
    p.add_argument(
        "--matches",
        type=int,
        help=_count_help("matches"),
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
        help="round robin: seats per table (default: the game's default, "
        + ", ".join(f"{spec.name} {spec.default_num_players}" for spec in GAME_SPECS.values())
        + ")",
    )
    p.add_argument("--json", metavar="FILE", help="write the full results as JSON")
    p.add_argument("--history", metavar="FILE", help="write every hand history as JSON Lines")
    p.add_argument(
        "--plot",
        nargs="?",
        const="eval_plots",
        metavar="DIR",
        help="save a payoff heatmap, per-decile action charts and one decile chart per agent "
        "(default DIR: eval_plots)",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="overwrite existing --json/--history files and --plot images (else refused)",
    )
    p.add_argument(
        "--exploitability",
        action="store_true",
        help="heads-up Put: also each agent's exact exploitability (docs/solver.md)",
    )
    p.add_argument(
        "--no-batched",
        action="store_true",
        help="play on the scalar env even when every agent supports the batched engine "
        "(heads-up Put, Three-card Brag; docs/evaluation.md)",
    )
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return p


def _count(args: argparse.Namespace) -> int:
    game = args.game
    right = game_spec(game).count_flag
    wrong = "matches" if right == "hands" else "hands"
    if getattr(args, wrong) is not None:
        raise ValueError(f"{game} counts {right}: use --{right}, not --{wrong}")
    value = getattr(args, right)
    return DEFAULT_COUNT[game] if value is None else value


def _check_file(option: str, value: str, force: bool) -> None:
    """``FileError`` unless ``value`` can be written as a file (checked before the long run)."""
    check_writable(value, option, force)
    folder = Path(value).parent  # the temporary file goes there, then replaces the target
    if not os.access(folder, os.W_OK):
        raise FileError(f"{option} {value!r}: the directory {str(folder)!r} is not writable")


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
    """Check every output path first, so a typo or an existing file does not cost (or, without
    ``--force``, overwrite) a whole evaluation."""
    force = getattr(args, "force", False)
    if args.json:
        _check_file("--json", args.json, force)
    if args.history:
        _check_file("--history", args.history, force)
    if args.json and args.history and Path(args.json).resolve() == Path(args.history).resolve():
        raise FileError(f"--json and --history name the same file {args.json!r}")
    if args.plot:
        _check_directory("--plot", args.plot)
        require("plot", "--plot", "matplotlib")  # before the tournament, not after it
        from brag_env.evaluation.plots import plot_files  # the names only: no matplotlib

        names = plot_files(args.round_robin or args.agents, bool(args.round_robin))
        existing = [n for n in names if (Path(args.plot) / n).exists()]
        if existing and not force:
            raise FileError(
                f"--plot {args.plot!r} already holds {', '.join(existing)}: name another "
                "directory, or add --force to overwrite"
            )


def engine_for(args: argparse.Namespace, options: dict[str, Any]) -> str:
    """Which engine plays this run: "batched" when the batched evaluator can play every table,
    else "scalar" (asked for with --no-batched; --duplicate and --history need the scalar env)."""
    from brag_env.evaluation.batched import supports_batched

    if args.no_batched or args.history or args.duplicate:
        return "scalar"
    if args.agents:
        return "batched" if supports_batched(args.game, args.agents, options) else "scalar"
    pool = args.round_robin
    size = args.table_size or options.get("num_players") or len(pool[:2])
    table = {k: v for k, v in options.items() if k != "num_players"} | {"num_players": size}
    ok = all(supports_batched(args.game, [spec] * size, table) for spec in pool)
    return "batched" if ok else "scalar"


def run(args: argparse.Namespace) -> int:
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
    from agents.model import with_model_observation

    specs = args.round_robin or args.agents
    # a model trained on the event history (perfect_recall) is given it: every seat shares it
    options = with_model_observation(game, specs, parse_options(args.option))
    few_sessions = few_sessions_warning(game, count, options)
    if few_sessions:
        warnings.warn(few_sessions, stacklevel=2)  # main shows it as one line
    check_outputs(args)
    if args.exploitability:
        from brag_env.evaluation import exploitability

        exploitability.check(game, options, args.table_size or len(args.agents or specs[:2]), specs)
    progress = not args.no_progress and sys.stderr.isatty()
    batched = engine_for(args, options) == "batched"

    history = AtomicFile(args.history, "--history", args.force) if args.history else None
    try:
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
                batched,
            )
            print_round_robin(result)
        else:
            if args.table_size is not None:
                raise ValueError("--table-size is for --round-robin; --agents gives one per seat")
            result = evaluate(
                game,
                args.agents,
                count,
                args.seed,
                args.duplicate,
                options,
                history,
                progress,
                batched,
            )
            print_tournament(result)
    except BaseException:
        if history is not None:
            history.discard()  # nothing half-written is left; an old file stays as it was
        raise
    if history is not None:
        history.commit()
    report = result.to_dict()
    if args.exploitability:
        report["exploitability"] = exploitability.exploitabilities(specs, options)
        exploitability.print_table(report["exploitability"])
    if args.json:
        write_output(args.json, json.dumps(report, indent=2) + "\n", "--json")
    if args.plot:
        from brag_env.evaluation.plots import plot_round_robin, plot_tournament

        plot = plot_round_robin if args.round_robin else plot_tournament
        for path in plot(result, args.plot):
            print(f"wrote {path}")
    return 0


@quiet_on_closed_pipe
def main(argv: list[str] | None = None) -> int:
    """Run the command line; the exit status is 0, 2 for any error (one line on stderr) and
    130 on Ctrl-C."""
    prog = prog_name("brag-evaluate", _PROG, argv)
    args = build_parser(prog).parse_args(argv)

    def show_warning(message: Any, category: Any, *_: Any, **__: Any) -> None:
        print(f"{prog}: warning: {message}", file=sys.stderr)

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.showwarning = show_warning
            return run(args)
    except BrokenPipeError:
        raise  # stdout's reader has gone: quiet_on_closed_pipe ends the command
    except OSError as e:  # one not turned into a FileError: name its file if it has one
        where = f" ({e.filename})" if getattr(e, "filename", None) else ""
        print(f"{prog}: error: {e.strerror or one_line(e)}{where}", file=sys.stderr)
        return 2
    except ValueError as e:
        print(f"{prog}: error: {one_line(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
