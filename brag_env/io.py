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
import math
import os
import re
import stat
import tempfile
import zipfile
from pathlib import Path
from typing import IO, Any

try:
    import fcntl  # POSIX: the locks that tell a live writer's temporary file from a dead one's
except ImportError:  # pragma: no cover - Windows: no locks, and no leftovers removed
    fcntl = None  # type: ignore[assignment]

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
#: Nodes of a YAML document once its aliases are expanded (a config has about a hundred).
MAX_YAML_NODES = 10_000
#: Characters of a value quoted in a one-line error message (the rest is elided).
MAX_QUOTED_CHARS = 200


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
        check_regular_target(self.path, what)
        try:
            fd, tmp = _temp_beside(self.path)
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
            if not self.force and self.path.exists():  # appeared while we were writing
                raise FileExistsError(17, "created by someone else meanwhile")
            check_regular_target(self.path, self.what)  # again: it may have changed meanwhile
            os.replace(self._tmp, self.path)  # before closing: the lock marks it as live
            with contextlib.suppress(OSError):  # written and renamed: nothing left to lose
                self._file.close()
            self._file = None
        except FileError:
            self.discard()
            raise
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
    check_regular_target(path, what)


#: What ``os.replace`` must never replace: a rename over ``/dev/null`` (as root) would swap the
#: system's device for a regular file, and over a FIFO would cut off whoever reads it.
_SPECIAL_KINDS = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)


def check_regular_target(path: str | os.PathLike[str], what: str = "") -> None:
    """``FileError`` unless ``path`` is a new path or a regular file (a symlink is judged by what
    it points to; a dangling one is a new path). The one rule of every writer here."""
    try:
        mode = os.stat(path).st_mode
    except OSError:  # missing (a new path), or unreachable: creating the file will say why
        return
    if stat.S_ISREG(mode):
        return
    kind = next((name for test, name in _SPECIAL_KINDS if test(mode)), "not a regular file")
    raise FileError(
        f"{_where(path, what)} is {kind}: refused, only a regular file or a new path is written"
    )


#: The temporary files of the writers here: ``.NAME.`` + mkstemp's 8 characters + ``.tmp``.
_TEMP_NAME = re.compile(r"\.(?P<name>.+)\.[A-Za-z0-9_]{8}\.tmp")


def _temp_beside(path: Path) -> tuple[int, str]:
    """A new temporary file beside ``path``, locked (``flock``) while this process holds it
    open, so that :func:`remove_stale_temps` tells a live writer's file from a dead one's.
    Leftovers of killed writers of the same target are removed first."""
    remove_stale_temps(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    if fcntl is not None:
        with contextlib.suppress(OSError):  # a file system without locks: ours, just unmarked
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd, tmp


def remove_stale_temps(path: str | os.PathLike[str]) -> list[Path]:
    """Delete the temporary files that killed writers of ``path`` left in its folder (the
    pattern of :func:`_temp_beside`, for this target name only) and return them. A file whose
    lock another process still holds is being written and is kept; the kernel releases the
    lock of a process that died, however it died. Errors are ignored: this is tidying."""
    path = Path(path)
    return _remove_stale(path.parent, path.name)


def remove_stale_temps_in(folder: str | os.PathLike[str]) -> list[Path]:
    """:func:`remove_stale_temps` for every target of ``folder`` (a run directory that one
    process owns, ``train.py`` under its lock)."""
    return _remove_stale(Path(folder), None)


def _remove_stale(folder: Path, name: str | None) -> list[Path]:
    removed: list[Path] = []
    if fcntl is None:  # no way to tell a live writer's file: leave them all
        return removed
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        match = _TEMP_NAME.fullmatch(entry.name)
        if match is None or (name is not None and match["name"] != name):
            continue
        with contextlib.suppress(OSError):
            fd = os.open(entry.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    continue
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue  # a live writer's
                os.unlink(entry.path)
                removed.append(Path(entry.path))
            finally:
                os.close(fd)
    return removed


def _exists(path: Path, what: str) -> FileError:
    return FileError(
        f"{_where(path, what)} already exists: name a new file, or add --force to overwrite it"
    )


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to a temporary file next to ``path``, fsync it, then ``os.replace`` it in
    (creating missing parent folders). On failure the old file is intact, the temporary file
    gone, and the ``OSError`` raised as is (``train.py`` reports it as a run failure); the
    commands' result files use :func:`write_output`, which names the option. A target that is
    not a regular file (a device, a FIFO) is a :class:`FileError`, never replaced."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"atomic_write_bytes takes bytes, got {type(data).__name__}")
    path = Path(path)
    check_regular_target(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _temp_beside(path)
    try:
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the usual mode
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
            check_regular_target(path)  # again, just before the rename
            os.replace(tmp, path)  # still holding the lock: the file is never seen as stale
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
    except ValueError as error:  # e.g. an integer of more than 4,300 digits
        raise FileError(f"{what} is not usable JSON ({clip(without_advice(error))})") from None
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


class YAMLError(FileError):
    """YAML that is refused or invalid; ``problem``, ``line`` and ``column`` (1-based, or
    None) let a caller word the message its own way (``train.py``: ``file:line:col: ...``)."""

    def __init__(self, message: str, problem: str, line: int | None, column: int | None):
        super().__init__(message)
        self.problem, self.line, self.column = problem, line, column


def load_yaml(path: str | os.PathLike[str], what: str = "") -> Any:
    """:func:`parse_yaml` of a file read with :func:`read_text_bounded` (at most
    ``MAX_YAML_BYTES``, a regular file, UTF-8)."""
    text = read_text_bounded(path, MAX_YAML_BYTES, what)
    return parse_yaml(text, _where(path, what))


def parse_yaml(text: str, name: str) -> Any:
    """``yaml.safe_load`` of ``text``, bounded; THE YAML reader of the project (configs, a
    model's config.yaml, ``--set`` and ``--option`` values). Refused, as a one-line
    :class:`YAMLError` naming ``name``: more than ``MAX_YAML_BYTES``, ``MAX_YAML_ALIASES``
    aliases, ``MAX_JSON_DEPTH`` levels of nesting (PyYAML's composer recurses: 5,000 ``[`` are a
    ``RecursionError``) or ``MAX_YAML_NODES`` nodes once the aliases are expanded (ten nested
    aliases of ten make 10^10: PyYAML shares them, but whoever walks the result, a validator
    or an error message quoting it, does not), and invalid YAML (with its line and column)."""
    import yaml

    def refuse(problem: str, line: int | None = None, column: int | None = None) -> YAMLError:
        where = f" (line {line}, column {column})" if line is not None else ""
        return YAMLError(f"{name} is not valid YAML: {problem}{where}", problem, line, column)

    if len(text) > MAX_YAML_BYTES:
        problem = f"holds more than {MAX_YAML_BYTES:,} characters: refused"
        raise YAMLError(f"{name} {problem}", problem, None, None)
    aliases = depth = 0
    try:
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            if isinstance(token, yaml.AliasToken):
                aliases += 1
                if aliases > MAX_YAML_ALIASES:
                    problem = f"uses more than {MAX_YAML_ALIASES} aliases: refused"
                    raise YAMLError(f"{name} {problem}", problem, None, None)
            elif isinstance(token, _YAML_OPEN):
                depth += 1
                if depth > MAX_JSON_DEPTH:
                    problem = f"nests more than {MAX_JSON_DEPTH} levels: refused"
                    raise YAMLError(f"{name} {problem}", problem, None, None)
            elif isinstance(token, _YAML_CLOSE):
                depth -= 1
        loader = yaml.SafeLoader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return None
            if _expanded_nodes(node, {}) > MAX_YAML_NODES:
                problem = f"holds more than {MAX_YAML_NODES:,} nodes, aliases expanded: refused"
                raise YAMLError(f"{name} {problem}", problem, None, None)
            try:
                return loader.construct_document(node)
            except ValueError as error:  # an integer of more than 4,300 digits
                raise refuse(clip(without_advice(error))) from None
        finally:
            loader.dispose()
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
        problem = getattr(error, "problem", None) or getattr(error, "context", None)
        problem = clip(problem or one_line_of(error))
        if mark is None:
            raise refuse(problem) from None
        raise refuse(problem, mark.line + 1, mark.column + 1) from None
    except RecursionError:  # not reached under MAX_JSON_DEPTH; kept for a changed limit
        raise refuse("nested too deeply") from None


def _expanded_nodes(node: Any, sizes: dict[int, int]) -> int:
    """How many nodes ``node`` stands for with every alias expanded: an alias is the same node
    object met again, so each one is counted once and reused (linear in the document). The
    recursion is bounded by the nesting limit checked before."""
    known = sizes.get(id(node))
    if known is not None:
        return known
    size = 1
    value = node.value
    if isinstance(value, list):
        for item in value:
            if isinstance(item, tuple):  # a mapping's (key, value)
                size += _expanded_nodes(item[0], sizes) + _expanded_nodes(item[1], sizes)
            else:
                size += _expanded_nodes(item, sizes)
            if size > MAX_YAML_NODES:  # no need to count the rest (and no huge integers)
                break
    sizes[id(node)] = size
    return size


def quoted(value: object, limit: int = MAX_QUOTED_CHARS) -> str:
    """``repr(value)`` cut to about ``limit`` characters, for one-line error messages that quote
    what they refuse: a message never prints megabytes. Containers are cut while they are
    written (``reprlib``), never written whole first."""
    import reprlib

    short = reprlib.Repr()
    short.maxlevel, short.maxstring, short.maxother, short.maxlong = 6, limit, limit, limit
    short.maxlist = short.maxtuple = short.maxdict = short.maxset = short.maxfrozenset = 32
    short.maxdeque = short.maxarray = 32
    return clip(short.repr(value), limit)


def clip(text: str, limit: int = MAX_QUOTED_CHARS) -> str:
    """``text`` on one line, cut to ``limit`` characters with the number left out."""
    text = " ".join(text.split()) if "\n" in text or "\r" in text else text
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit:,} more characters)"


# ------------------------------------------------------------------ text for the terminal
#: Every C0 control (tab and newline too), DEL and every C1 control: the introducers of all
#: terminal sequences (ESC for CSI/OSC/DCS..., and their 8-bit forms such as CSI U+009B). And
#: the Unicode bidirectional controls (embeddings and overrides U+202A-U+202E, isolates
#: U+2066-U+2069, the marks U+200E, U+200F, U+061C), which reorder what follows them on the
#: line: a seat name could otherwise show as another, or flip the text after it.
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _escape(char: str) -> str:
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """``text`` with every control character written as a visible escape (``\\x1b``,
    ``\\u202e``), so that text read from a file can reach a terminal: no escape sequence
    (colours, hidden text, a window title, an OSC 52 clipboard write) is left, whatever follows
    the introducer, and no bidirectional control reorders the line."""
    return _CONTROLS.sub(lambda m: _escape(m.group()), text)


def terminal_safe_json(value: Any) -> Any:
    """:func:`terminal_safe` on every string (keys too) of parsed JSON; the rest unchanged.
    The nesting is bounded by :func:`loads_bounded` before this recursion meets it."""
    if isinstance(value, str):
        return terminal_safe(value) if _CONTROLS.search(value) else value
    if isinstance(value, list):
        return [terminal_safe_json(item) for item in value]
    if isinstance(value, dict):
        return {terminal_safe_json(k): terminal_safe_json(v) for k, v in value.items()}
    return value


#: Characters of a user's value that an error message repeats.
ECHO_CHARS = 60


def brief(value: Any, limit: int = ECHO_CHARS) -> str:
    """A user's value quoted for an error message and cut to about ``limit`` characters (the
    web's short echo of what was sent; ``clip`` does the cutting)."""
    return clip(repr(str(value)), limit)


def one_line_of(error: BaseException) -> str:
    """The first line of an error's message (or its type when it has none)."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


# Python's advice to raise its integer-digits limit: for the programmer, not for whoever was
# handed a hostile file (the limit is what refuses it).
_INT_DIGITS_ADVICE = re.compile(r";?\s*use sys\.set_int_max_str_digits\(\)[^;]*")


def without_advice(error: BaseException) -> str:
    """``one_line_of(error)`` without Python's ``use sys.set_int_max_str_digits()`` advice."""
    return _INT_DIGITS_ADVICE.sub("", one_line_of(error)).strip()


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
def check_zip(
    archive: zipfile.ZipFile,
    what: str,
    entry_bytes: int = MAX_ZIP_ENTRY_BYTES,
    total_bytes: int = MAX_ZIP_TOTAL_BYTES,
) -> None:
    """Refuse a zip with too many entries or too much uncompressed data, from its directory
    alone (nothing is inflated). ``what`` names the file in the ``FileError``."""
    infos = archive.infolist()
    if len(infos) > MAX_ZIP_ENTRIES:
        raise FileError(f"{what} holds {len(infos)} entries, more than {MAX_ZIP_ENTRIES}: refused")
    total = 0
    for info in infos:
        if info.file_size > entry_bytes:
            raise FileError(
                f"{what}: entry {info.filename!r} inflates to {info.file_size:,} bytes, more "
                f"than {entry_bytes:,}: refused (a zip bomb?)"
            )
        total += info.file_size
    if total > total_bytes:
        raise FileError(f"{what} inflates to {total:,} bytes, more than {total_bytes:,}: refused")


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


# ------------------------------------------------------------------ reading npz
def load_npz(path: str | os.PathLike[str], what: str, max_bytes: int) -> dict[str, Any]:
    """The arrays of an ``.npz`` file (``numpy.savez``), bounded by what they inflate to: each
    ``.npy`` entry's header (shape and dtype) is read first and the sizes it declares are added
    up against ``max_bytes`` before any array is allocated, so a small file claiming 2^29
    floats is refused rather than a 4 GiB allocation. Object arrays (pickles) are refused. Each
    array is then read from the entry, which must hold exactly the data its header declares.
    ``FileError`` naming ``what`` for anything wrong, in one line."""
    from numpy.lib import format as npy

    try:
        with zipfile.ZipFile(path) as archive:
            # The directory's sizes count the headers too: a little slack over the arrays.
            check_zip(archive, what, max_bytes + 2**20, max_bytes + 2**20)
            declared: dict[str, int] = {}
            for info in archive.infolist():
                if not info.filename.endswith(".npy"):
                    raise FileError(f"{what}: entry {info.filename!r} is not an array (.npy)")
                with archive.open(info) as entry:
                    version = npy.read_magic(entry)
                    if version not in ((1, 0), (2, 0)):
                        raise FileError(f"{what}: entry {info.filename!r}: npy version {version}")
                    read_header = (
                        npy.read_array_header_1_0
                        if version == (1, 0)
                        else npy.read_array_header_2_0
                    )
                    shape, _, dtype = read_header(entry)
                if dtype.hasobject:
                    raise FileError(
                        f"{what}: entry {info.filename!r} holds Python objects: refused"
                    )
                declared[info.filename] = math.prod(shape) * dtype.itemsize
                total = sum(declared.values())
                if total > max_bytes:
                    raise FileError(
                        f"{what}: its arrays declare {total:,} bytes (entry {info.filename!r}), "
                        f"more than {max_bytes:,}: refused"
                    )
            arrays = {}
            for info in archive.infolist():
                with archive.open(info) as entry:
                    array = npy.read_array(entry, allow_pickle=False)
                arrays[info.filename.removesuffix(".npy")] = array
            return arrays
    except FileError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise FileError(
            f"{what} is not a valid .npz archive ({clip(one_line_of(error))})"
        ) from None
