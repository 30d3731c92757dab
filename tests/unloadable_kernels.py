"""The batched Brag engine as on an install where Numba cannot load its kernels."""

import contextlib
import sys
from collections.abc import Iterator

import pytest


@contextlib.contextmanager
def kernels_that_cannot_load(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Inside: the engine's modules are imported afresh (as in a new process) and the import
    of Numba fails (``monkeypatch`` restores them when the test ends). The cached answer of
    ``batched_brag_unavailable`` and the evaluator's note are cleared on entry and exit."""
    import brag_env.brag
    from brag_env.brag import batched_options
    from brag_env.evaluation import batched as batched_module

    for name in ("batched", "batched_kernel"):
        monkeypatch.delitem(sys.modules, f"brag_env.brag.{name}")
        monkeypatch.delattr(brag_env.brag, name)
    monkeypatch.setitem(sys.modules, "numba", None)
    caches = (batched_options.batched_brag_unavailable, batched_module._note_once)
    for cached in caches:
        cached.cache_clear()
    try:
        yield
    finally:
        for cached in caches:
            cached.cache_clear()
