"""Hostile files and failing disks (issue 18): zip bombs refused from the zip directory before
anything is inflated, JSON bounded in size and depth, result files written atomically, and a
full disk or a refused folder a one-line error naming the file in every command."""

from __future__ import annotations

import errno
import io
import json
import struct
import subprocess
import sys
import zipfile
import zlib
from pathlib import Path

import pytest

import brag_env.io as bio
from agents.model import load_policy
from brag_env import brag_v0
from brag_env.evaluation.cli import main as evaluate_main
from brag_env.play import main as play_main
from brag_env.replay import main as replay_main
from brag_env.training.checkpoint import load_parameters, read_training_state
from tests.random_histories import random_histories

ROOT = Path(__file__).resolve().parents[1]
CALLERS = ["--opponents", "brag:caller", "brag:caller"]
GiB = 2**30


# ------------------------------------------------------------------ crafted zips
def _deflate_zeros(size: int) -> bytes:
    """A raw deflate stream of ``size`` zero bytes, built from one repeated 1 MiB block (a full
    flush resets the compressor, so every block compresses to the same bytes): a 1 GiB bomb is
    about 1 MB and takes milliseconds to make."""
    block = b"\0" * 2**20
    assert size % len(block) == 0
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    again = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    blocks = size // len(block)
    return first + again * (blocks - 1) + c.flush()


def _zip(entries: list[tuple[str, bytes, int, int]]) -> bytes:
    """A zip of ``(name, deflated data, crc, uncompressed size claimed)`` entries, written by
    hand so that the directory may claim any size."""
    out, central = io.BytesIO(), io.BytesIO()
    for name, data, crc, size in entries:
        offset, raw = out.tell(), name.encode()
        sizes = (crc, len(data), size, len(raw))
        out.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, *sizes, 0) + raw + data)
        central.write(
            struct.pack(
                "<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0, *sizes, 0, 0, 0, 0, 0, offset
            )
            + raw
        )
    start, body, count = out.tell(), central.getvalue(), len(entries)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, len(body), start, 0)
    return out.getvalue() + body + end


def _entry(name: str, size: int, claimed: int | None = None) -> tuple[str, bytes, int, int]:
    data = _deflate_zeros(size)
    crc = zlib.crc32(b"\0" * size) if size <= 2**26 else 0  # a bomb's CRC is never reached
    return (name, data, crc, size if claimed is None else claimed)


def _small(name: str, text: bytes) -> tuple[str, bytes, int, int]:
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return (name, c.compress(text) + c.flush(), zlib.crc32(text), len(text))


@pytest.fixture(scope="module")
def bombs(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("bombs")
    pth = _small("policy.pth", b"x")
    made = {
        # The reproducers of issue 18: a 1 GiB 'data', a 2 GiB brag_env_model.json.
        "data": [_entry("data", GiB), pth],
        "model_entry": [_small("data", b"{}"), pth, _entry("brag_env_model.json", 2 * GiB)],
        # Many entries, each small: the total and the count are limited too.
        "many": [_small(f"e{i}", b"x") for i in range(bio.MAX_ZIP_ENTRIES + 1)],
        "total": [_entry(f"part{i}", 200 * 2**20) for i in range(3)] + [pth],
        # A directory that lies: it claims 1,000 bytes, the stream inflates to 1 GiB.
        "liar": [_entry("data", GiB, claimed=1000), pth],
    }
    paths = {}
    for name, entries in made.items():
        paths[name] = folder / f"{name}.zip"
        paths[name].write_bytes(_zip(entries))
    # A torch .pth is a zip itself: a bomb one level down.
    inner = _zip([_entry("archive/data/0", GiB)])
    nested = [_small("data", b"{}"), _small("policy.pth", inner)]
    paths["nested"] = folder / "nested.zip"
    paths["nested"].write_bytes(_zip(nested))
    return paths


def test_crafted_bombs_are_small_on_disk_and_valid_zips(bombs):
    for path in bombs.values():
        assert path.stat().st_size < 8 * 2**20
        with zipfile.ZipFile(path) as archive:
            assert archive.namelist()
    with zipfile.ZipFile(bombs["data"]) as archive:
        assert archive.getinfo("data").file_size == GiB


@pytest.mark.parametrize(
    ("bomb", "fragment"),
    [
        ("data", "entry 'data' inflates to 1,073,741,824 bytes"),
        ("model_entry", "entry 'brag_env_model.json' inflates to 2,147,483,648 bytes"),
        ("many", f"holds {bio.MAX_ZIP_ENTRIES + 1} entries"),
        ("total", "inflates to 629,145,601 bytes, more than"),
        ("nested", "entry 'policy.pth'"),
        ("liar", "corrupt archive"),
    ],
)
def test_model_zip_bombs_are_refused_before_inflating(bombs, bomb, fragment):
    with pytest.raises(ValueError, match="cannot load model") as caught:
        load_policy(bombs[bomb])
    message = str(caught.value)
    assert fragment in message and "\n" not in message


@pytest.mark.parametrize("bomb", ["data", "model_entry", "many", "nested", "liar"])
def test_checkpoint_bombs_are_refused(bombs, bomb):
    with pytest.raises(ValueError, match="checkpoint") as caught:
        read_training_state(bombs[bomb])
    assert "\n" not in str(caught.value)
    if bomb != "liar":  # the directory alone refuses it: the model is never touched
        with pytest.raises(ValueError, match="checkpoint"):
            load_parameters(None, bombs[bomb])


def test_lying_directory_stops_the_inflating_at_the_claimed_size(bombs):
    # The CRC is checked after the claimed 1,000 bytes, not after 1 GiB.
    with zipfile.ZipFile(bombs["liar"]) as archive, pytest.raises(zipfile.BadZipFile):
        bio.read_zip_entry(archive, "data", "liar")
    refused = pytest.raises(bio.FileError, match="inflates to 1,073,741,824")
    with zipfile.ZipFile(bombs["data"]) as archive, refused:
        bio.read_zip_entry(archive, "data", "bomb")


class _LyingArchive:
    """An archive whose directory claims 100 bytes for an entry that streams 4 MiB (CPython's
    zipfile itself stops at the claimed size; the chunked read does not rely on that)."""

    def getinfo(self, name):
        info = zipfile.ZipInfo(name)
        info.file_size = 100
        return info

    def open(self, info):
        return io.BytesIO(b"\0" * 4 * 2**20)


def test_streamed_read_stops_at_the_limit_whatever_the_directory_says():
    with pytest.raises(bio.FileError, match="inflates past 65,536 bytes"):
        bio.read_zip_entry(_LyingArchive(), "data", "z", limit=2**16)  # type: ignore[arg-type]
    assert len(bio.read_zip_entry(_LyingArchive(), "data", "z", limit=2**23)) == 4 * 2**20


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_evaluate_refuses_a_bomb_in_one_line(bombs):
    args = ["--game", "brag", "--agents", str(bombs["data"]), "random", "--hands", "4"]
    result = subprocess.run(
        [sys.executable, str(ROOT / "evaluate.py"), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "inflates to 1,073,741,824 bytes" in lines[0], result.stderr


def test_a_huge_config_yaml_beside_a_model_is_refused(tmp_path):
    model = tmp_path / "model.zip"
    model.write_bytes(_zip([_small("data", b"{}"), _small("policy.pth", b"x")]))
    (tmp_path / "config.yaml").write_bytes(b"#" * (bio.MAX_YAML_BYTES + 1))
    from agents.model import trained_env

    with pytest.raises(ValueError, match="larger than 1,048,576 bytes"):
        trained_env(model)


# ------------------------------------------------------------------ bounded JSON
def test_json_depth_ignores_brackets_inside_strings():
    assert bio.json_depth('{"a": [1, {"b": "[[[[{{{{"}]}') == 3
    assert bio.json_depth("[]") == 1 and bio.json_depth('"x"') == 0


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[" * 100_000 + "]" * 100_000, "nests 100000 levels deep"),
        ("[" * 65, "nests 65 levels deep"),
        ('{"a": ', "is not JSON"),
        (b"\xff\xfe", "is not UTF-8"),
        ("1" * 200, "larger than 100 bytes"),
    ],
)
def test_bounded_json_refuses_in_one_line(text, fragment):
    with pytest.raises(bio.FileError, match=fragment) as caught:
        bio.loads_bounded(
            text, "the text", max_bytes=100 if fragment.startswith("larger") else None
        )
    assert "\n" not in str(caught.value)


def _replay(path: Path) -> tuple[int, str]:
    import contextlib

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = replay_main([str(path), "--no-pause"], stdin=io.StringIO(), stdout=io.StringIO())
    return code, err.getvalue()


def test_replay_of_a_line_nested_100000_deep_is_one_line(tmp_path):
    path = tmp_path / "deep.jsonl"
    path.write_text('{"game": "brag", "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    code, err = _replay(path)
    assert code == 2 and err.count("\n") == 1 and "RecursionError" not in err
    assert "line 1 nests 100001 levels deep" in err


def test_replay_refuses_an_overlong_line(tmp_path):
    path = tmp_path / "long.jsonl"
    path.write_text('{"game": "brag", "x": "' + "a" * bio.MAX_LINE_BYTES + '"}\n')
    code, err = _replay(path)
    assert code == 2 and "line 1 is longer than 1,048,576 characters" in err


def _brag_lines(n: int = 3) -> list[dict]:
    env = brag_v0.raw_env(num_players=3, hands_per_session=n)
    return random_histories(env, 2, "brag", seat_agents=["random"] * 3)


def _write(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def test_replay_of_consistent_lines_works(tmp_path):
    code, err = _replay(_write(tmp_path / "ok.jsonl", _brag_lines()))
    assert code == 0, err


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"config": "num_players"}, "config.num_players is 4 but the hand has num_players 3"),
        ({"seat_agents": ["random"] * 2}, "seat_agents names 2 players but num_players is 3"),
        ({"config": "hands_per_session"}, "hand_number 2 is past the session"),
        ({"config": "ante"}, "its config differs from that of line 1 of the same session"),
    ],
)
def test_replay_refuses_histories_that_contradict_themselves(tmp_path, change, fragment):
    """Issue 18: a history whose config.num_players disagrees with the record was accepted."""
    lines = _brag_lines()
    last = lines[-1]
    if change.get("config") == "num_players":
        last["config"]["num_players"] = 4
    elif change.get("config") == "hands_per_session":
        last["config"]["hands_per_session"] = 2
        for line in lines:
            line["config"]["hands_per_session"] = 2
    elif change.get("config") == "ante":
        last["config"]["ante"] = last["config"]["ante"] + 1
    else:
        last["seat_agents"] = change["seat_agents"]
    code, err = _replay(_write(tmp_path / "bad.jsonl", lines))
    assert code == 2 and err.count("\n") == 1
    assert fragment in err, err


def test_replay_refuses_a_device_or_a_folder(tmp_path):
    code, err = _replay(tmp_path)
    assert code == 2 and "is a directory" in err
    code, err = _replay(Path("/dev/zero"))
    assert code == 2 and "not a regular file" in err


# ------------------------------------------------------------------ atomic writes
def _full_disk(monkeypatch) -> None:
    """The disk is full: data reaches the page cache but ``fsync`` fails with ENOSPC (as on a
    file system with delayed allocation), for whole-file writes and streamed ones alike."""

    def fsync(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(bio.os, "fsync", fsync)


def _full_stream(monkeypatch, after: int) -> None:
    """Streamed writes (``AtomicFile.write``) fail with ENOSPC once ``after`` succeeded, half a
    line reaching the temporary file first."""
    real = bio.AtomicFile.write
    calls = {"n": 0}

    def write(self, data):
        calls["n"] += 1
        if calls["n"] <= after:
            return real(self, data)
        self._file.write(data[: len(data) // 2])
        self.discard()
        raise bio.write_error(
            self.path, OSError(errno.ENOSPC, "No space left on device"), self.what
        )

    monkeypatch.setattr(bio.AtomicFile, "write", write)


def test_atomic_file_keeps_the_old_file_on_a_full_disk(tmp_path, monkeypatch):
    path = tmp_path / "out.json"
    path.write_text("old\n")
    _full_disk(monkeypatch)
    with pytest.raises(bio.FileError, match=r"cannot write --json .*out.json: No space left"):
        bio.write_output(path, "new\n", "--json")
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_atomic_write_bytes_raises_the_os_error_for_train_py(tmp_path, monkeypatch):
    path = tmp_path / "model.zip"
    path.write_bytes(b"old")
    _full_disk(monkeypatch)
    with pytest.raises(OSError, match="No space left on device"):
        bio.atomic_write_bytes(path, b"new")
    assert path.read_bytes() == b"old" and len(list(tmp_path.iterdir())) == 1


def test_play_full_disk_at_the_end_is_one_line(tmp_path, monkeypatch, capsys):
    history = tmp_path / "h.jsonl"
    _full_disk(monkeypatch)
    code, _ = _play(
        ["brag", *CALLERS, "--seed", "1", "--hands", "1", "--history", str(history)], "1\n" * 20
    )
    err = capsys.readouterr().err
    assert code == 2 and f"cannot write --history {history}: No space left on device" in err
    assert list(tmp_path.iterdir()) == []


def test_atomic_file_refuses_an_existing_file_without_force(tmp_path):
    path = tmp_path / "h.jsonl"
    path.write_text("keep\n")
    with pytest.raises(bio.FileError, match=r"already exists: .* --force"):
        bio.AtomicFile(path, "--history", force=False)
    with bio.AtomicFile(path, "--history", force=True) as out:
        out.write("new\n")
        assert path.read_text() == "keep\n"  # replaced only when complete
    assert path.read_text() == "new\n"


def test_atomic_file_is_discarded_on_an_exception(tmp_path):
    path = tmp_path / "h.jsonl"
    with pytest.raises(RuntimeError), bio.AtomicFile(path) as out:
        out.write("half")
        raise RuntimeError
    assert list(tmp_path.iterdir()) == []


EVAL = ["--game", "brag", "--agents", "random", "random", "--hands", "4", "--no-progress"]


def _evaluate(argv: list[str], capsys) -> tuple[int, str]:
    code = evaluate_main(argv)
    return code, capsys.readouterr().err


@pytest.mark.parametrize("option", ["--json", "--history"])
def test_evaluate_full_disk_is_one_line_naming_the_file(tmp_path, monkeypatch, capsys, option):
    target = tmp_path / "out.txt"
    _full_disk(monkeypatch)
    code, err = _evaluate([*EVAL, option, str(target)], capsys)
    assert code == 2 and err.count("\n") == 1
    assert f"evaluate.py: error: cannot write {option} {target}: No space left on device" in err
    assert list(tmp_path.iterdir()) == []  # no 0-byte or half file


def test_evaluate_plot_full_disk_is_one_line(tmp_path, monkeypatch, capsys):
    _full_disk(monkeypatch)
    code, err = _evaluate([*EVAL, "--plot", str(tmp_path / "plots")], capsys)
    assert code == 2 and err.count("\n") == 1 and "cannot write --plot" in err
    assert "No space left on device" in err


def test_evaluate_permission_error_names_the_file(tmp_path, monkeypatch, capsys):
    def refuse(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(bio.tempfile, "mkstemp", refuse)
    target = tmp_path / "res.json"
    code, err = _evaluate([*EVAL, "--json", str(target)], capsys)
    assert code == 2 and f"cannot write --json {target}: Permission denied" in err


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_evaluate_refuses_to_overwrite_without_force(tmp_path, capsys):
    """Issue 18: evaluate.py --json/--history overwrote existing files silently."""
    for option in ("--json", "--history"):
        target = tmp_path / f"old{option}"
        target.write_text("precious\n")
        code, err = _evaluate([*EVAL, option, str(target)], capsys)
        assert code == 2 and f"{option} {target} already exists" in err and "--force" in err
        assert target.read_text() == "precious\n"
        assert _evaluate([*EVAL, option, str(target), "--force"], capsys)[0] == 0
        assert target.read_text() != "precious\n"
    plots = tmp_path / "plots"
    assert _evaluate([*EVAL, "--plot", str(plots)], capsys)[0] == 0
    code, err = _evaluate([*EVAL, "--plot", str(plots)], capsys)
    assert code == 2 and "already holds payoff_by_seat.png" in err
    assert _evaluate([*EVAL, "--plot", str(plots), "--force"], capsys)[0] == 0


def test_evaluate_json_and_history_must_differ(tmp_path, capsys):
    target = str(tmp_path / "same")
    code, err = _evaluate([*EVAL, "--json", target, "--history", target], capsys)
    assert code == 2 and "name the same file" in err


def test_history_into_proc_names_the_flag_and_the_path(tmp_path, capsys):
    """Issue 18: --history /proc/version printed a bare "[Errno 5]"."""
    code, err = _evaluate([*EVAL, "--history", "/proc/version"], capsys)
    assert code == 2 and "--history /proc/version already exists" in err
    code, err = _evaluate([*EVAL, "--history", "/proc/version", "--force"], capsys)
    assert code == 2 and err.startswith("evaluate.py: error: cannot write --history /proc/version")
    assert "Errno" not in err and err.count("\n") == 1
    code = play_main(
        ["brag", *CALLERS, "--history", "/proc/version", "--force"],
        stdin=io.StringIO(""),
        stdout=io.StringIO(),
    )
    err = capsys.readouterr().err
    assert code == 2 and "cannot write --history /proc/version" in err and "Errno" not in err


def _play(argv: list[str], answers: str) -> tuple[int, str]:
    out = io.StringIO()
    return play_main(argv, stdin=io.StringIO(answers), stdout=out), out.getvalue()


def test_play_eof_at_the_first_prompt_leaves_no_history(tmp_path):
    """Issue 18: EOF at play's first prompt left a 0-byte history the next run refused."""
    history = tmp_path / "h.jsonl"
    args = ["brag", *CALLERS, "--seed", "1", "--hands", "1", "--history", str(history)]
    code, out = _play(args, "")
    assert code == 0 and "End of input" in out
    assert list(tmp_path.iterdir()) == []
    code, _ = _play(args, "1\n" * 10)  # the next run needs no --force
    assert code == 0 and len(history.read_text().splitlines()) == 1


def test_play_full_disk_is_one_line_and_leaves_no_file(tmp_path, monkeypatch, capsys):
    history = tmp_path / "h.jsonl"
    _full_stream(monkeypatch, after=1)  # the first hand is written, the second fails
    code, _ = _play(
        ["brag", *CALLERS, "--seed", "1", "--hands", "3", "--history", str(history)], "1\n" * 40
    )
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert f"cannot write --history {history}: No space left on device" in err
    assert list(tmp_path.iterdir()) == []


def test_play_with_force_keeps_the_old_history_until_the_new_one_has_a_hand(tmp_path):
    history = tmp_path / "h.jsonl"
    history.write_text("old\n")
    args = ["brag", *CALLERS, "--seed", "1", "--hands", "1", "--history", str(history), "--force"]
    assert _play(args, "q\n")[0] == 0
    assert history.read_text() == "old\n"
    assert _play(args, "1\n" * 10)[0] == 0
    assert json.loads(history.read_text())["hand_number"] == 0


# ------------------------------------------------------------------ YAML
@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[" * 5000 + "]" * 5000, "nests more than 64 levels"),  # a RecursionError in PyYAML
        ("a: &a [1]\n" + "".join(f"b{i}: [{'*a, ' * 9}*a]\n" for i in range(11)), "aliases"),
        ("a: [1, 2\n", "is not valid YAML: expected ',' or ']'"),
        ("x: !!python/object:os.system {}", "is not valid YAML: could not determine"),
        ("#" * (bio.MAX_YAML_BYTES + 1), "larger than 1,048,576 bytes"),
    ],
)
def test_load_yaml_is_bounded_and_one_line(tmp_path, text, fragment):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(bio.FileError, match="config file") as caught:
        bio.load_yaml(path, "config file")
    assert fragment in str(caught.value) and "\n" not in str(caught.value)


def test_load_yaml_reads_a_config(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("game: brag\nenv:\n  num_players: 2\n  raise_sizes: [2, 4]\n")
    assert bio.load_yaml(path) == {"game": "brag", "env": {"num_players": 2, "raise_sizes": [2, 4]}}


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_option_values_nested_thousands_deep_are_one_line(capsys):
    code, err = _evaluate([*EVAL, "--option", "raise_sizes=" + "[" * 5000], capsys)
    assert code == 2 and "bad --option" in err and err.count("\n") == 1


# ------------------------------------------------------------------ the installed command
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_brag_evaluate_is_an_installed_script(tmp_path):
    """pyproject's [project.scripts] names brag_env.evaluation.cli:main; a wrapper like the
    one pip writes runs it under its own name (a non-editable install has no evaluate.py)."""
    import tomllib

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["brag-evaluate"] == "brag_env.evaluation.cli:main"
    wrapper = tmp_path / "brag-evaluate"
    wrapper.write_text("import sys\nfrom brag_env.evaluation.cli import main\nsys.exit(main())\n")
    result = subprocess.run(
        [sys.executable, str(wrapper), "--game", "chess", "--agents", "random", "random"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("brag-evaluate: error: unknown game 'chess'")


def test_replay_unreadable_file_names_it(tmp_path, monkeypatch):
    path = _write(tmp_path / "h.jsonl", _brag_lines(1))
    real_open = open

    def refuse(file, *args, **kwargs):
        if str(file) == str(path):
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr("builtins.open", refuse)
    code, err = _replay(path)
    assert code == 2 and f"cannot read {str(path)!r}: Permission denied" in err
