"""A batched engine as on an install where Numba cannot load its kernels."""

import contextlib
import importlib
import sys
from collections.abc import Iterator

import pytest


@contextlib.contextmanager
def kernels_that_cannot_load(monkeypatch: pytest.MonkeyPatch, game: str = "brag") -> Iterator[None]:
    """Inside: the engine's modules of ``game`` (``brag`` or ``put``) are imported afresh (as
    in a new process) and the import of Numba fails (``monkeypatch`` restores them when the
    test ends). The cached answer of ``batched_<game>_unavailable`` and the evaluator's note
    are cleared on entry and exit."""
    package = importlib.import_module(f"brag_env.{game}")
    options = importlib.import_module(f"brag_env.{game}.batched_options")
    from brag_env.evaluation import batched as batched_module

    for name in ("batched", "batched_kernel"):
        importlib.import_module(f"brag_env.{game}.{name}")  # so that it is there to remove
        monkeypatch.delitem(sys.modules, f"brag_env.{game}.{name}")
        monkeypatch.delattr(package, name)
    monkeypatch.setitem(sys.modules, "numba", None)
    caches = (getattr(options, f"batched_{game}_unavailable"), batched_module._note_once)
    for cached in caches:
        cached.cache_clear()
    try:
        yield
    finally:
        for cached in caches:
            cached.cache_clear()
