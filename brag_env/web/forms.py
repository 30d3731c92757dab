"""The new-game form: what it offers, what it reads, and the table it builds.

Opponents are agent specs as ``evaluate.py`` and the terminal take them (``agents.registry``): a
baseline, ``random``, a shipped model ``model:NAME`` or a model file's path. The rule options
that matter most have their own fields; any other rule option of
``brag_v1``/``brag7_v0``/``put_v1`` can be given as ``KEY=VALUE`` words
(``ui.cli.parse_options``), held to the same bounds as the fields.

A model plays only the table it was trained for (``agents.model.check_table``). The form says
which in its own words: a shipped model's link fills the form with that table
(``NewGameForm.for_model``), and a model that does not fit the table is refused naming the
fields to change (``model_fit``), never with the command line's ``--option`` wording.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from agents.model import OBSERVATION_OPTIONS, load_policy, trained_env, training_config
from agents.registry import MODELS_DIR, parse_spec, shipped_models, styles
from brag_env.games import GAMES as GAME_SPECS
from brag_env.games import FormChoice, GameSpec, load
from brag_env.io import brief, one_line_of
from brag_env.ui.cli import parse_options
from brag_env.ui.seating import pick_seed, seat_players
from brag_env.web.tables import WebTable, new_table

GAMES = tuple(sorted(GAME_SPECS))  # the page lists the games alphabetically
MAX_OPPONENTS = {name: max(spec.num_players) - 1 for name, spec in GAME_SPECS.items()}
DEFAULT_OPPONENTS = {name: list(GAME_SPECS[name].web_opponents) for name in GAMES}
MAX_SESSIONS = 100  # hands per Brag session / Put matches: a page, not a tournament
MAX_FIELD = 1000  # characters in one field
CONFIGS: dict[str, Any] = {name: spec.config_class for name, spec in GAME_SPECS.items()}


class SetupError(ValueError):
    """The form does not make a table; the message says why, in one line."""


def choices() -> dict[str, list[str]]:
    """Suggested opponent specs per game: its baselines, ``random``, and the shipped models."""
    models = [f"model:{name}" for name in shipped_models()]
    return {
        game: [f"{game}:{style}" for style in sorted(styles(game))]
        + ["random"]
        + [m for m in models if shipped_game(m.removeprefix("model:")) == game]
        for game in GAMES
    }


def shipped_game(name: str) -> str | None:
    """The game the shipped model ``name`` was trained for (its zip's record; no torch)."""
    try:
        trained = trained_env(MODELS_DIR / f"{name}.zip")
    except ValueError:
        return None
    return trained.game if trained is not None and trained.game in GAMES else None


def model_tables() -> list[dict[str, str]]:
    """The shipped models that record their game, each with the link that fills the form."""
    tables = []
    for name in shipped_models():
        game = shipped_game(name)
        if game is not None:
            tables.append({"spec": f"model:{name}", "game": game, "link": f"/?model={name}"})
    return tables


def trained_table(spec_text: str, game: str) -> dict[str, Any] | None:
    """The options that fix what a model opponent's observation means (``OBSERVATION_OPTIONS``)
    as it was trained, or None for an agent that is not a model or a model that does not
    record them (the table's own checks then speak)."""
    spec = parse_spec(spec_text, game)
    if spec.kind != "model" or spec.path is None:
        return None
    _, info = load_policy(spec.path)
    if info.trained_env is None or info.trained_env.game != game:
        return None
    config = training_config(info, CONFIGS[game])
    return {key: config[key] for key in OBSERVATION_OPTIONS[game]}


def _field_words(game: str, key: str, value: Any) -> str:
    """What to set on the form for ``key`` to be ``value``, in the page's words."""
    if key == "num_players":
        return f"{value - 1} opponent{'s' if value != 2 else ''} ({value} players)"
    spec = GAME_SPECS[game]
    label = next((n.label for n in spec.form_numbers if n.option == key), None)
    if label is not None:
        return f"{label} {value}"
    box = next((c.label for c in spec.form_boxes if c.name == key), None)
    if box is not None:
        return f"{box} {'ticked' if value else 'not ticked'}"
    return f"{_option_word(key, value)} in Other rule options"


def _option_word(key: str, value: Any) -> str:
    """``KEY=VALUE`` as Other rule options reads it back."""
    if isinstance(value, list | tuple):
        return f"{key}=[{','.join(map(str, value))}]"
    return f"{key}={str(value).lower() if isinstance(value, bool) else value}"


def model_fit(spec_text: str, game: str, table: Mapping[str, Any]) -> str | None:
    """Why the model ``spec_text`` cannot play a table of ``table`` options (a config's
    ``to_dict``), naming the form's fields to change; None if it can (or is no model)."""
    trained = trained_table(spec_text, game)
    if trained is None:
        return None
    wrong = [key for key, value in trained.items() if table[key] != value]
    if not wrong:
        return None
    needs = ", ".join(_field_words(game, key, trained[key]) for key in wrong)
    shipped = spec_text.strip().lower().startswith("model:")
    link = " (or follow its link below the form)" if shipped else ""
    return f"{brief(spec_text)} plays only the table it was trained for: set {needs}{link}"


def _one_of(names: tuple[str, ...]) -> str:
    """``("a", "b", "c")`` -> ``"a, b or c"``."""
    return " or ".join(filter(None, [", ".join(names[:-1]), names[-1]]))


def _choices(game: str) -> set[str]:
    """The names of game ``game``'s checkboxes and menus."""
    spec = GAME_SPECS[game]
    return {choice.name for choice in (*spec.form_boxes, *spec.form_menus)}


def _yes(value: str) -> bool:
    return value.strip().lower() in ("1", "true", "yes", "on")


def _first_values(name: str) -> dict[str, Any]:
    """The page's first values of game ``name``'s own fields: field name -> text, or a bool
    for a checkbox; what a field's spec does not give is the rules config's default."""
    spec, config = GAME_SPECS[name], CONFIGS[name]()
    values: dict[str, Any] = {}
    for number in spec.form_numbers:
        first = getattr(config, number.option) if number.default is None else number.default
        values[number.field] = str(first)
    for choice in spec.form_boxes:
        values[choice.name] = bool(
            getattr(config, choice.name) if choice.default is None else choice.default
        )
    for choice in spec.form_menus:
        values[choice.name] = str(
            getattr(config, choice.name) if choice.default is None else choice.default
        )
    return values


def page_games() -> list[tuple[GameSpec, str]]:
    """The games of the page in its order, each with its form's heading."""
    return [
        (GAME_SPECS[name], GAME_SPECS[name].form_title or GAME_SPECS[name].title) for name in GAMES
    ]


def menu_entries(choice: FormChoice) -> tuple[str, ...]:
    """A menu's entries (Wild cards: "none" first, B25)."""
    return tuple(load(choice.entries))


@dataclass
class NewGameForm:
    """The fields of the form as text, as the page sends them."""

    game: str = "brag"
    opponents: dict[str, list[str]] = field(default_factory=lambda: dict(DEFAULT_OPPONENTS))
    seat: str = "0"
    seed: str = ""
    matches: str = "1"  # a game whose episode is one match (Put): how many the page plays
    more: str = ""  # other rule options, KEY=VALUE words
    #: Each game's own fields (its spec's number fields, boxes and menus): game -> field -> value.
    values: dict[str, dict[str, Any]] = field(
        default_factory=lambda: {name: _first_values(name) for name in GAME_SPECS}
    )

    @classmethod
    def defaults(cls) -> NewGameForm:
        return cls()

    @classmethod
    def for_model(cls, name: str) -> NewGameForm:
        """The form filled for the shipped model ``name``: every other seat is that model, and
        the fields hold the table it was trained for. ``SetupError`` for an unknown name."""
        spec = f"model:{name}"
        game = shipped_game(name) if name in shipped_models() else None
        if game is None:
            raise SetupError(f"no shipped model {brief(name)}: pick one of the links below")
        try:
            trained = trained_table(spec, game)
        except ValueError as error:
            raise SetupError(f"cannot read {spec}: {one_line_of(error)}") from None
        form = cls(game=game)
        if trained is None:
            form.opponents = {**form.opponents, game: [spec]}
            return form
        form.opponents = {**form.opponents, game: [spec] * (trained["num_players"] - 1)}
        defaults = CONFIGS[game]().to_dict()
        numbers = {number.option: number.field for number in GAME_SPECS[game].form_numbers}
        choices = _choices(game)
        values = form.values[game]
        more = []
        for key, value in trained.items():
            if key == "num_players":
                continue
            if key in numbers:
                values[numbers[key]] = str(value)
            elif key in choices:
                values[key] = bool(value) if isinstance(values[key], bool) else str(value)
            elif value != defaults[key]:  # no field of its own: only when not the default
                more.append(_option_word(key, value))
        form.more = " ".join(more)
        return form

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
        spec = GAME_SPECS.get(form.game)
        if spec is not None:  # the posted game's own fields
            values = form.values[form.game]
            for number in spec.form_numbers:
                values[number.field] = text(number.field, values[number.field])
            for choice in spec.form_boxes:  # the posted form had them: an absent one is unticked
                values[choice.name] = (
                    choice.name in data if "boxes" in data else values[choice.name]
                )
            for choice in spec.form_menus:
                values[choice.name] = text(choice.name, values[choice.name])
        return replace(
            form,
            opponents=opponents,
            seat=text("seat", form.seat),
            seed=text("seed", form.seed),
            matches=text("matches", form.matches),
            more=text("more", form.more),
        )

    def _number(self, label: str, value: Any, low: int, high: int) -> int:
        try:
            if isinstance(value, bool | float | list | tuple):  # int('3') only, not True or 2.5
                raise ValueError
            number = int(str(value).strip())
        except ValueError:
            raise SetupError(f"{label} must be a whole number, got {brief(value)}") from None
        if not low <= number <= high:
            raise SetupError(f"{label} must be {low} to {high}, got {brief(number)}")
        return number

    def options(self) -> dict[str, Any]:
        """The rule options of the table (``brag_v1``/``brag7_v0``/``put_v1`` arguments)."""
        try:
            options = parse_options(self.more.split(), what="rule option")
        except ValueError as error:
            raise SetupError(one_line_of(error)) from None
        rules = {f.name for f in fields(CONFIGS[self.game])} - {"num_players"}
        unknown = sorted(set(options) - rules)
        if unknown:
            words = ", ".join(brief(key) for key in unknown[:5])
            raise SetupError(
                f"Other rule options: {words} is not a rule option of {self.game} "
                "(the number of players is set by the opponents)"
            )
        spec = GAME_SPECS[self.game]
        values = self.values[self.game]
        for number in spec.form_numbers:
            key = number.option
            if key in options:  # given twice: Other rule options win, within the same bounds
                where = f"{key} in Other rule options"
                options[key] = self._number(where, options[key], number.low, number.high)
            else:
                options[key] = self._number(
                    number.label, values[number.field], number.low, number.high
                )
        for choice in spec.form_boxes:
            if choice.name in rules:  # a box that is a rule option of the game
                options.setdefault(choice.name, values[choice.name])
        default = CONFIGS[self.game]()
        for choice in spec.form_menus:
            entries = menu_entries(choice)
            if values[choice.name] not in entries:
                words = choice.label.split(" (")[0]  # the label without its rule id
                raise SetupError(
                    f"{words} must be one of {', '.join(entries)}, got {brief(values[choice.name])}"
                )
            if values[choice.name] != getattr(default, choice.name):  # the default: as they were
                options.setdefault(choice.name, values[choice.name])
        if "simultaneous" in values and len(self.opponents[self.game]) == 2:
            # P7: how the two opponents answer a Put
            options.setdefault(
                "put_answers", "simultaneous" if values["simultaneous"] else "in_turn"
            )
        return options

    def _model_misfit(self, opponents: list[str], options: dict[str, Any]) -> str | None:
        """Why a model opponent cannot play this table, in the form's words (or None)."""
        try:
            table = CONFIGS[self.game].from_dict({**options, "num_players": len(opponents) + 1})
        except (TypeError, ValueError):
            return None  # a bad rule option: building the table names it
        for spec in dict.fromkeys(opponents):
            try:
                why = model_fit(spec, self.game, table.to_dict())
            except ValueError:
                continue  # a bad spec or model file: building the table names it
            if why:
                return why
        return None

    def build(self) -> WebTable:
        """The table; ``SetupError`` (one line) for anything that does not make one, an agent
        whose model file fails to load included."""
        if self.game not in GAMES:
            raise SetupError(f"unknown game {brief(self.game)}: choose {_one_of(GAMES)}")
        opponents = self.opponents[self.game]
        most = MAX_OPPONENTS[self.game]
        if not 1 <= len(opponents) <= most:
            raise SetupError(f"{self.game} takes 1 to {most} opponents, got {len(opponents)}")
        seat = self._number("your seat", self.seat, 0, len(opponents))
        seed = self._number("seed", self.seed, 0, 2**31 - 2) if self.seed.strip() else None
        matches = self._number("matches", self.matches, 1, MAX_SESSIONS)
        options = self.options()
        why = self._model_misfit(opponents, options)
        if why:
            raise SetupError(why)
        try:
            seating = seat_players(self.game, opponents, seat)
            return new_table(self.game, seating, options, pick_seed(seed), matches)
        except Exception as error:
            # Whatever a rule option or an agent raises while the table is built (a model
            # file that is not a model, a torch that is missing, a bad option) is the
            # user's setup to fix, shown on the form: never a server error.
            raise SetupError(f"cannot set up the table: {one_line_of(error)}") from None
