"""The new-game form: what it offers, what it reads, and the table it builds.

Opponents are agent specs as ``evaluate.py`` and the terminal take them (``agents.registry``):
a baseline, ``random``, a shipped model ``model:NAME`` or a model file's path. The rule options
that matter most have their own fields; any other ``brag_v1``/``put_v1`` argument can be given as
``KEY=VALUE`` words (``ui.cli.parse_options``, as ``--option`` reads them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from agents.registry import shipped_models, styles
from brag_env.brag.rules import BragConfig
from brag_env.io import one_line_of
from brag_env.put.rules import PutConfig
from brag_env.ui.cli import parse_options
from brag_env.ui.seating import pick_seed, seat_players
from brag_env.web.tables import WebTable, new_table

GAMES = ("brag", "put")
MAX_OPPONENTS = {"brag": 7, "put": 3}  # B1: 2 to 8 players; P2/P8: 2 to 4
DEFAULT_OPPONENTS = {"brag": ["brag:tight", "brag:bluffer", "random"], "put": ["put:caller"]}
MAX_SESSIONS = 100  # hands per Brag session / Put matches: a page, not a tournament
MAX_FIELD = 1000  # characters in one field


class SetupError(ValueError):
    """The form does not make a table; the message says why, in one line."""


def choices() -> dict[str, list[str]]:
    """Suggested opponent specs per game: its baselines, ``random``, and the shipped models."""
    models = [f"model:{name}" for name in shipped_models()]
    return {
        game: [f"{game}:{style}" for style in sorted(styles(game))]
        + ["random"]
        + [m for m in models if m.startswith(f"model:{game}")]
        for game in GAMES
    }


def _yes(value: str) -> bool:
    return value.strip().lower() in ("1", "true", "yes", "on")


@dataclass
class NewGameForm:
    """The fields of the form as text, as the page sends them."""

    game: str = "brag"
    opponents: dict[str, list[str]] = field(default_factory=lambda: dict(DEFAULT_OPPONENTS))
    seat: str = "0"
    seed: str = ""
    hands: str = "10"  # Brag: hands in the session (B17)
    matches: str = "1"  # Put
    ante: str = str(BragConfig().ante)
    starting_chips: str = str(BragConfig().starting_chips)
    allow_blind: bool = BragConfig().allow_blind
    cover_pot: bool = BragConfig().cover_pot
    target_points: str = str(PutConfig().target_points)
    simultaneous: bool = True  # P7 with three players
    more: str = ""  # other rule options, KEY=VALUE words

    @classmethod
    def defaults(cls) -> NewGameForm:
        return cls()

    @classmethod
    def read(cls, data: Mapping[str, Any]) -> NewGameForm:
        """The form from the posted fields (missing ones keep their defaults; checkboxes are
        sent only when ticked, so the page sends a hidden ``boxes`` field to say it had them)."""

        def text(key: str, default: str) -> str:
            value = data.get(key)
            return str(value)[:MAX_FIELD] if isinstance(value, str) else default

        form = cls()
        form.game = text("game", form.game)
        opponents = dict(form.opponents)
        for game in GAMES:
            listed = data.getlist(f"{game}_opponent") if hasattr(data, "getlist") else []
            given = [str(s)[:MAX_FIELD].strip() for s in listed if isinstance(s, str)]
            if given:
                opponents[game] = [s for s in given if s]
        boxes = "boxes" in data  # the posted form had checkboxes: an absent one is unticked
        brag_boxes, put_boxes = boxes and form.game == "brag", boxes and form.game == "put"
        return replace(
            form,
            opponents=opponents,
            seat=text("seat", form.seat),
            seed=text("seed", form.seed),
            hands=text("hands", form.hands),
            matches=text("matches", form.matches),
            ante=text("ante", form.ante),
            starting_chips=text("starting_chips", form.starting_chips),
            allow_blind="allow_blind" in data if brag_boxes else form.allow_blind,
            cover_pot="cover_pot" in data if brag_boxes else form.cover_pot,
            target_points=text("target_points", form.target_points),
            simultaneous="simultaneous" in data if put_boxes else form.simultaneous,
            more=text("more", form.more),
        )

    def _number(self, label: str, value: str, low: int, high: int) -> int:
        try:
            number = int(value.strip())
        except ValueError:
            raise SetupError(f"{label} must be a whole number, got {value!r}") from None
        if not low <= number <= high:
            raise SetupError(f"{label} must be {low} to {high}, got {number}")
        return number

    def options(self) -> dict[str, Any]:
        """The rule options of the table (``brag_v1``/``put_v1`` arguments)."""
        try:
            options = parse_options(self.more.split())
        except ValueError as error:
            raise SetupError(one_line_of(error)) from None
        if self.game == "brag":
            options.setdefault(
                "hands_per_session", self._number("hands", self.hands, 1, MAX_SESSIONS)
            )
            options.setdefault("ante", self._number("ante", self.ante, 0, 10**6))
            options.setdefault(
                "starting_chips",
                self._number("starting chips", self.starting_chips, 1, 10**9),
            )
            options.setdefault("allow_blind", self.allow_blind)
            options.setdefault("cover_pot", self.cover_pot)
        else:
            options.setdefault(
                "target_points", self._number("points to win", self.target_points, 1, 100)
            )
            if len(self.opponents["put"]) == 2:  # P7: how the two opponents answer a Put
                options.setdefault(
                    "put_answers", "simultaneous" if self.simultaneous else "in_turn"
                )
        return options

    def build(self) -> WebTable:
        """The table; ``SetupError`` (one line) for anything that does not make one, an agent
        whose model file fails to load included."""
        if self.game not in GAMES:
            raise SetupError(f"unknown game {self.game!r}: choose brag or put")
        opponents = self.opponents[self.game]
        most = MAX_OPPONENTS[self.game]
        if not 1 <= len(opponents) <= most:
            raise SetupError(f"{self.game} takes 1 to {most} opponents, got {len(opponents)}")
        seat = self._number("your seat", self.seat, 0, len(opponents))
        seed = self._number("seed", self.seed, 0, 2**31 - 2) if self.seed.strip() else None
        matches = self._number("matches", self.matches, 1, MAX_SESSIONS)
        options = self.options()
        try:
            seating = seat_players(self.game, opponents, seat)
            return new_table(self.game, seating, options, pick_seed(seed), matches)
        except Exception as error:
            # Whatever a rule option or an agent raises while the table is built (a model
            # file that is not a model, a torch that is missing, a bad option) is the
            # user's setup to fix, shown on the form: never a server error.
            raise SetupError(f"cannot set up the table: {one_line_of(error)}") from None
