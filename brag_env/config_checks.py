"""The field checks both games' rule configs make (``BragConfig``, ``PutConfig``).

One way to validate for both games: a config built from numpy scalars (what ``np.random``'s
choices and ``integers`` hand back) is accepted and stored as plain Python values, so it
compares equal to one built from literals and stays JSON-serialisable; a bool is never taken
for an integer (``True`` is an ``int`` to Python, but ``num_players=True`` is a mistake), nor
an integer for a bool. Each check raises a one-line ``ValueError`` naming the field.

The checks work on frozen dataclasses: they read ``getattr(cfg, name)`` and store the
converted value with ``object.__setattr__``.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import numpy as np


def is_int(value: object) -> bool:
    """A Python or numpy integer, but not a bool (Python's or numpy's)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def is_bool(value: object) -> bool:
    """A Python or numpy bool (not 0 or 1)."""
    return isinstance(value, (bool, np.bool_))


def check_int(cfg: Any, name: str, lo: int, hi: int | None = None) -> None:
    """Field ``name`` is an integer in ``lo..hi`` (no upper bound if ``hi`` is None)."""
    v = getattr(cfg, name)
    if not is_int(v):
        raise ValueError(f"{name} must be an integer, got {v!r}")
    if v < lo or (hi is not None and v > hi):
        bound = f">= {lo}" if hi is None else f"between {lo} and {hi}"
        raise ValueError(f"{name} must be {bound}, got {v}")
    object.__setattr__(cfg, name, int(v))


def check_bool(cfg: Any, name: str) -> None:
    """Field ``name`` is true or false."""
    v = getattr(cfg, name)
    if not is_bool(v):
        raise ValueError(f"{name} must be true or false, got {v!r}")
    object.__setattr__(cfg, name, bool(v))


def check_choice(cfg: Any, name: str, choices: tuple[str, ...]) -> None:
    """Field ``name`` is one of the strings ``choices``."""
    v = getattr(cfg, name)
    if not isinstance(v, str) or v not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}; got {v!r}")
    object.__setattr__(cfg, name, str(v))


def int_tuple(value: Any, name: str) -> tuple[int, ...]:
    """A list of integers (or one integer) as a tuple of plain ints."""
    if is_int(value):
        value = (value,)
    try:
        items = tuple(value)
    except TypeError:
        raise ValueError(f"{name} must be a list of integers, got {value!r}") from None
    if not all(is_int(m) for m in items):
        raise ValueError(f"{name} must be a list of integers, got {value!r}")
    return tuple(int(m) for m in items)


def known_options(cls: type, options: dict[str, Any] | None, game: str) -> dict[str, Any]:
    """``options`` as a new dict, once every key is a field of the config class ``cls``; a
    ``ValueError`` names the unknown ones (``game`` says whose options they are)."""
    options = dict(options or {})
    unknown = sorted(set(options) - {f.name for f in fields(cls)})
    if unknown:
        raise ValueError(f"unknown {game} option(s): {', '.join(unknown)}")
    return options
