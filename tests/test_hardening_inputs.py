"""Hostile inputs, round two (issue 30): YAML alias bombs and one-line errors that quote a
bounded part of the value (item 3), npz files whose headers claim huge arrays (item 4), solver
checkpoints and strategies with wrong or non-finite contents (item 10)."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np
import pytest
from numpy.lib import format as npy

import brag_env.io as bio
from brag_env.evaluation.cli import main as evaluate_main
from brag_env.exploit import main as exploit_main
from brag_env.put.solver.io import load_checkpoint, load_strategy
from brag_env.solve import main as solve_main
from brag_env.training.config import apply_override, load_config
from brag_env.ui.cli import parse_options


def _bomb(levels: int = 9, width: int = 10, name: str = "x") -> str:
    """``levels`` anchors, each a list of ``width`` aliases of the one before: width**levels
    nodes once expanded, in a few lines."""
    lines = [f"l0: &l0 [{', '.join([name] * width)}]"]
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ item 3: YAML
def test_an_alias_bomb_under_the_alias_count_is_refused_by_its_expanded_size():
    text = _bomb(levels=5, width=10)  # 40 aliases, 10^5 nodes
    assert text.count("*") < bio.MAX_YAML_ALIASES
    with pytest.raises(bio.FileError, match=r"holds more than 10,000 nodes"):
        bio.parse_yaml(text, "x.yaml")


def test_shared_anchors_within_the_limit_still_load():
    assert bio.parse_yaml("a: &a [1, 2]\nb: *a\n", "x") == {"a": [1, 2], "b": [1, 2]}


def test_a_5000_digit_integer_in_yaml_is_refused_without_pythons_advice(tmp_path, capsys):
    from brag_env.training.cli import main as train_main

    digits = "9" * 5000
    with pytest.raises(bio.FileError, match=r"^x.yaml is not valid YAML: .*value has 5000 dig"):
        bio.parse_yaml(f"a: {digits}\n", "x.yaml")
    config = tmp_path / "big.yaml"
    config.write_text(f"total_timesteps: {digits}\n")
    for argv in (["--config", str(config)], ["--set", f"total_timesteps={digits}"]):
        assert train_main([*argv, "--out", str(tmp_path / "run")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "value has 5000 digits" in err
        assert "set_int_max_str_digits" not in err and len(err) < 600


def test_a_training_config_bomb_is_one_line(tmp_path):
    """Issue 30: an 11-line config took 66 s and 3 GB before an abort."""
    path = tmp_path / "bomb.yaml"
    path.write_text("game: put\nenv:\n  x: &top [1]\n" + _bomb())
    with pytest.raises(ValueError) as refused:
        load_config(path)
    message = str(refused.value)
    assert "\n" not in message and len(message) < 300
    assert message.startswith(f"{path}: not valid YAML: holds more than 10,000 nodes, aliases")


def test_a_set_override_bomb_is_refused():
    with pytest.raises(ValueError, match=r"--set env: .*holds more than"):
        apply_override({}, "env=" + _bomb(levels=5).replace("\n", ", ").join("{}"))


def test_an_option_bomb_gives_a_short_line(capsys):
    """Issue 30: a 338-character --option raise_sizes=[...] printed a 157 MB error line."""
    value = "[" + ", ".join(f"&a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}]" for i in range(1, 12))
    value = "[&a0 [1, 1, 1], " + value[1:] + "]"
    with pytest.raises(ValueError) as refused:
        parse_options([f"raise_sizes={value}"])
    assert "holds more than" in str(refused.value) and len(str(refused.value)) < 600
    code = evaluate_main(
        ["--game", "brag", "--agents", "random", "random", "--option", f"raise_sizes={value}"]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and len(err) < 800


def test_a_huge_value_is_quoted_short_in_the_config_error(tmp_path):
    path = tmp_path / "long.yaml"
    path.write_text("game: put\nseed: " + "9" * 20_000 + "x\n")
    with pytest.raises(ValueError) as refused:
        load_config(path)
    message = str(refused.value)
    assert message.startswith("seed must be") and len(message) < 400 and "\n" not in message


def test_quoted_cuts_containers_and_strings():
    assert len(bio.quoted(list(range(10**6)))) < 300
    assert len(bio.quoted("x" * 10_000)) <= bio.MAX_QUOTED_CHARS
    assert bio.clip("y" * 10_000).endswith("... (9,800 more characters)")
    assert bio.quoted([1, "a"]) == "[1, 'a']"


# ------------------------------------------------------------------ item 4: npz
def _npz_claiming(tmp_path: Path, shape: tuple[int, ...], data: bytes = b"") -> Path:
    """An .npz whose ``put0.npy`` header declares ``shape`` float64 but holds ``data``."""
    header = io.BytesIO()
    npy.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": shape})
    path = tmp_path / "claims.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("put0.npy", header.getvalue() + data)  # the header has the magic
    return path


def test_npz_headers_claiming_gigabytes_are_refused_before_allocating(tmp_path):
    path = _npz_claiming(tmp_path, (2**29,), b"\0" * 2**21)  # a 2 MB file claiming 4 GiB
    with pytest.raises(bio.FileError, match=r"declare 4,294,967,296 bytes .* refused"):
        bio.load_npz(path, "x.npz", 2**28)
    with pytest.raises(ValueError, match="declare 4,294,967,296 bytes"):
        load_strategy(path)


def test_exploit_of_a_strategy_claiming_gigabytes_is_one_line(tmp_path, capsys):
    path = _npz_claiming(tmp_path, (2**29,), b"\0" * 2**21)
    code = exploit_main(["put", f"put:equilibrium:path={path}", "--deck-ranks", "2"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "declare 4,294,967,296 bytes" in err


def test_npz_entries_shorter_than_their_header_or_holding_objects_are_refused(tmp_path):
    path = _npz_claiming(tmp_path, (100,), b"\0" * 16)
    with pytest.raises(bio.FileError, match=r"not a valid \.npz archive"):
        bio.load_npz(path, "x.npz", 2**20)
    buffer = io.BytesIO()
    np.savez(buffer, a=np.array([{"x": 1}], dtype=object))
    objects = tmp_path / "objects.npz"
    objects.write_bytes(buffer.getvalue())
    with pytest.raises(bio.FileError, match="holds Python objects: refused"):
        bio.load_npz(objects, "x.npz", 2**20)


def test_load_npz_reads_what_numpy_wrote(tmp_path):
    path = tmp_path / "ok.npz"
    np.savez_compressed(path, a=np.arange(6.0).reshape(2, 3), b=np.zeros(0, np.uint8))
    arrays = bio.load_npz(path, "ok.npz", 2**20)
    assert arrays["a"].tolist() == [[0, 1, 2], [3, 4, 5]] and arrays["b"].dtype == np.uint8


# ------------------------------------------------------------------ item 10: solver files
@pytest.fixture(scope="module")
def solved(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("solved")
    out = folder / "k2.npz"
    argv = ["put", "--deck-ranks", "2", "--iterations", "3", "--out", str(out)]
    assert solve_main(argv) == 0
    return out, folder / "k2.ckpt.npz"


def _rewrite(path: Path, target: Path, change) -> Path:
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    change(arrays)
    np.savez(target, **arrays)
    return target


def _nan(arrays):
    arrays["r_put0"] = np.full_like(arrays["r_put0"], np.nan)


@pytest.mark.parametrize(
    "change, fragment",
    [
        (lambda a: a.pop("r_see3"), "does not fit the tree (missing r_see3)"),
        (lambda a: a.update(a_put1=a["a_put1"][:1]), "array 'a_put1' is float64["),
        (lambda a: a.update(r_fold0=np.array(["x"] * 3)), "array 'r_fold0' holds <U1"),
        (_nan, "array 'r_put0' holds NaN or infinite values: refused"),
    ],
    ids=["missing", "shrunk", "strings", "nan"],
)
def test_a_damaged_solver_checkpoint_is_refused_in_one_line(
    solved, tmp_path, capsys, change, fragment
):
    _, checkpoint = solved
    damaged = _rewrite(checkpoint, tmp_path / "bad.ckpt.npz", change)
    argv = ["put", "--deck-ranks", "2", "--iterations", "5", "--out", str(tmp_path / "s.npz")]
    code = solve_main([*argv, "--checkpoint", str(damaged), "--resume"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and fragment in err, err
    assert f"checkpoint {str(damaged)!r}" in err and "strategy file" not in err  # named as such
    assert not (tmp_path / "s.npz").exists()


def test_a_good_checkpoint_still_resumes(solved):
    _, checkpoint = solved
    arrays, meta = load_checkpoint(checkpoint)
    assert meta["iterations"] == 3 and all(np.isfinite(a).all() for a in arrays.values())


def test_a_strategy_with_nan_is_refused(solved, tmp_path):
    out, _ = solved
    bad = _rewrite(out, tmp_path / "nan.npz", lambda a: a["see0"].fill(np.nan))
    with pytest.raises(ValueError, match=r"^strategy file .*: array 'see0' holds NaN or infinite"):
        load_strategy(bad)
