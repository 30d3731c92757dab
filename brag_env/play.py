"""Play Brag or Put in the terminal against agents.

Examples::

    python -m brag_env.play brag --opponents brag:tight brag:bluffer random --seed 7
    python -m brag_env.play brag --opponents brag:tips runs/brag_ppo/model.zip --hands 20 --seat 1
    python -m brag_env.play put --opponent put:caller
    python -m brag_env.play put --opponents put:greedy put:bluffer put:caller   # partners (P8)
    python -m brag_env.play brag7 --opponents brag7:balanced random --hands 5   # B24

You take seat ``--seat`` (default 0); the agent specs fill the other seats in order (any spec
``evaluate.py`` takes: "random", "brag:<style>", "put:<style>", a trained model's .zip).
``--option KEY=VALUE`` sets a rule option of the game (``brag_v1``/``put_v1`` arguments).
Answer each question with the number of a choice (or its name); ``q`` leaves the table.
``--history FILE.jsonl`` saves every finished hand in ``evaluate.py --history``'s format, for
``python -m brag_env.replay FILE.jsonl``; an existing file is refused unless ``--force`` is
given (then it is replaced when the session closes). The file is written atomically: the hands
go to a temporary file beside it, renamed into place at the end, so a session left before its
first hand leaves no file, and a write failure (a full disk) a one-line error.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO

from brag_env.games import GAMES, game_spec
from brag_env.io import FileError
from brag_env.ui.cli import OneLineParser, one_line, parse_options, prog_name, quiet_on_closed_pipe

if TYPE_CHECKING:
    from brag_env.ui.session import TableSession

PROG = "python -m brag_env.play"
DEFAULT_OPPONENTS = {name: list(spec.play_opponents) for name, spec in GAMES.items()}


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=prog,
        description="Play Three-Card Brag or Put in the terminal against agents.",
    )
    games = parser.add_subparsers(
        dest="game", required=True, metavar="GAME", parser_class=OneLineParser
    )
    for game, spec in GAMES.items():
        sub = games.add_parser(game, help=spec.play_help)
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
        sub.add_argument(
            "--history", metavar="FILE", help="save the hand histories (JSON Lines, a new file)"
        )
        sub.add_argument(
            "--force", action="store_true", help="overwrite an existing --history file"
        )
        if spec.sessions:
            sub.add_argument(
                "--hands",
                type=int,
                help=f"{spec.samples} in the session (default: 10, {spec.session_rule} "
                "hands_per_session)",
            )
        else:
            sub.add_argument("--matches", type=int, default=1, help="matches to play (default 1)")
    return parser


def build_session(
    args: argparse.Namespace, stdin: TextIO | None, stdout: TextIO | None
) -> TableSession:
    """The table of ``args``, every rule, spec and the history file checked before play.

    ``ValueError`` (one line) for a bad option, spec, seat or seed, or a history file that
    exists without ``--force`` or cannot be written. The file is opened only once everything
    else is valid, so a bad command line never touches it.
    """
    from agents.model import with_model_observation
    from brag_env.ui.seating import open_history, pick_seed, seat_players
    from brag_env.ui.terminal import Prompter, make_console

    opponents = args.opponents or DEFAULT_OPPONENTS[args.game]
    seating = seat_players(args.game, opponents, args.seat)
    # a model opponent trained on the event history gets it (the human's view decodes it too)
    options = with_model_observation(args.game, opponents, parse_options(args.option))
    seed = pick_seed(args.seed)
    prompter = Prompter(make_console(stdout), stdin)
    spec = game_spec(args.game)
    session_class = spec.load("play_session")
    session: TableSession
    if spec.sessions:  # one session of --hands hands (deals)
        hands = args.hands
        if hands is None:
            hands = options.get("hands_per_session", session_class.default_hands)
        elif "hands_per_session" in options and options["hands_per_session"] != hands:
            raise ValueError("give the number of hands once: --hands or hands_per_session")
        options["hands_per_session"] = hands
        session = session_class(seating, options, seed, prompter)
    else:  # --matches matches
        session = session_class(seating, options, seed, args.matches, prompter)
    if getattr(args, "history", None):
        session.history.stream = open_history(args.history, args.force)
    return session


@quiet_on_closed_pipe
def main(
    argv: list[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    """Run the command line; ``stdin``/``stdout`` replace the terminal (tests drive it so).

    A bad setup, and a history file that cannot be written, are reported as one-line errors
    (exit 2); any other error during the game is a bug and keeps its traceback.
    """
    prog = prog_name("brag-play", PROG, argv)
    args = build_parser(prog).parse_args(argv)
    try:
        session = build_session(args, stdin, stdout)
    except ValueError as error:
        print(f"{prog}: error: {one_line(error)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # e.g. while a trained model loads
        print(f"\n{prog}: interrupted", file=sys.stderr)
        return 130
    try:
        with session.history:
            return session.play()
    except FileError as error:  # the history could not be written (a full disk, ...)
        print(f"{prog}: error: {one_line(error)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
