"""Writing a run's files: atomically, and a full disk or a permission error as one line.

Every file of a run directory goes through ``writing(path)``: an ``OSError`` raised while the
block writes ``path`` (``ENOSPC``, ``EACCES``, ``EROFS`` ...) becomes a ``RunFileError`` naming the
file, which ``train.py`` prints as one line with exit status 1. The writes themselves are atomic
(``checkpoint.atomic_write_bytes``: a temporary file renamed over the target), so a failed write
leaves the previous version of the file, and in particular the last checkpoint, intact.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

from brag_env.training.checkpoint import atomic_write_bytes


class RunFileError(Exception):
    """A run file could not be written (a runtime problem, not a usage error)."""


# The errors of a disk that refuses writes (full, over quota, read-only, no permission).
DISK_ERRORS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM})


@contextlib.contextmanager
def writing(path: str | os.PathLike[str], only: frozenset[int] | None = None) -> Iterator[None]:
    """Turn an ``OSError`` of the block into a ``RunFileError`` naming ``path``; with ``only``,
    just those error numbers (the block does more than write ``path``)."""
    try:
        yield
    except OSError as e:
        if only is not None and e.errno not in only:
            raise
        reason = e.strerror or str(e) or type(e).__name__
        raise RunFileError(f"cannot write {path}: {reason}") from None


def write_file(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Replace ``path`` with ``data`` atomically (text is UTF-8)."""
    with writing(path):
        atomic_write_bytes(path, data.encode() if isinstance(data, str) else data)


def append_line(path: str | os.PathLike[str], line: str) -> None:
    """Add one line to a small log (``evals.jsonl``) by rewriting it atomically: a crash or a
    full disk leaves the old lines, never half a line."""
    path = Path(path)
    with writing(path):
        old = path.read_bytes() if path.is_file() else b""
        atomic_write_bytes(path, old + line.rstrip("\n").encode() + b"\n")
