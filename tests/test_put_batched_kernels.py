"""The compiled batched engines' loading: the first compile announced on a terminal (Brag and
Put), and Put's kernels that cannot load as one line (train.py) or a note and the scalar env
(evaluate.py); Brag's are in test_brag_batched.py and test_train_batched_brag.py."""

import io
import sys

import pytest
from unloadable_kernels import kernels_that_cannot_load

from brag_env.brag import batched as brag_batched
from brag_env.evaluation.batched import supports_batched
from brag_env.put import batched as put_batched
from brag_env.training.batched import make_engine


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    "module, engine",
    [(brag_batched, brag_batched.BatchedBrag), (put_batched, put_batched.BatchedPut)],
)
@pytest.mark.parametrize("terminal, cached", [(True, False), (True, True), (False, False)])
def test_a_first_compile_is_announced_once_on_a_terminal(
    monkeypatch, module, engine, terminal, cached
):
    """A first compile takes many seconds: one line before it on a terminal, nothing when the
    kernels are cached or stderr is a log, a pipe or a test's capture."""
    stderr = _Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    monkeypatch.setattr(module.kernel, "cached", lambda: cached)
    module._announce_compile.cache_clear()
    try:
        engine(2)
        engine(2)  # once a process
    finally:
        module._announce_compile.cache_clear()
    said = [module.COMPILING] if terminal and not cached else []
    assert stderr.getvalue().splitlines() == said


def test_kernels_that_cannot_load_are_a_one_line_training_error(monkeypatch):
    """vec_env: batched is asked for: no scalar fallback, one line (no traceback)."""
    error = r"^vec_env: batched: the batched Put engine cannot load \(.*; or use vec_env: dummy$"
    with kernels_that_cannot_load(monkeypatch, "put"), pytest.raises(ValueError, match=error):
        make_engine("put", {}, 2, 0)


def test_kernels_that_cannot_load_are_a_note_and_the_scalar_env(monkeypatch, capsys):
    with kernels_that_cannot_load(monkeypatch, "put"):
        assert not supports_batched("put", ["put:greedy", "put:caller"], {})
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("note: the batched Put engine cannot load (")
    assert err[0].endswith("; playing on the scalar env")
