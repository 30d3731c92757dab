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
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

from brag_env.io import fcntl, remove_stale_temps_in
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


LOCK_FILE = ".train.lock"


# Not followed: a symlink planted as the lock would have train.py truncate its target. Not
# waited on: a FIFO would block the open. Not inherited by the subprocess envs; a terminal
# device never becomes the controlling one.
_LOCK_OPEN_FLAGS = (
    os.O_RDWR
    | os.O_CREAT
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NOCTTY", 0)
)


def open_lock_file(path: Path) -> int:
    """The descriptor of the lock file ``path``, created if missing. Anything but a regular
    file there (a symlink, a FIFO, a device, a directory) is a one-line ``ValueError``, and
    nothing is written to it."""
    refusal = (
        f"{path} is not a regular file (a symlink, FIFO, device or directory): train.py will "
        "not write its lock there; remove it, or use another --out"
    )
    try:
        fd = os.open(path, _LOCK_OPEN_FLAGS, 0o644)
    except OSError as e:
        # ELOOP (EMLINK on the BSDs): a symlink, O_NOFOLLOW; EISDIR: a directory; ENXIO: a socket.
        if e.errno in (errno.ELOOP, errno.EISDIR, errno.ENXIO, errno.EMLINK):
            raise ValueError(refusal) from None
        with writing(path):
            raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise ValueError(refusal)
    return fd


@contextlib.contextmanager
def run_dir_lock(run_dir: Path) -> Iterator[None]:
    """Hold the run directory for the block: an exclusive ``flock`` on ``run_dir/.train.lock``
    (the directory is created if needed). A second ``train.py`` on the same directory is a
    ``ValueError`` naming the holder's pid: two runs would interleave evals.jsonl, overwrite
    each other's config.yaml and snapshots. The kernel drops the lock when its holder exits,
    however it exits (kill -9 too), so a stale lock file never blocks the next run. Holding
    the lock, the temporary files a killed run left in the run directory are removed."""
    with writing(run_dir):
        run_dir.mkdir(parents=True, exist_ok=True)
    fd = open_lock_file(run_dir / LOCK_FILE)
    try:
        try:
            if fcntl is not None:  # POSIX; elsewhere runs are not guarded
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
            pid = f" (pid {holder})" if holder.isdigit() else ""
            raise ValueError(
                f"{run_dir} is in use by another train.py{pid}: wait for it to finish, or use "
                "another --out"
            ) from None
        with writing(run_dir / LOCK_FILE):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        for folder in (run_dir, run_dir / "snapshots"):
            remove_stale_temps_in(folder)
        yield
    finally:
        os.close(fd)  # releases the lock


@contextlib.contextmanager
def quiet_disk_errors_in_threads() -> Iterator[None]:
    """For the block: a writer thread (TensorBoard's event writer) that dies of a full or
    refused disk prints no traceback. Its writer raises the same error in the main thread at
    the next write, which ``writing()`` reports as train.py's one line; a traceback from the
    thread would only interleave with it. Any other thread error is printed as usual."""
    previous = threading.excepthook

    def hook(args: threading.ExceptHookArgs) -> None:
        error = args.exc_value
        if isinstance(error, OSError) and error.errno in DISK_ERRORS:
            return
        previous(args)

    threading.excepthook = hook
    try:
        yield
    finally:
        threading.excepthook = previous
