"""Optional dependencies: one check, one message, for every command that needs an extra.

``require("train", "a trained model", "torch", "sb3_contrib")`` imports the modules and, if one
is missing, raises ``MissingExtra``: a ``ValueError``, so each command line reports it as its
other bad-input errors, one line and exit status 2, naming the extra that installs it.
"""

from __future__ import annotations

import importlib


class MissingExtra(ValueError):
    """An optional dependency is not installed; the message names the extra that brings it."""


def missing_extra_message(module: str, extra: str, purpose: str) -> str:
    """``torch is not installed; a trained model needs the train extra: pip install ...``."""
    return (
        f"{module} is not installed; {purpose} needs the {extra} extra: "
        f'pip install "brag-env[{extra}]" (in a clone: pip install -e ".[{extra}]")'
    )


def require(extra: str, purpose: str, *modules: str) -> None:
    """Import ``modules`` (in order); ``MissingExtra`` naming ``extra`` if one is missing."""
    for name in modules:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as error:  # error.name: the one missing, maybe a dependency
            raise MissingExtra(missing_extra_message(error.name or name, extra, purpose)) from None
