"""Where the files that ship with the package live: the trained models and the training configs.

The repository keeps one copy of each, in ``models/`` and ``configs/`` at its root;
``brag_env/models`` and ``brag_env/configs`` are symbolic links to them, so that a wheel carries
them as package data (``pyproject.toml``) and an installed ``brag-evaluate``, ``brag-play`` or
``brag-train`` finds them from any folder. In a clone the links resolve to the root folders, so
the paths printed are the ones the docs use. A checkout without symbolic links (Git on Windows
with ``core.symlinks`` off writes each link as a small text file) falls back to the root folders.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Literal

Shipped = Literal["models", "configs"]
_REPO = Path(__file__).resolve().parent.parent


def shipped_dir(kind: Shipped) -> Path:
    """The folder of shipped ``kind`` files, symbolic links resolved."""
    packaged = Path(str(files("brag_env") / kind))
    if packaged.is_dir():
        return packaged.resolve()
    return _REPO / kind
