"""Strategy and checkpoint files of the solver: ``.npz`` written atomically, checked on load.

A strategy file holds the average strategy (float16: ``put{d}``, ``play{d}`` where a card
choice exists, ``see{d}``) and a JSON ``meta`` entry: the rules it was solved for, the score,
the iterations run and the exploitability measured at the end.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from brag_env.io import (
    FileError,
    atomic_write_bytes,
    clip,
    load_npz,
    loads_bounded,
    quoted,
    write_error,
)
from brag_env.put.solver.cfr import Accumulators
from brag_env.put.solver.strategy import Strategy
from brag_env.put.solver.tree import DEPTH, PutTree, actor_size, num_states, other_size

FORMAT = "brag_env.put.solver/1"
MAX_FILE_BYTES = 200 * 1024 * 1024  # a strategy file (the full deck's is far smaller)
MAX_CHECKPOINT_BYTES = 4 * 1024**3  # regrets and averages of the full deck, uncompressed
# What the arrays of a file may declare (their npy headers), checked before any is inflated:
# the full deck's strategy holds 17 MB of float16, its checkpoint about 0.2 GB of float64.
MAX_STRATEGY_ARRAY_BYTES = 256 * 2**20
MAX_CHECKPOINT_ARRAY_BYTES = 2**30


def _dump(path: Path, arrays: dict[str, np.ndarray], meta: dict[str, Any], compress: bool) -> None:
    buf = io.BytesIO()
    arrays = dict(arrays)
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    (np.savez_compressed if compress else np.savez)(buf, **arrays)
    try:
        atomic_write_bytes(path, buf.getvalue())
    except OSError as error:  # a full disk: name the file (the old one is intact)
        raise write_error(path, error) from None


def _load(
    path: Path,
    max_bytes: int = MAX_FILE_BYTES,
    max_array_bytes: int = MAX_STRATEGY_ARRAY_BYTES,
    fmt: str = FORMAT,
    kind: str = "strategy file",
) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays and meta of a solver file; ``kind`` names it in the errors ("checkpoint")."""
    path = Path(path)
    where = f"{kind} {str(path)!r}"
    if not path.is_file():
        raise ValueError(f"{where} does not exist")
    if path.stat().st_size > max_bytes:
        raise ValueError(f"{where} is larger than {max_bytes} bytes")
    if not zipfile.is_zipfile(path):  # np.load would read it as a pickle and say so
        raise ValueError(f"{where} is not a solver file (not an .npz archive)")
    try:
        arrays = load_npz(path, where, max_array_bytes)
    except FileError as e:
        raise ValueError(f"{e} (not a solver file)") from None
    raw = arrays.pop("meta", None)
    if raw is None or raw.dtype != np.uint8 or raw.ndim != 1:
        raise ValueError(f"{where} is not a solver file (no meta entry)")
    meta = loads_bounded(raw.tobytes(), f"{where} entry 'meta'")
    if not isinstance(meta, dict) or meta.get("format") != fmt:
        raise ValueError(f"{where} is not a {fmt} file")
    for name, array in arrays.items():
        if array.dtype.kind != "f":
            raise ValueError(f"{where}: array {name!r} holds {array.dtype}, not floats")
        if not np.isfinite(array).all():
            raise ValueError(f"{where}: array {name!r} holds NaN or infinite values: refused")
    return arrays, meta


def save_strategy(path: str | Path, strategy: Strategy, meta: dict[str, Any]) -> None:
    arrays: dict[str, np.ndarray] = {}
    for d in range(DEPTH):
        arrays[f"put{d}"] = strategy.put[d].astype(np.float16)
        arrays[f"see{d}"] = strategy.see[d].astype(np.float16)
        if strategy.play[d] is not None:
            arrays[f"play{d}"] = strategy.play[d].astype(np.float16)
    _dump(Path(path), arrays, {**meta, "format": FORMAT, "kind": "strategy"}, compress=True)


def load_strategy(path: str | Path, tree: PutTree | None = None) -> tuple[Strategy, dict]:
    """The strategy of a file (float64) and its meta; with ``tree``, the shapes must fit it."""
    arrays, meta = _load(Path(path))
    if meta.get("kind") != "strategy":
        raise ValueError(f"strategy file {str(path)!r} is a checkpoint, not a strategy")
    if tree is not None and meta.get("deck_ranks") != tree.k:
        raise ValueError(
            f"strategy file {str(path)!r} was solved for deck_ranks={meta.get('deck_ranks')}, "
            f"but the table has deck_ranks={tree.k}"
        )
    put, play, see = [], [], []
    try:
        for d in range(DEPTH):
            p = arrays[f"put{d}"].astype(np.float64)
            s = arrays[f"see{d}"].astype(np.float64)
            pl = arrays.get(f"play{d}")
            pl = None if pl is None else pl.astype(np.float64)
            if tree is not None:
                n, ha = tree.layers[d].size, actor_size(d)
                nh = len(tree.hands.counts[ha])
                no = len(tree.hands.counts[other_size(d)])
                want = None if ha == 1 else (num_states(d), n, nh, ha)
                if (
                    p.shape != (n, nh)
                    or s.shape != (n, no)
                    or ((pl is None) != (want is None) or (pl is not None and pl.shape != want))
                ):
                    raise KeyError(f"layer {d}")
            if pl is not None:  # float16 rounding: make every row sum to 1 again
                total = pl.sum(axis=3)
                total[0] += p
                total = np.where(total > 0, total, 1.0)
                pl = pl / total[..., None]
                p = p / total[0]
            put.append(np.clip(p, 0.0, 1.0))
            play.append(pl)
            see.append(np.clip(s, 0.0, 1.0))
    except KeyError as e:
        raise ValueError(f"strategy file {str(path)!r}: arrays do not fit the tree ({e})") from None
    return Strategy(put, play, see), meta


def save_checkpoint(path: str | Path, arrays: dict[str, np.ndarray], meta: dict) -> None:
    _dump(Path(path), arrays, {**meta, "format": FORMAT, "kind": "checkpoint"}, compress=False)


def load_checkpoint(
    path: str | Path, tree: PutTree | None = None
) -> tuple[dict[str, np.ndarray], dict]:
    """Regrets (``r_``) and averages (``a_``) of a checkpoint, and its meta; with ``tree``,
    exactly the arrays DCFR keeps for it (names, shapes, float64), all finite, and a whole
    number of iterations done: a damaged file is refused here, not deep inside an update."""
    arrays, meta = _load(
        Path(path), MAX_CHECKPOINT_BYTES, MAX_CHECKPOINT_ARRAY_BYTES, kind="checkpoint"
    )
    where = f"checkpoint {str(path)!r}"
    if meta.get("kind") != "checkpoint":
        raise ValueError(f"{where} is a strategy file, not a checkpoint")
    done = meta.get("iterations")
    if isinstance(done, bool) or not isinstance(done, int) or done < 0:
        raise ValueError(f"{where}: iterations must be a whole number >= 0, got {quoted(done)}")
    if tree is not None:
        zeros = Accumulators.zeros(tree).arrays()
        expected = {f"{kind}_{name}": a for kind in "ra" for name, a in zeros.items()}
        missing = sorted(set(expected) - set(arrays))
        extra = sorted(set(arrays) - set(expected))
        if missing or extra:
            what = f"missing {', '.join(missing)}" if missing else f"unknown {', '.join(extra)}"
            raise ValueError(f"{where} does not fit the tree ({clip(what)})")
        for name, want in expected.items():
            got = arrays[name]
            if got.shape != want.shape or got.dtype != want.dtype:
                raise ValueError(
                    f"{where}: array {name!r} is {got.dtype}{list(got.shape)}, the tree needs "
                    f"{want.dtype}{list(want.shape)}"
                )
    return arrays, meta
