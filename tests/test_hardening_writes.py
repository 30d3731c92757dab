"""Result files, round two (issue 30): the one writer refuses anything but a regular file or a
new path (items 1, 14), and leftovers of killed writers are removed by the next write of the
same target (item 13)."""

from __future__ import annotations

import errno
import io
import os
from pathlib import Path

import pytest

import brag_env.io as bio
from brag_env.evaluation.cli import main as evaluate_main
from brag_env.play import main as play_main
from tests.killed_process import run_until_killed

ROOT = Path(__file__).resolve().parents[1]
EVAL = ["--game", "brag", "--agents", "random", "random", "--hands", "2", "--no-progress"]


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def _is_fifo(path: Path) -> bool:
    return path.is_fifo() and not path.is_symlink()


# ------------------------------------------------------------------ item 1: special files
def test_every_writer_refuses_a_fifo(fifo):
    with pytest.raises(bio.FileError, match=r"--json .*pipe is a FIFO: refused"):
        bio.AtomicFile(fifo, "--json")
    with pytest.raises(bio.FileError, match="is a FIFO: refused"):
        bio.write_output(fifo, "x", "--json")
    with pytest.raises(bio.FileError, match="is a FIFO: refused"):
        bio.atomic_write_bytes(fifo, b"x")
    with pytest.raises(bio.FileError, match="is a FIFO: refused"):
        bio.check_writable(fifo, "--json", force=True)
    assert _is_fifo(fifo) and [p.name for p in fifo.parent.iterdir()] == ["pipe"]


def test_a_symlink_to_a_fifo_is_refused_and_a_dangling_one_is_a_new_path(tmp_path, fifo):
    link = tmp_path / "link"
    link.symlink_to(fifo)
    with pytest.raises(bio.FileError, match="is a FIFO"):
        bio.write_output(link, "x", "--json")
    assert _is_fifo(fifo) and link.is_symlink()
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nowhere")
    bio.write_output(dangling, "x", "--json")
    assert dangling.read_text() == "x"


def test_a_target_turned_into_a_fifo_while_writing_is_not_replaced(tmp_path):
    path = tmp_path / "h.jsonl"
    out = bio.AtomicFile(path, "--history")
    out.write("a hand\n")
    os.mkfifo(path)
    with pytest.raises(bio.FileError, match="is a FIFO"):
        out.commit()
    assert _is_fifo(path) and [p.name for p in tmp_path.iterdir()] == ["h.jsonl"]


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod of a character device needs root")
def test_a_device_node_is_refused(tmp_path):
    null = tmp_path / "null"
    os.mknod(null, 0o666 | 0o020000, os.makedev(1, 3))  # a copy of /dev/null
    with pytest.raises(bio.FileError, match="is a character device: refused"):
        bio.write_output(null, "x", "--json")
    assert null.is_char_device()


@pytest.mark.parametrize("option", ["--json", "--history"])
def test_evaluate_force_onto_a_fifo_is_one_line_and_keeps_it(fifo, capsys, option):
    code = evaluate_main([*EVAL, option, str(fifo), "--force"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert f"evaluate.py: error: {option} {fifo} is a FIFO: refused" in err
    assert _is_fifo(fifo)


def test_play_history_force_onto_a_fifo_is_refused(fifo, capsys):
    argv = ["brag", "--opponents", "brag:caller", "--history", str(fifo), "--force"]
    code = play_main(argv, stdin=io.StringIO(""), stdout=io.StringIO())
    err = capsys.readouterr().err
    assert code == 2 and f"--history {fifo} is a FIFO: refused" in err and _is_fifo(fifo)


def test_solve_out_onto_a_fifo_is_refused(fifo, capsys):
    from brag_env.solve import main as solve_main

    argv = ["put", "--deck-ranks", "2", "--iterations", "1", "--out", str(fifo), "--force"]
    code = solve_main([*argv, "--checkpoint-every", "0"])
    err = capsys.readouterr().err
    refusal = f"--out {fifo} is a FIFO: refused, only a regular file or a new path is written"
    assert code == 2 and err == f"python -m brag_env.solve: error: {refusal}\n"
    assert _is_fifo(fifo)


def test_solve_disk_full_names_the_file(tmp_path, monkeypatch, capsys):
    """Item 14: the solver's full-disk line named no file."""
    from brag_env.solve import main as solve_main

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(bio.os, "fsync", full)
    out = tmp_path / "s.npz"
    code = solve_main(["put", "--deck-ranks", "2", "--iterations", "1", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and f"cannot write '{out.with_suffix('')}.ckpt.npz'" in err
    assert "No space left on device" in err and not out.exists()


# ------------------------------------------------------------------ item 13: leftovers
def _kill_mid_write(target: Path) -> Path:
    """A process that opens a temporary file for ``target`` and is killed by SIGKILL."""
    code = (
        "import os, sys, brag_env.io as bio\n"
        "out = bio.AtomicFile(sys.argv[1])\n"
        "out.write('half'); out.flush()\n"
        "os.kill(os.getpid(), 9)\n"
    )
    run_until_killed(code, str(target))
    (left,) = [p for p in target.parent.iterdir() if p.name.endswith(".tmp")]
    return left


def test_a_killed_writers_temp_file_is_removed_by_the_next_write(tmp_path):
    target = tmp_path / "res.json"
    left = _kill_mid_write(target)
    other = tmp_path / ".other.json.abcdefgh.tmp"  # another target's: not ours to remove
    other.write_text("x")
    mine = tmp_path / "res.json.notes.tmp"  # not the pattern: the user's file
    mine.write_text("x")
    bio.write_output(target, "new", "--json")
    assert not left.exists() and other.exists() and mine.exists()
    assert target.read_text() == "new"


def test_a_live_writers_temp_file_is_kept(tmp_path):
    target = tmp_path / "h.jsonl"
    live = bio.AtomicFile(target, "--history")  # this process holds its lock
    live.write("a hand\n")
    assert bio.remove_stale_temps(target) == []
    bio.write_output(target, "other\n")  # a concurrent writer of the same target
    live.commit()
    assert target.read_text() == "a hand\n"
    assert [p.name for p in tmp_path.iterdir()] == ["h.jsonl"]


def test_a_failed_plot_leaves_no_png_of_its_own(tmp_path, monkeypatch, capsys):
    """Item 14: a full disk at the second PNG left the first one behind."""
    real = bio.atomic_write_bytes
    calls = []

    def second_fails(path, data):
        calls.append(path)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, data)

    monkeypatch.setattr(bio, "atomic_write_bytes", second_fails)
    plots = tmp_path / "plots"
    code = evaluate_main([*EVAL, "--plot", str(plots)])
    err = capsys.readouterr().err
    assert code == 2 and "cannot write --plot" in err and len(calls) == 2
    assert list(plots.iterdir()) == []


def test_solve_removes_a_killed_solves_temporary_checkpoint(tmp_path):
    from brag_env.solve import main as solve_main

    out = tmp_path / "s.npz"
    left = _kill_mid_write(tmp_path / "s.ckpt.npz")
    argv = ["put", "--deck-ranks", "2", "--iterations", "1", "--out", str(out)]
    assert solve_main([*argv, "--checkpoint-every", "0"]) == 0  # writes no checkpoint at all
    assert not left.exists() and out.is_file()
