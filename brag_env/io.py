"""Files the commands write and read: atomic writes, one-line errors, limits on hostile input.

Writing. Every result file (``evaluate.py --json/--history/--plot``, ``play --history``, models and
checkpoints) is written to a temporary file in the target's own folder and renamed over the target
with ``os.replace`` once complete, so a full disk, a crash or Ctrl-C leaves either the old file or
the new one, never a truncated mix. A failure is a :class:`FileError` (a ``ValueError``) whose
one-line message names the option and the file, e.g. ``cannot write --json res.json: No space
left on device``.

Reading. Files come from anywhere (a downloaded model, a history mailed by a colleague), so what is
read is bounded before it is parsed: a zip's entry count and uncompressed sizes are checked from its
directory before anything is inflated, and the inflating itself stops at the limit in case the
directory lies; JSON is refused above a size, a line length and a nesting depth, so neither memory
nor Python's recursion limit is at the file's mercy. The limits are module constants; see
``docs/hardening.md``.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import tempfile
import zipfile
from pathlib import Path
from typing import IO, Any

# ------------------------------------------------------------------ limits
#: Entries in a model or checkpoint zip (SB3 writes 6, train.py adds 2).
MAX_ZIP_ENTRIES = 64
#: Uncompressed bytes of one zip entry: the largest MLP policies here are a few MB.
MAX_ZIP_ENTRY_BYTES = 256 * 2**20
#: Uncompressed bytes of all the entries of one zip together.
MAX_ZIP_TOTAL_BYTES = 512 * 2**20
#: A JSON entry or file (SB3's ``data``, the model and training records).
MAX_JSON_BYTES = 16 * 2**20
#: A hand history file, and one line of it (a hand's line is a few KB).
MAX_HISTORY_BYTES = 512 * 2**20
MAX_LINE_BYTES = 2**20
#: Nesting of JSON arrays and objects (a hand history nests 4 deep, SB3's data 5).
MAX_JSON_DEPTH = 64
#: A YAML config (a run's config.yaml is about 1 KB), and its aliases (``*name``): each
#: one may repeat a whole subtree, so a few nested ones expand to billions of nodes.
MAX_YAML_BYTES = 2**20
MAX_YAML_ALIASES = 100


class FileError(ValueError):
    """A file that cannot be read or written; the message is one line naming it."""


def _reason(error: OSError) -> str:
    return error.strerror or str(error) or type(error).__name__


def _where(path: str | os.PathLike[str], what: str) -> str:
    """``--json res.json`` (an option and its value, as typed) or ``'res.json'``."""
    return f"{what} {path}" if what else repr(str(path))


def write_error(path: str | os.PathLike[str], error: OSError, what: str = "") -> FileError:
    """``cannot write --json x.json: No space left on device`` (``what`` names the option)."""
    return FileError(f"cannot write {_where(path, what)}: {_reason(error)}")


def read_error(path: str | os.PathLike[str], error: OSError, what: str = "") -> FileError:
    return FileError(f"cannot read {_where(path, what)}: {_reason(error)}")


# ------------------------------------------------------------------ writing
def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


class AtomicFile:
    """A file written in one piece: lines go to a temporary file beside ``path``, which
    :meth:`commit` renames over ``path``; :meth:`discard` (or leaving the ``with`` block by an
    exception) deletes it and leaves ``path`` as it was.

    ``force=False`` refuses a ``path`` that exists (checked at open and again at commit).
    ``keep_empty=False`` commits nothing when nothing was written (a session left before its
    first hand does not leave an empty file behind). OS errors become :class:`FileError`
    naming ``what`` (e.g. ``"--history"``) and the path.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        what: str = "",
        force: bool = True,
        binary: bool = False,
        keep_empty: bool = True,
    ) -> None:
        self.path = Path(path)
        self.what = what
        self.force = force
        self.keep_empty = keep_empty
        self.written = 0
        if not force and (self.path.exists() or self.path.is_symlink()):
            raise _exists(self.path, what)
        try:
            fd, tmp = tempfile.mkstemp(
                dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp"
            )
        except OSError as error:
            raise write_error(self.path, error, what) from None
        self._tmp = Path(tmp)
        try:
            os.chmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the usual mode
            mode = "wb" if binary else "w"
            self._file: IO[Any] | None = os.fdopen(fd, mode, **({} if binary else _TEXT))
        except OSError as error:
            os.close(fd)
            self._tmp.unlink(missing_ok=True)
            raise write_error(self.path, error, what) from None

    def write(self, data: str | bytes) -> None:
        if self._file is None:
            raise FileError(f"{_where(self.path, self.what)} is already closed")
        try:
            self._file.write(data)
        except OSError as error:
            self.discard()
            raise write_error(self.path, error, self.what) from None
        self.written += len(data)

    def flush(self) -> None:
        if self._file is not None:
            try:
                self._file.flush()
            except OSError as error:
                self.discard()
                raise write_error(self.path, error, self.what) from None

    def commit(self) -> bool:
        """Rename the finished file over ``path``; False (and nothing kept) if it was empty and
        ``keep_empty`` is off."""
        if self._file is None:
            return False
        if not self.written and not self.keep_empty:
            self.discard()
            return False
        try:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            self._file = None
            if not self.force and self.path.exists():  # appeared while we were writing
                raise FileExistsError(17, "created by someone else meanwhile")
            os.replace(self._tmp, self.path)
        except OSError as error:
            self.discard()
            raise write_error(self.path, error, self.what) from None
        return True

    def discard(self) -> None:
        if self._file is not None:
            # A full disk may fail the final flush too: the file goes anyway.
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None
        self._tmp.unlink(missing_ok=True)

    def __enter__(self) -> AtomicFile:
        return self

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is None:
            self.commit()
        else:
            self.discard()


_TEXT = {"encoding": "utf-8", "newline": ""}


def check_writable(path: str | os.PathLike[str], what: str = "", force: bool = True) -> None:
    """``FileError`` unless ``path`` names a file that may be (over)written: its folder exists,
    it is not a folder, and it does not exist unless ``force``."""
    path = Path(path)
    if path.is_dir():
        raise FileError(f"{_where(path, what)} is a directory, expected a file name")
    parent = path.parent
    if not parent.is_dir():
        raise FileError(f"{_where(path, what)}: the directory {str(parent)!r} does not exist")
    if not force and (path.exists() or path.is_symlink()):
        raise _exists(path, what)


def _exists(path: Path, what: str) -> FileError:
    return FileError(
        f"{_where(path, what)} already exists: name a new file, or add --force to overwrite it"
    )


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to a temporary file next to ``path``, fsync it, then ``os.replace`` it in
    (creating missing parent folders). On failure the old file is intact, the temporary file
    gone, and the ``OSError`` raised as is (``train.py`` reports it as a run failure); the
    commands' result files use :func:`write_output`, which names the option."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"atomic_write_bytes takes bytes, got {type(data).__name__}")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the usual mode
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_output(path: str | os.PathLike[str], data: str | bytes, what: str = "") -> None:
    """:func:`atomic_write_bytes` of ``data`` (text as UTF-8) for a command's result file: an
    ``OSError`` becomes a :class:`FileError` naming ``what`` (e.g. ``"--json"``) and the file."""
    try:
        atomic_write_bytes(path, data.encode("utf-8") if isinstance(data, str) else data)
    except OSError as error:
        raise write_error(path, error, what) from None


# ------------------------------------------------------------------ reading JSON
# A JSON string, escapes included (unrolled so that matching is linear).
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def json_depth(text: str) -> int:
    """How deeply the arrays and objects of the JSON ``text`` nest (brackets in strings don't
    count). Linear in the text; no recursion."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    depth = deepest = 0
    for char in brackets:
        if char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
        else:
            depth -= 1
    return deepest


def loads_bounded(text: str | bytes, what: str, max_bytes: int | None = None) -> Any:
    """``json.loads`` of ``text`` with limits on its size and nesting; ``FileError`` naming
    ``what`` (e.g. ``"its 'data' entry"``) for JSON that is too big (default limit
    ``MAX_JSON_BYTES``), too deep or bad."""
    max_bytes = MAX_JSON_BYTES if max_bytes is None else max_bytes
    if len(text) > max_bytes:
        raise FileError(f"{what} is larger than {max_bytes:,} bytes: refused")
    if isinstance(text, (bytes, bytearray)):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise FileError(f"{what} is not UTF-8 text") from None
    depth = json_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise FileError(f"{what} nests {depth} levels deep, more than {MAX_JSON_DEPTH}: refused")
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise FileError(f"{what} is not JSON ({error.msg})") from None
    except RecursionError:  # not reached under MAX_JSON_DEPTH; kept for a changed limit
        raise FileError(f"{what} nests too deeply: refused") from None


def read_text_bounded(path: str | os.PathLike[str], max_bytes: int, what: str = "") -> str:
    """A UTF-8 text file, refused (``FileError``, one line) if larger than ``max_bytes``, not a
    regular file or not text. Reads at most ``max_bytes + 1`` bytes whatever ``stat`` says."""
    path = Path(path)
    name = _where(path, what)
    if not path.exists():
        raise FileError(f"cannot read {name}: no such file")
    if path.is_dir():
        raise FileError(f"cannot read {name}: it is a directory, expected a file")
    if not path.is_file():  # a FIFO or a device: reading could block or never end
        raise FileError(f"cannot read {name}: not a regular file")
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as error:
        raise read_error(path, error, what) from None
    if len(data) > max_bytes:
        raise FileError(f"{name} is larger than {max_bytes:,} bytes: refused")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FileError(f"{name} is not UTF-8 text") from None


def load_yaml(path: str | os.PathLike[str], what: str = "") -> Any:
    """``yaml.safe_load`` of a file, bounded: at most ``MAX_YAML_BYTES``, ``MAX_YAML_ALIASES``
    aliases and ``MAX_JSON_DEPTH`` levels of nesting (PyYAML's composer recurses: a file of
    5,000 ``[`` is a ``RecursionError``). ``FileError`` naming the file, in one line, for a file
    that is unreadable, too big or not YAML (with the line and column of the problem)."""
    import yaml

    text = read_text_bounded(path, MAX_YAML_BYTES, what)
    name = _where(path, what)
    aliases = depth = 0
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            if isinstance(token, yaml.AliasToken):
                aliases += 1
                if aliases > MAX_YAML_ALIASES:
                    raise FileError(f"{name} uses more than {MAX_YAML_ALIASES} aliases: refused")
            elif isinstance(token, _YAML_OPEN):
                depth += 1
                if depth > MAX_JSON_DEPTH:
                    raise FileError(f"{name} nests more than {MAX_JSON_DEPTH} levels: refused")
            elif isinstance(token, _YAML_CLOSE):
                depth -= 1
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""
        problem = getattr(error, "problem", None) or one_line_of(error)
        raise FileError(f"{name} is not valid YAML: {problem}{where}") from None
    except RecursionError:  # not reached under MAX_JSON_DEPTH; kept for a changed limit
        raise FileError(f"{name} nests too deeply: refused") from None


#: Characters of a user's value that an error message repeats.
ECHO_CHARS = 60


def brief(value: Any, limit: int = ECHO_CHARS) -> str:
    """``repr`` of a user's value for an error message, cut to ``limit`` characters: a
    message repeats what was sent, not a megabyte of it."""
    text = str(value)
    if len(text) <= limit:
        return repr(text)
    return repr(text[:limit]) + f"... ({len(text):,} characters)"


def one_line_of(error: BaseException) -> str:
    """The first line of an error's message (or its type when it has none)."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _yaml_tokens() -> tuple[tuple[type, ...], tuple[type, ...]]:
    import yaml

    opening = (
        yaml.FlowSequenceStartToken,
        yaml.FlowMappingStartToken,
        yaml.BlockSequenceStartToken,
        yaml.BlockMappingStartToken,
    )
    closing = (yaml.FlowSequenceEndToken, yaml.FlowMappingEndToken, yaml.BlockEndToken)
    return opening, closing


_YAML_OPEN, _YAML_CLOSE = _yaml_tokens()


# ------------------------------------------------------------------ reading zips
def check_zip(archive: zipfile.ZipFile, what: str) -> None:
    """Refuse a zip with too many entries or too much uncompressed data, from its directory
    alone (nothing is inflated). ``what`` names the file in the ``FileError``."""
    infos = archive.infolist()
    if len(infos) > MAX_ZIP_ENTRIES:
        raise FileError(f"{what} holds {len(infos)} entries, more than {MAX_ZIP_ENTRIES}: refused")
    total = 0
    for info in infos:
        if info.file_size > MAX_ZIP_ENTRY_BYTES:
            raise FileError(
                f"{what}: entry {info.filename!r} inflates to {info.file_size:,} bytes, more "
                f"than {MAX_ZIP_ENTRY_BYTES:,}: refused (a zip bomb?)"
            )
        total += info.file_size
    if total > MAX_ZIP_TOTAL_BYTES:
        raise FileError(
            f"{what} inflates to {total:,} bytes, more than {MAX_ZIP_TOTAL_BYTES:,}: refused"
        )


def read_zip_entry(
    archive: zipfile.ZipFile, name: str, what: str, limit: int | None = None
) -> bytes:
    """Entry ``name``, inflated in chunks and abandoned as soon as it passes ``limit`` bytes
    (default ``MAX_ZIP_ENTRY_BYTES``), whatever the directory claims. Corruption is a
    ``zipfile.BadZipFile`` as usual."""
    limit = MAX_ZIP_ENTRY_BYTES if limit is None else limit
    info = archive.getinfo(name)
    if info.file_size > limit:
        raise FileError(
            f"{what}: entry {name!r} inflates to {info.file_size:,} bytes, more than "
            f"{limit:,}: refused"
        )
    out = io.BytesIO()
    with archive.open(info) as entry:
        while chunk := entry.read(2**16):
            out.write(chunk)
            if out.tell() > limit:
                raise FileError(f"{what}: entry {name!r} inflates past {limit:,} bytes: refused")
    return out.getvalue()


def check_model_zip(path: str | os.PathLike[str], what: str) -> None:
    """The checks of :func:`check_zip` on an SB3 model or checkpoint at ``path``, and on each
    of its ``*.pth`` entries, which are zips themselves (torch's format) that ``torch.load``
    would inflate in turn. ``zipfile.BadZipFile``/``OSError`` pass through to the caller."""
    with zipfile.ZipFile(path) as archive:
        check_zip(archive, what)
        for name in archive.namelist():
            if not name.endswith(".pth"):
                continue
            inner = read_zip_entry(archive, name, what)
            if zipfile.is_zipfile(io.BytesIO(inner)):
                with zipfile.ZipFile(io.BytesIO(inner)) as nested:
                    check_zip(nested, f"{what} entry {name!r}")
