"""A history file opened in the browser, stepped through a decision at a time.

The file is read and checked as ``python -m brag_env.replay`` reads it (``replay.parse_histories``)
and each hand is rebuilt by the same code (``replay.hand_parts``): a decision shows exactly what
the acting player's observation held. The viewer picks whose eyes to use: ``all`` shows every
decision and, after the result, the dealt hands nobody at the table saw; a seat number shows
only that seat's decisions and the public result, never the hidden hands.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from brag_env.io import MAX_HISTORY_BYTES, brief
from brag_env.replay import group_sessions, hand_parts, parse_histories
from brag_env.web.render import rich_html


def load_replay(raw: bytes, name: str) -> Replay:
    """The hands of an uploaded history file; ``ValueError`` (one line) for a bad one."""
    if len(raw) > MAX_HISTORY_BYTES:
        raise ValueError(f"{name} is larger than {MAX_HISTORY_BYTES:,} bytes: refused")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{name} is not a text file of JSON lines") from None
    return Replay(name, parse_histories(text, name))


@dataclass
class Replay:
    name: str
    records: list[dict[str, Any]]

    def __post_init__(self) -> None:
        self.sessions = group_sessions(self.records)

    def _number(self, query: Mapping[str, str], key: str, default: int, high: int) -> int:
        raw = query.get(key, str(default))
        if not raw.isascii() or not raw.isdigit() or not 0 <= int(raw) <= high:
            raise ValueError(f"{key} must be a number from 0 to {high}, got {brief(raw)}")
        return int(raw)

    def view(self, query: Mapping[str, str]) -> dict[str, Any]:
        """What the page shows for ``?hand=H&seat=all|S&step=K`` (hand and step from 0;
        the step after the last is the hand's end). ``ValueError`` for a bad query or a
        hand that does not replay."""
        total = len(self.records)
        index = self._number(query, "hand", 0, total - 1)
        record = self.records[index]
        n = int(record["num_players"])
        seat_text = query.get("seat", "all")
        seat = None if seat_text == "all" else self._number(query, "seat", 0, n - 1)
        session = self.sessions[
            next(key for key, hands in self.sessions.items() if any(h is record for h in hands))
        ]
        parts = hand_parts(index, total, record, session, {}, self.name)
        steps = [panel for who, panel in parts.steps if seat is None or who == seat]
        step = self._number(query, "step", 0, len(steps))
        end = step == len(steps)
        shown: list[Any] = [steps[step]] if not end else [parts.result]
        if end and seat is None:
            shown.append(parts.hidden)
        return {
            "name": self.name,
            "hands": [
                {"index": i, "game": r["_game"], "line": r["_line"]}
                for i, r in enumerate(self.records)
            ],
            "hand": index,
            "seat": "all" if seat is None else str(seat),
            "seats": [str(s) for s in range(n)],
            "step": step,
            "steps": len(steps),
            "end": end,
            "title": parts.title.replace("[bold]", "").replace("[/]", ""),
            "header": rich_html(parts.header),
            "body": rich_html(shown),
        }
