"""Agent spec strings: parse them, list the styles, build agents.

Grammar (one string names one agent)::

    random                        random legal play, any game
    brag:<style>[:k=v,k=v...]     a Brag baseline, optionally with parameters
    brag7:<style>                 a Seven-card Brag baseline
    put:<style>[:k=v,...]         a Put baseline
    <path>.zip[:k=v,...]          a MaskablePPO model saved by train.py
    model:<name>[:k=v,...]        a shipped model: ``models/<name>.zip`` of the repository

For example ``brag:bluffer:bluff=0.5``, ``runs/put_ppo/model.zip:deterministic=true`` or
``model:brag_headsup``. ``model:`` resolves like ``put:equilibrium`` does: in the shipped
``models/`` folder, which travels with the package (``brag_env.resources``), so it works from any
folder after a clone, an editable install or a wheel.
Every error is a ``ValueError`` with a one-line message naming the bad part.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import Agent, RandomAgent, TableInfo
from brag_env.games import GAME_NAMES
from brag_env.games import GAMES as GAME_SPECS
from brag_env.resources import shipped_dir

GAMES = GAME_NAMES  # the game table (brag_env/games.py)
#: Where ``model:<name>`` looks: the shipped models/ (put:equilibrium's folder too).
MODELS_DIR = shipped_dir("models")
_MODEL_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")

# style name -> agent class, per game; filled by agents.brag / agents.put through ``register``.
_STYLES: dict[str, dict[str, type[Agent]]] = {game: {} for game in GAMES}


def register(game: str, style: str):
    """Class decorator adding a baseline under ``<game>:<style>``."""

    def wrap(cls: type[Agent]) -> type[Agent]:
        if style in _STYLES[game]:
            raise ValueError(f"style {game}:{style} is registered twice")
        _STYLES[game][style] = cls
        return cls

    return wrap


def styles(game: str) -> dict[str, type[Agent]]:
    """The registered styles of a game, by name."""
    _load_baselines()
    if game not in _STYLES:
        raise ValueError(f"unknown game {game!r}; games: {', '.join(GAMES)}")
    return dict(_STYLES[game])


def _load_baselines() -> None:
    # Imported lazily: the baseline modules (each game's ``agents``) register themselves on
    # import.
    for spec in GAME_SPECS.values():
        for module in spec.agents:
            importlib.import_module(module)


@dataclass(frozen=True)
class AgentSpec:
    """A parsed spec. ``kind`` is "random", "style" or "model"."""

    text: str
    kind: str
    game: str | None = None
    style: str | None = None
    path: str | None = None
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """A short display name: the spec text, or the model file's parent folder and name."""
        if self.kind == "model" and self.path is not None:
            p = Path(self.path)
            short = f"{p.parent.name}/{p.name}" if p.parent.name else p.name
            return self.text.replace(self.path, short, 1)
        return self.text


def _spec_help(game: str | None) -> str:
    games = [game] if game in GAMES else list(GAMES)
    parts = ["'random'"]
    for g in games:
        parts.append(f"'{g}:<style>' (styles: {', '.join(sorted(styles(g)))})")
    parts.append("'model:<name>' (a shipped model in models/) or a path to a model .zip")
    return ", ".join(parts)


def shipped_models() -> list[str]:
    """The names ``model:<name>`` accepts: the ``.zip`` files in ``MODELS_DIR``."""
    return sorted(p.stem for p in MODELS_DIR.glob("*.zip") if p.is_file())


def _shipped_model_spec(text: str, game: str | None) -> AgentSpec:
    """``model:NAME[:k=v,...]`` -> the spec of ``MODELS_DIR/NAME.zip``."""
    name, _, param_text = text[len("model:") :].partition(":")
    name = name.strip()
    if not _MODEL_NAME.fullmatch(name) or name.lower().endswith(".zip"):
        raise ValueError(
            f"bad agent spec {text!r}: model:<name> takes the name of a file in models/ without "
            "'.zip' (letters, digits, '_', '.', '-'); give a path to load another file"
        )
    path = MODELS_DIR / f"{name}.zip"
    if not path.is_file():
        known = ", ".join(shipped_models()) or "none yet"
        raise ValueError(f"no shipped model {name!r}: {path} does not exist (shipped: {known})")
    params = _parse_params(text, param_text, _model_defaults())
    return AgentSpec(text, "model", game=game, path=str(path), params=params)


def parse_spec(text: str, game: str | None = None) -> AgentSpec:
    """Parse and validate a spec string (for ``game``, if given); ``ValueError`` if it is bad."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"empty agent spec; expected {_spec_help(game)}")
    text = text.strip()

    if text.lower().startswith("model:"):
        return _shipped_model_spec(text, game)
    if ".zip" in text.lower():
        path, rest = _split_model_spec(text)
        params = _parse_params(text, rest, _model_defaults())
        return AgentSpec(text, "model", game=game, path=path, params=params)

    if text.lower() == "random":
        return AgentSpec(text, "random", game=game)

    head, sep, tail = text.partition(":")
    if game is not None and game not in GAMES:
        raise ValueError(f"unknown agent spec {text!r} for {game}: only 'random' and model paths")
    if not sep or head.lower() not in GAMES:
        raise ValueError(f"unknown agent spec {text!r}; expected {_spec_help(game)}")
    spec_game = head.lower()
    if game is not None and spec_game != game:
        raise ValueError(f"agent spec {text!r} is a {spec_game} agent, but the game is {game}")
    style, _, param_text = tail.partition(":")
    style = style.strip().lower()
    known = styles(spec_game)
    if style not in known:
        raise ValueError(
            f"unknown {spec_game} style {style!r} in {text!r}; styles: {', '.join(sorted(known))}"
        )
    params = _parse_params(text, param_text, dict(known[style].DEFAULTS))  # type: ignore[attr-defined]
    return AgentSpec(text, "style", game=spec_game, style=style, params=params)


def _split_model_spec(text: str) -> tuple[str, str]:
    """``"runs/a.zip.d/model.zip:deterministic=true"`` -> (the path, the parameter text).

    The path ends at the last ``.zip`` that ends the text or is followed by ``:``, so folders
    named ``x.zip.d`` or ``v1.zip-runs`` are part of the path.
    """
    lower = text.lower()
    end = len(lower)
    while (at := lower.rfind(".zip", 0, end)) >= 0:
        rest = text[at + 4 :]
        if not rest or rest.startswith(":"):
            return text[: at + 4], rest[1:]
        end = at
    raise ValueError(f"bad agent spec {text!r}: a model path must end in .zip")


def _model_defaults() -> dict[str, Any]:
    from agents.model import ModelAgent

    return dict(ModelAgent.DEFAULTS)


def _parse_params(spec: str, text: str, defaults: dict[str, Any]) -> dict[str, Any]:
    """``k=v,k=v`` -> dict, each value converted to the type of its default."""
    params: dict[str, Any] = {}
    if not text.strip():
        return params
    for item in text.split(","):
        key, eq, raw = item.partition("=")
        key, raw = key.strip(), raw.strip()
        if not eq or not key or not raw:
            raise ValueError(f"bad parameter {item!r} in agent spec {spec!r}: expected key=value")
        if key not in defaults:
            names = ", ".join(sorted(defaults)) or "none"
            raise ValueError(
                f"unknown parameter {key!r} in agent spec {spec!r}; parameters: {names}"
            )
        if key in params:
            raise ValueError(f"parameter {key!r} is given twice in agent spec {spec!r}")
        params[key] = _convert(spec, key, raw, defaults[key])
    return params


def _convert(spec: str, key: str, raw: str, default: Any) -> Any:
    try:
        if isinstance(default, bool):
            if raw.lower() in ("1", "true", "yes", "on"):
                return True
            if raw.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError
        if isinstance(default, int):
            return int(raw)
        if isinstance(default, float):
            value = float(raw)
            if not np.isfinite(value):
                raise ValueError
            return value
        return raw
    except ValueError:
        kind = (
            "true or false"
            if isinstance(default, bool)
            else "an integer"
            if isinstance(default, int)
            else "a number"
        )
        raise ValueError(f"parameter {key}={raw!r} in agent spec {spec!r} must be {kind}") from None


def agent_class(spec: AgentSpec) -> type[Agent]:
    """The class ``make_agent`` builds for a parsed spec (its ``reads_file``, say), unbuilt."""
    if spec.kind == "random":
        return RandomAgent
    if spec.kind == "model":
        from agents.model import ModelAgent  # torch is imported when a model loads, not here

        return ModelAgent
    return styles(spec.game)[spec.style]  # type: ignore[index]


def make_agent(
    spec: str | AgentSpec,
    table: TableInfo,
    seed: int | np.random.Generator | None = None,
) -> Agent:
    """Build and bind the agent a spec names, for the given table."""
    parsed = spec if isinstance(spec, AgentSpec) else parse_spec(spec, table.game)
    if parsed.kind == "style" and parsed.game != table.game:
        raise ValueError(f"agent spec {parsed.text!r} is a {parsed.game} agent, not {table.game}")
    cls = agent_class(parsed)
    if parsed.kind == "random":
        agent: Agent = cls(seed, name=parsed.label)
    elif parsed.kind == "model":
        assert parsed.path is not None
        agent = cls(parsed.path, seed, name=parsed.label, **parsed.params)  # type: ignore[call-arg]
    else:
        agent = cls(seed, name=parsed.label, **parsed.params)  # type: ignore[call-arg]
    agent.bind(table)
    return agent
