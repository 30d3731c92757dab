"""The checks the batched engines make of their callers' arrays: one-line ``ValueError``s
instead of numpy's silent casts (1.7 -> 1) and wrap-around indexing (-1 -> the last table);
and whether a compiled engine loads at all (``engine_unavailable``)."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Sequence

import numpy as np


def _integers(given: np.ndarray) -> bool:
    return given.size == 0 or np.issubdtype(given.dtype, np.integer)


def checked_rows(rows, tables: int) -> np.ndarray:
    """``rows`` as int64 table numbers in ``0..tables-1``."""
    given = np.asarray(rows)
    if given.ndim != 1 or not _integers(given):
        raise ValueError(
            f"rows must be a 1-d array of table numbers, got {given.dtype} {given.shape}"
        )
    if given.size and (given.min() < 0 or given.max() >= tables):
        raise ValueError(f"rows must be table numbers 0..{tables - 1}")
    return given.astype(np.int64, copy=False)


def checked_seats(seats, rows: np.ndarray, players: int) -> np.ndarray:
    """``seats`` as int64, one seat ``0..players-1`` per row (-1, the seat to act of a finished
    table, would index from the end)."""
    given = np.asarray(seats)
    bad = given.shape != rows.shape or not _integers(given)
    if not bad and given.size:
        bad = given.min() < 0 or given.max() >= players
    if bad:
        raise ValueError(f"seats must be one seat 0..{players - 1} per row")
    return given.astype(np.int64, copy=False)


def checked_actions(actions, rows: np.ndarray) -> np.ndarray:
    """``actions`` as int64, one integer per row (their legality is the engine's check)."""
    given = np.asarray(actions)
    if given.shape != rows.shape or not _integers(given):
        raise ValueError(
            f"actions must be one integer action per row, got {given.dtype} {given.shape}"
        )
    return given.astype(np.int64, copy=False)


def observation_buffers(out, rows: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """For ``observe``: the array to return (``out``'s first ``rows`` rows, or a new one) and
    the array the kernel writes, C-ordered float32 of exactly (rows, size) (the kernels write
    at flat offsets). They are one array unless ``out`` has another float dtype or layout,
    which then gets a copy of the kernel's rows."""
    shape = (rows, size)
    if out is None:
        out = np.empty(shape, np.float32)
        return out, out
    given = getattr(out, "shape", None)
    if not isinstance(out, np.ndarray) or len(given) != 2 or given[0] < rows or given[1] != size:
        got = given if given is not None else type(out).__name__
        raise ValueError(
            f"out must be an array of at least {rows} rows of {size} values, got {got}"
        )
    if not np.issubdtype(out.dtype, np.floating):  # an int array would truncate silently
        raise ValueError(f"out must be a float array, got {out.dtype}")
    out = out[:rows]
    fits = out.dtype == np.float32 and out.flags.c_contiguous
    return out, out if fits else np.empty(shape, np.float32)


def engine_unavailable(module: str, game: str) -> str | None:
    """Why a compiled batched engine's ``module`` cannot be imported here (one line), or
    None: Numba compiles or loads its kernels on import, which fails when Numba is missing
    or broken or there is no writable cache for it."""
    try:
        importlib.import_module(module)
    except Exception as error:
        lines = str(error).strip().splitlines() or [type(error).__name__]
        return (
            f"the batched {game} engine cannot load ({lines[0]}); set NUMBA_CACHE_DIR to a "
            "writable directory (docs/performance.md)"
        )
    return None


def kernels_cached(entry_points: Sequence) -> bool:
    """Whether every compiled entry point has a version in Numba's disk cache that matches
    its source file (Numba's index of the function, checked against the file's stamp): if
    not, the first use compiles. Reads Numba's private cache objects; when they are not as
    expected, True (say nothing rather than something wrong)."""
    try:
        return all(f._cache._cache_file._load_index() for f in entry_points)
    except Exception:  # a Numba whose cache internals differ
        return True


def frozen_constants(*namespaces: dict) -> tuple[tuple[str, object], ...]:
    """The module-level numbers and tuples of numbers of ``namespaces``, by name: Numba compiles
    a global a kernel reads into the code as a constant, so a cached kernel is stale when one
    changes, also one imported from another file (``HISTORY_LEN``, ``PRIAL``, ``NUM_CARDS``)."""
    found: dict[str, object] = {}
    for namespace in namespaces:
        for name, value in namespace.items():
            if isinstance(value, bool | int | float) or (
                isinstance(value, tuple) and all(isinstance(v, bool | int | float) for v in value)
            ):
                found[name] = value if isinstance(value, tuple) else value.real
    return tuple(sorted(found.items()))


def stamp_source_into_caches(namespace: dict, source: object) -> None:
    """Numba checks a cached kernel against the stamp (time, size) of the kernel's own file
    only, not of the files its callees and constants come from: a change to a game's
    ``rules.py``, or to a constant imported from elsewhere, would leave the kernels compiled
    from the old source. The stamp of ``source``'s file and the value of every constant of
    ``namespace`` (a kernel module's globals) and ``source`` join the stamp of every compiled
    function in ``namespace``, so any of these changes recompiles. Reads Numba's private cache
    objects; when they are not as expected, nothing changes (the cache then works as Numba's
    own)."""
    info = os.stat(source.__file__)
    constants = frozen_constants(namespace, vars(source))
    extra = (os.path.basename(source.__file__), info.st_mtime, info.st_size, constants)
    for value in list(namespace.values()):
        cache_file = getattr(getattr(value, "_cache", None), "_cache_file", None)
        stamp = getattr(cache_file, "_source_stamp", None)
        if stamp is not None:
            cache_file._source_stamp = (stamp, extra)


def stamped_sources(function: object) -> dict[str, tuple] | None:
    """The files ``stamp_source_into_caches`` joined to a compiled function's cache stamp, by
    file name: (mtime, size, constants); None when this Numba keeps its stamp elsewhere."""
    cache_file = getattr(getattr(function, "_cache", None), "_cache_file", None)
    stamp = getattr(cache_file, "_source_stamp", None)
    if stamp is None:
        return None
    found = {}
    while isinstance(stamp, tuple) and len(stamp) == 2 and isinstance(stamp[1], tuple):
        name, mtime, size, constants = stamp[1]
        found[name] = (mtime, size, constants)
        stamp = stamp[0]
    return found


def announce_first_compile(line: str, cached: Callable[[], bool]) -> None:
    """``line`` before a first compile (silent otherwise, for many seconds) when the kernels
    are not cached yet, on a terminal's stderr only: logs, pipes and tests stay as they were."""
    if sys.stderr.isatty() and not cached():
        print(line, file=sys.stderr, flush=True)


def illegal_action(rows: np.ndarray, actions: np.ndarray, bad: int, legal: np.ndarray):
    """The one-line ``ValueError`` for the illegal action at position ``bad`` of a step
    (``legal``: that table's mask), raised before anything changes."""
    return ValueError(
        f"illegal action {int(actions[bad])} on table {int(rows[bad])}; legal: "
        f"{np.flatnonzero(legal).tolist()}"
    )
