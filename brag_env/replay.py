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
import importlib
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from rich.console import Console, RenderableType
from rich.panel import Panel
from rich.text import Text

from brag_env.games import game_spec
from brag_env.io import (
    MAX_HISTORY_BYTES,
    MAX_LINE_BYTES,
    FileError,
    loads_bounded,
    read_text_bounded,
    terminal_safe,
    terminal_safe_json,
)
from brag_env.ui.cli import OneLineParser, one_line, parse_options, prog_name, quiet_on_closed_pipe
from brag_env.ui.records import GAMES, check_record

if TYPE_CHECKING:
    from brag_env.brag.rules import BragConfig
    from brag_env.brag7.rules import Brag7Config
    from brag_env.put.rules import PutConfig
    from brag_env.ui.brag7_replay import Brag7Step
    from brag_env.ui.brag_replay import BragStep
    from brag_env.ui.put_replay import PutStep

PROG = "python -m brag_env.replay"


class _NextHand(Exception):
    """The viewer asked to skip to the next hand."""


class _Quit(Exception):
    """The viewer asked to stop."""


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog=prog,
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
    """The game of a record ("brag"/"put"): its ``game`` key, else the history's own keys.

    ``ValueError`` for a ``game`` that is neither (another game's history)."""
    if "game" in record:
        game = record["game"]
        if game not in GAMES:
            *most, last = GAMES
            raise ValueError(
                f"unknown game {game!r} (this viewer reads {', '.join(most)} and {last} hands)"
            )
        return str(game)
    return next(
        (name for name, keys in _required_keys().items() if all(key in record for key in keys)),
        None,
    )


def _required_keys() -> dict[str, tuple[str, ...]]:
    """game -> the keys every hand history line of it holds (its replayer's)."""
    return {name: _replayer(name).required_keys for name in GAMES}


def _replayer(game: str) -> Replayer:
    return game_spec(game).load("replayer")()


def load_histories(path: str | Path) -> list[dict[str, Any]]:
    """Every hand history of a JSON Lines file; ``ValueError`` (one line) for a bad file.

    Each line must be a Brag or Put hand history whose entries have the right shapes
    (``brag_env.ui.records``); whether they add up is checked when a hand is replayed.
    """
    try:
        text = read_text_bounded(path, MAX_HISTORY_BYTES)
    except FileError as error:
        if "not UTF-8" in str(error):
            raise ValueError(f"{path} is not a text file of JSON lines") from None
        raise ValueError(str(error)) from None
    return parse_histories(text, path)


def parse_histories(text: str, path: str | Path) -> list[dict[str, Any]]:
    """The hand histories of a JSON Lines text read from ``path`` (named in the errors), as
    ``load_histories`` checks them."""
    required = _required_keys()
    records = []
    configs: dict[tuple[Any, ...], tuple[int, Any]] = {}  # per session: its first line's rules
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if len(line) > MAX_LINE_BYTES:
            raise ValueError(
                f"{path} line {number} is longer than {MAX_LINE_BYTES:,} characters: refused "
                "(a hand history line is a few thousand)"
            )
        # Every string of the file is made safe for the terminal here, once (seat names,
        # labels, cards): whatever the replay or an error message shows later is clean.
        record = terminal_safe_json(loads_bounded(line, f"{path} line {number}", MAX_LINE_BYTES))
        if not isinstance(record, dict):
            raise ValueError(f"{path} line {number} is not a hand history (not a JSON object)")
        try:
            game = game_of(record)
        except ValueError as error:
            raise ValueError(f"{path} line {number}: {error}") from None
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
        try:
            check_record(game, record)
        except ValueError as error:
            raise ValueError(f"{path} line {number}: malformed hand history ({error})") from None
        record["_line"] = number
        record["_game"] = game
        first = configs.setdefault(_session_key(record), (number, record.get("config")))
        if record.get("config") != first[1]:
            raise ValueError(
                f"{path} line {number}: its config differs from that of line {first[0]} of the "
                "same session (episode, seed and players): one session has one set of rules"
            )
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


Sessions = dict[tuple[Any, ...], list[dict[str, Any]]]


def group_sessions(records: Sequence[dict[str, Any]]) -> Sessions:
    """The hands of each session (Brag) or match (Put) in the file, in file order."""
    sessions: Sessions = {}
    for record in records:
        sessions.setdefault(_session_key(record), []).append(record)
    return sessions


def _number_of(record: Mapping[str, Any]) -> int:
    return int(record[game_spec(record["_game"]).number_key])


def _position(record: Mapping[str, Any], session: Sequence[Mapping[str, Any]]) -> int:
    """Where ``record`` itself (not an equal line) is in ``session``."""
    return next(i for i, other in enumerate(session) if other is record)


def hand_before(
    record: Mapping[str, Any], session: Sequence[Mapping[str, Any]]
) -> Mapping[str, Any] | None:
    """The session's hand just before ``record``, if in the file: the latest earlier line with
    the previous hand number whose stacks (Brag) or scores (Put) lead to ``record``'s."""
    totals = game_spec(record["_game"]).totals_keys
    if totals is None:  # each hand replays on its own
        return None
    before, after = totals
    wanted = _number_of(record) - 1
    earlier = session[: _position(record, session)]
    return next(
        (r for r in reversed(earlier) if _number_of(r) == wanted and r[after] == record[before]),
        None,
    )


def _names(record: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    n = record["num_players"]
    agents = record.get("seat_agents")
    players = [str(a) for a in agents] if isinstance(agents, list) and len(agents) == n else []
    return [f"seat {s}" for s in range(n)], players or ["?"] * n


@dataclass
class Prepared:
    """A hand ready to show: its rules, its steps, and a note when its past is unknown."""

    config: BragConfig | PutConfig | Brag7Config
    steps: list[BragStep] | list[PutStep] | list[Brag7Step]
    note: str | None
    result: Any = None  # Seven-card Brag: the deal played again (``DealResult``)


def _fail(path: str, record: Mapping[str, Any], error: ValueError) -> ValueError:
    hint = "" if record.get("config") else " (other rules? give them with --option KEY=VALUE)"
    where = f"{path} line {record['_line']}".lstrip()
    return ValueError(f"{where}: {one_line(error)}{hint}")


def prepare(
    record: dict[str, Any],
    session: list[dict[str, Any]],
    overrides: Mapping[str, Any],
    path: str = "",
) -> Prepared:
    """Rebuild every decision of ``record`` as its player saw it, with what the table knew
    from the session's earlier hands (B18 shown cards, the last hand's block of the
    observations). ``ValueError`` naming the line when a hand does not replay."""
    spec = game_spec(record["_game"])
    before = hand_before(record, session)
    note = None
    # Seven-card Brag keeps no totals between deals: a deal's views hold nothing of the last.
    if before is None and spec.totals_keys is not None and _number_of(record) > spec.first_number:
        note = (
            "(the hand before this one is not in the file: what it showed the table is left "
            "out of these views)"
        )
    try:
        line = HandLine(record, session, overrides, before, path, note)
        return _replayer(spec.name).prepare(line)
    except _LineError as error:
        raise ValueError(str(error)) from None
    except ValueError as error:
        raise _fail(path, record, error) from None


class _LineError(Exception):
    """A failure already reported with its line (an earlier hand's)."""


@dataclass(frozen=True)
class HandLine:
    """A history line to replay, with what the viewer knows around it."""

    record: dict[str, Any]
    session: list[dict[str, Any]]  # every line of its session in the file
    overrides: Mapping[str, Any]  # --option rules
    before: Mapping[str, Any] | None  # the session's previous hand, if in the file
    path: str  # the file, for the errors
    note: str | None  # shown when the hand's past is unknown


class Replayer(Protocol):
    """How the viewer replays one game's history lines (each ``GameSpec.replayer``)."""

    required_keys: tuple[str, ...]

    def prepare(self, line: HandLine) -> Prepared:
        """The hand's rules and steps."""
        ...

    def parts(
        self, record: dict[str, Any], hand: Prepared, names: list[str], players: list[str]
    ) -> tuple[list[RenderableType], list[tuple[int, RenderableType]], Any, Any]:
        """The hand's own header lines, its ``(seat, panel)`` steps, result and hidden hands."""
        ...


class _ViewReplayer:
    """A replayer whose game's replay views (``view``, a brag_env.ui module) list the keys."""

    view: str

    @property
    def required_keys(self) -> tuple[str, ...]:
        return importlib.import_module(self.view).REQUIRED_KEYS


class BragReplayer(_ViewReplayer):
    """Three-Card Brag: a hand's views carry what the earlier hands showed (B18) and the last
    hand's result."""

    view = "brag_env.ui.brag_replay"

    def prepare(self, line: HandLine) -> Prepared:
        from brag_env.ui import brag_replay

        record, session = line.record, line.session
        config = brag_replay.config_for(record, line.overrides, len(session))
        previous = None
        if line.before is not None:
            try:
                previous = brag_replay.previous_result(line.before, config)
            except ValueError as error:
                raise _LineError(_fail(line.path, line.before, error)) from None
        shown = brag_replay.shown_before(session[: _position(record, session) + 1])
        steps = brag_replay.brag_steps(record, config, shown, previous)
        return Prepared(config, steps, line.note)

    def parts(
        self, record: dict[str, Any], hand: Prepared, names: list[str], players: list[str]
    ) -> tuple[list[RenderableType], list[tuple[int, RenderableType]], Any, Any]:
        from brag_env.ui import brag_replay
        from brag_env.ui.brag_view import hand_result as brag_result

        config = hand.config
        header = list(brag_replay.hand_header(record, names))
        steps = [(s.seat, brag_replay.step_panel(s, names, players, config)) for s in hand.steps]
        result = brag_result(record, names, config.lowball)
        hidden = brag_replay.hidden_hands(record, hand.steps, names, config)
        return header, steps, result, hidden


class Brag7Replayer(_ViewReplayer):
    """Seven-card Brag (B24): each deal replays on its own."""

    view = "brag_env.ui.brag7_replay"

    def prepare(self, line: HandLine) -> Prepared:
        from brag_env.ui import brag7_replay

        config = brag7_replay.config_for(line.record, line.overrides)
        result, steps = brag7_replay.brag7_steps(line.record, config)
        return Prepared(config, steps, None, result)

    def parts(
        self, record: dict[str, Any], hand: Prepared, names: list[str], players: list[str]
    ) -> tuple[list[RenderableType], list[tuple[int, RenderableType]], Any, Any]:
        from brag_env.ui import brag7_replay

        steps = [(s.seat, brag7_replay.step_panel(s, names, players)) for s in hand.steps]
        result = brag7_replay.deal_result(hand.result, names)
        return [], steps, result, brag7_replay.hidden_cards(hand.result, names)


class PutReplayer(_ViewReplayer):
    """Put: a hand's views carry what the match's previous hand left them (its last hand)."""

    view = "brag_env.ui.put_replay"

    def prepare(self, line: HandLine) -> Prepared:
        from brag_env.ui import put_replay

        config = put_replay.config_for(line.record, line.overrides)
        last_hand = None
        if line.before is not None:
            try:
                last_hand = put_replay.last_hand_of(line.before, config)
            except ValueError as error:
                raise _LineError(_fail(line.path, line.before, error)) from None
        return Prepared(config, put_replay.put_steps(line.record, config, last_hand), line.note)

    def parts(
        self, record: dict[str, Any], hand: Prepared, names: list[str], players: list[str]
    ) -> tuple[list[RenderableType], list[tuple[int, RenderableType]], Any, Any]:
        from brag_env.ui import put_replay
        from brag_env.ui.put_view import hand_result as put_result

        config = hand.config
        header = [put_replay.hand_header(record, names, config)]
        steps = [
            (s.seat, put_replay.step_panel(s, record, names, players, config)) for s in hand.steps
        ]
        result = put_result(record, names, config)
        return header, steps, result, put_replay.hidden_hands(record, names)


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

    def show(
        self, index: int, total: int, record: dict[str, Any], session: list[dict[str, Any]]
    ) -> None:
        """Hand ``index`` of the file; ``session`` is every hand of its session in the file."""
        parts = hand_parts(index, total, record, session, self.overrides, self.path)
        self.console.print()
        self.console.rule(parts.title)
        for line in parts.header:
            self.console.print(line)
        try:
            for _, panel in parts.steps:
                self.console.print(panel)
                self._wait()
        except _NextHand:
            self.console.print("[dim](rest of the hand skipped)[/]")
        self.console.print(parts.result)
        self.console.print(parts.hidden)


@dataclass
class HandParts:
    """One hand of a history file drawn for a viewer: its ``title``, ``header`` lines, each
    decision's ``(seat, panel)`` as that seat saw it, the public ``result`` and the ``hidden``
    dealt hands (which nobody at the table saw: a viewer of one seat leaves them out)."""

    title: str
    header: list[RenderableType]
    steps: list[tuple[int, RenderableType]]
    result: RenderableType
    hidden: RenderableType


def hand_parts(
    index: int,
    total: int,
    record: dict[str, Any],
    session: list[dict[str, Any]],
    overrides: Mapping[str, Any],
    path: str = "",
) -> HandParts:
    """Hand ``index`` of ``total`` in a file, with ``session`` every hand of its session in
    the file; ``ValueError`` naming the line when the hand does not replay."""
    hand = prepare(record, session, overrides, path)
    spec = game_spec(record["_game"])
    names, players = _names(record)
    number = _number_of(record) + 1 - spec.first_number  # shown counted from 1
    episode = record.get("episode")
    where = f" · episode {episode}" if episode is not None else ""
    title = f"[bold]{spec.title} {spec.hand_word} {number}[/]{where} · hand {index + 1} of {total}"
    title += " in the file"
    header: list[RenderableType] = [
        Text(" · ".join(f"{names[s]}: {players[s]}" for s in range(record["num_players"])))
    ]
    if hand.note:
        header.append(Text(hand.note, style="dim"))
    own_header, steps, result, hidden = _replayer(spec.name).parts(record, hand, names, players)
    header.extend(own_header)
    return HandParts(
        title, header, steps, Panel(result, title="Result", title_align="left"), hidden
    )


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
    sessions = group_sessions(records)
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


@quiet_on_closed_pipe
def main(
    argv: list[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    """Run the command line; ``stdin``/``stdout`` replace the terminal (tests use them)."""
    prog = prog_name("brag-replay", PROG, argv)
    args = build_parser(prog).parse_args(argv)
    try:
        return run(args, stdin, stdout)
    except BrokenPipeError:
        raise  # stdout's reader has gone: quiet_on_closed_pipe ends the command
    except (ValueError, OSError) as error:
        print(f"{prog}: error: {terminal_safe(one_line(error))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\n{prog}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
