"""Play Brag or Put in the terminal against agents.

Examples::

    python -m brag_env.play brag --opponents brag:tight brag:bluffer random --seed 7
    python -m brag_env.play brag --opponents brag:tips runs/brag_ppo/model.zip --hands 20 --seat 1
    python -m brag_env.play put --opponent put:caller
    python -m brag_env.play put --opponents put:greedy put:bluffer put:caller   # partners (P8)

You take seat ``--seat`` (default 0); the agent specs fill the other seats in order (any spec
``evaluate.py`` takes: "random", "brag:<style>", "put:<style>", a trained model's .zip).
``--option KEY=VALUE`` sets a rule option of the game (``brag_v0``/``put_v0`` arguments).
Answer each question with the number of a choice (or its name); ``q`` leaves the table.
``--history FILE.jsonl`` saves every finished hand in ``evaluate.py --history``'s format, for
``python -m brag_env.replay FILE.jsonl``.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from typing import TextIO

from brag_env.ui.cli import OneLineParser, one_line, parse_options

PROG = "python -m brag_env.play"
DEFAULT_OPPONENTS = {
    "brag": ["brag:tight", "brag:bluffer", "random"],
    "put": ["put:caller"],
}


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=PROG,
        description="Play Three-Card Brag or Put in the terminal against agents.",
    )
    games = parser.add_subparsers(
        dest="game", required=True, metavar="GAME", parser_class=OneLineParser
    )
    brag = games.add_parser("brag", help="a session of Three-Card Brag hands")
    put = games.add_parser("put", help="Put matches to target_points")
    for game, sub in (("brag", brag), ("put", put)):
        sub.add_argument(
            "--opponents",
            "--opponent",
            nargs="+",
            metavar="SPEC",
            default=None,
            help=f"agent specs for the other seats (default: {' '.join(DEFAULT_OPPONENTS[game])})",
        )
        sub.add_argument("--seat", type=int, default=0, help="your seat number (default 0)")
        sub.add_argument("--seed", type=int, help="seed of the deals and the agents")
        sub.add_argument(
            "--option",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help="a rule option, e.g. --option ante=5 (repeatable)",
        )
        sub.add_argument("--history", metavar="FILE", help="save the hand histories (JSON Lines)")
    brag.add_argument(
        "--hands", type=int, help="hands in the session (default: 10, B17 hands_per_session)"
    )
    put.add_argument("--matches", type=int, default=1, help="matches to play (default 1)")
    return parser


def run(args: argparse.Namespace, stdin: TextIO | None, stdout: TextIO | None) -> int:
    from brag_env.ui.seating import pick_seed, seat_players
    from brag_env.ui.terminal import Prompter, make_console

    options = parse_options(args.option)
    opponents = args.opponents or DEFAULT_OPPONENTS[args.game]
    seating = seat_players(args.game, opponents, args.seat)
    seed = pick_seed(args.seed)
    console = make_console(stdout)
    prompter = Prompter(console, stdin)
    with contextlib.ExitStack() as stack:
        history = None
        if args.history:
            history = stack.enter_context(open(args.history, "w", encoding="utf-8"))
        if args.game == "brag":
            from brag_env.ui.brag_play import DEFAULT_HANDS, play_brag

            hands = args.hands
            if hands is None:
                hands = options.get("hands_per_session", DEFAULT_HANDS)
            elif "hands_per_session" in options and options["hands_per_session"] != hands:
                raise ValueError("give the number of hands once: --hands or hands_per_session")
            options["hands_per_session"] = hands
            return play_brag(seating, options, seed, prompter, history)
        from brag_env.ui.put_play import play_put

        return play_put(seating, options, seed, args.matches, prompter, history)


def main(
    argv: list[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    """Run the command line; ``stdin``/``stdout`` replace the terminal (tests drive it so)."""
    args = build_parser().parse_args(argv)
    try:
        return run(args, stdin, stdout)
    except (ValueError, OSError) as error:
        print(f"{PROG}: error: {one_line(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
