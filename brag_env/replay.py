"""Step through saved hand histories in the terminal, showing what each player knew.

Examples::

    python -m brag_env.replay runs/eval_hands.jsonl            # every hand, step by step
    python -m brag_env.replay session.jsonl --hand 3           # only the third hand of the file
    python -m brag_env.replay session.jsonl --no-pause > out.txt

The file is JSON Lines of Brag or Put hand histories, as ``evaluate.py --history`` and
``python -m brag_env.play --history`` write them. For every decision the acting player's own
observation is rebuilt by the engine (``brag_env.ui.brag_replay``/``put_replay``): its cards
only once it had looked, the public betting or tricks, the stake and pot or the score. At the end
of each hand come the public result and then the dealt hands, which the table never saw.

At a terminal the replay waits after each step (Enter: next step, n: next hand, q: quit); when
stdin or stdout is not a terminal, or with ``--no-pause``, it prints every step. Histories
written by ``play`` carry their rules; for other files, give non-default rules with
``--option KEY=VALUE``.
(``brag_env.brag.replay`` is the engine's verifying re-application; this is the viewer.)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from rich.console import Console
from rich.panel import Panel

from brag_env.ui.cli import OneLineParser, one_line, parse_options

PROG = "python -m brag_env.replay"


class _NextHand(Exception):
    """The viewer asked to skip to the next hand."""


class _Quit(Exception):
    """The viewer asked to stop."""


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=PROG,
        description="Step through Brag/Put hand histories (JSON Lines), showing what each "
        "player knew at each decision.",
    )
    parser.add_argument("file", metavar="FILE.jsonl", help="hand histories, one JSON per line")
    parser.add_argument(
        "--hand", type=int, metavar="N", help="show only the N-th hand of the file (from 1)"
    )
    parser.add_argument(
        "--no-pause", action="store_true", help="print every step without waiting for Enter"
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a rule option the hands were played with, if the file does not record it",
    )
    return parser


def game_of(record: Mapping[str, Any]) -> str | None:
    """The game of a record ("brag"/"put"): its ``game`` key, else the history's own keys."""
    from brag_env.ui import brag_replay, put_replay

    game = record.get("game")
    if game in ("brag", "put"):
        return str(game)
    if all(key in record for key in brag_replay.REQUIRED_KEYS):
        return "brag"
    if all(key in record for key in put_replay.REQUIRED_KEYS):
        return "put"
    return None


def load_histories(path: str | Path) -> list[dict[str, Any]]:
    """Every hand history of a JSON Lines file; ``ValueError`` (one line) for a bad file."""
    from brag_env.ui import brag_replay, put_replay

    required = {"brag": brag_replay.REQUIRED_KEYS, "put": put_replay.REQUIRED_KEYS}
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a text file of JSON lines") from None
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror or error}") from None
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise ValueError(f"{path} line {number} is not JSON ({error.msg})") from None
        if not isinstance(record, dict):
            raise ValueError(f"{path} line {number} is not a hand history (not a JSON object)")
        game = game_of(record)
        if game is None:
            raise ValueError(
                f"{path} line {number} is not a Brag or Put hand history "
                "(write one with evaluate.py --history or brag_env.play --history)"
            )
        missing = [key for key in required[game] if key not in record]
        if missing:
            raise ValueError(
                f"{path} line {number} is not a complete {game} hand history "
                f"(missing {', '.join(missing)})"
            )
        record["_line"] = number
        record["_game"] = game
        records.append(record)
    if not records:
        raise ValueError(f"{path} holds no hand histories")
    return records


def _session_key(record: Mapping[str, Any]) -> tuple[Any, ...]:
    agents = record.get("seat_agents")
    return (
        record["_game"],
        record.get("episode"),
        record.get("reset_seed"),
        tuple(agents) if isinstance(agents, list) else None,
    )


def _names(record: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    n = record["num_players"]
    agents = record.get("seat_agents")
    players = [str(a) for a in agents] if isinstance(agents, list) and len(agents) == n else []
    return [f"seat {s}" for s in range(n)], players or ["?"] * n


class Viewer:
    """Prints hands step by step; pauses after each step when ``pause`` is set."""

    def __init__(
        self,
        console: Console,
        stdin: TextIO,
        pause: bool,
        overrides: dict[str, Any],
        path: str,
    ) -> None:
        from brag_env.ui.terminal import Prompter

        self.console = console
        self.prompter = Prompter(console, stdin)
        self.pause = pause
        self.overrides = overrides
        self.path = path

    def _wait(self) -> None:
        if not self.pause:
            return
        from brag_env.ui.terminal import EndOfInput

        try:
            answer = self.prompter.ask("[dim]Enter: next step · n: next hand · q: quit[/] ")
        except EndOfInput:
            raise _Quit from None
        if answer.lower() in ("q", "quit", "exit"):
            raise _Quit
        if answer.lower() in ("n", "next"):
            raise _NextHand

    def _fail(self, record: Mapping[str, Any], error: ValueError) -> ValueError:
        hint = "" if record.get("config") else " (other rules? give them with --option KEY=VALUE)"
        return ValueError(f"{self.path} line {record['_line']}: {one_line(error)}{hint}")

    def show(
        self, index: int, total: int, record: dict[str, Any], session: list[dict[str, Any]]
    ) -> None:
        """Hand ``index`` of the file; ``session`` is every hand of its session in the file."""
        game = record["_game"]
        names, players = _names(record)
        number = record["hand_number"] + 1 if game == "brag" else record["hand"]
        episode = record.get("episode")
        where = f" · episode {episode}" if episode is not None else ""
        self.console.print()
        self.console.rule(
            f"[bold]{game.capitalize()} hand {number}[/]{where} · hand {index + 1} of "
            f"{total} in the file"
        )
        self.console.print(
            " · ".join(f"{names[s]}: {players[s]}" for s in range(record["num_players"]))
        )
        try:
            if game == "brag":
                self._show_brag(record, session, names, players)
            else:
                self._show_put(record, names, players)
        except _NextHand:
            self.console.print("[dim](rest of the hand skipped)[/]")

    def _show_brag(
        self,
        record: dict[str, Any],
        session: list[dict[str, Any]],
        names: Sequence[str],
        players: Sequence[str],
    ) -> None:
        from brag_env.ui import brag_replay
        from brag_env.ui.brag_view import hand_result

        try:
            config = brag_replay.config_for(record, self.overrides, len(session))
            shown = brag_replay.shown_before(session[: session.index(record) + 1])
            steps = brag_replay.brag_steps(record, config, shown)
        except ValueError as error:
            raise self._fail(record, error) from None
        for line in brag_replay.hand_header(record, names):
            self.console.print(line)
        for step in steps:
            self.console.print(brag_replay.step_panel(step, names, players, config))
            self._wait()
        self.console.print(
            Panel(hand_result(record, names, config.lowball), title="Result", title_align="left")
        )
        self.console.print(brag_replay.hidden_hands(record, steps, names, config))

    def _show_put(
        self, record: dict[str, Any], names: Sequence[str], players: Sequence[str]
    ) -> None:
        from brag_env.ui import put_replay
        from brag_env.ui.put_view import hand_result

        try:
            config = put_replay.config_for(record, self.overrides)
            steps = put_replay.put_steps(record, config)
        except ValueError as error:
            raise self._fail(record, error) from None
        self.console.print(put_replay.hand_header(record, names, config))
        for step in steps:
            self.console.print(put_replay.step_panel(step, record, names, players, config))
            self._wait()
        self.console.print(
            Panel(hand_result(record, names, config), title="Result", title_align="left")
        )
        self.console.print(put_replay.hidden_hands(record, names))


def run(args: argparse.Namespace, stdin: TextIO | None, stdout: TextIO | None) -> int:
    from brag_env.ui.terminal import make_console

    overrides = parse_options(args.option)
    records = load_histories(args.file)
    total = len(records)
    if args.hand is not None and not 1 <= args.hand <= total:
        raise ValueError(f"{args.file} holds {total} hand(s): --hand must be 1..{total}")
    stdin = stdin if stdin is not None else sys.stdin
    console = make_console(stdout)
    # Pause only for a person at a terminal: stdin to answer, stdout to read.
    interactive = _isatty(stdin) and _isatty(stdout if stdout is not None else sys.stdout)
    viewer = Viewer(console, stdin, interactive and not args.no_pause, overrides, args.file)
    sessions: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for record in records:
        sessions.setdefault(_session_key(record), []).append(record)
    try:
        for index, record in enumerate(records):
            if args.hand is None or args.hand == index + 1:
                viewer.show(index, total, record, sessions[_session_key(record)])
    except _Quit:
        console.print("Replay stopped.")
    return 0


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def main(
    argv: list[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    """Run the command line; ``stdin``/``stdout`` replace the terminal (tests use them)."""
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
