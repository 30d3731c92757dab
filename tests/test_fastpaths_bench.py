"""bench/throughput.py runs end to end on a tiny budget and reports every row and comparison.

No timing is asserted (the machine is shared); this only keeps the script working.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "throughput.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_throughput", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_throughput_reports_every_row_and_comparison(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    assert bench.main(["--quick", "--games", "4", "--put-matches", "1", "--reps", "2"]) == 0
    out = capsys.readouterr().out
    for name in (
        "leduc_holdem_v4.env()",
        "texas_holdem_v4.raw_env()",
        "brag_v1.env(4 players)",
        "brag_v1.env(8 players)",
        "put_v0.raw_env()",
        "Brag engine, 4 players",
        "Put engine, 2 players",
        "hand_strength_batch",
    ):
        assert f"| {name} |" in out
    for comparison in bench.COMPARISONS:
        assert f"| {comparison.label} |" in out
    assert "load average" in out
    assert "NO" not in out.split() and "needed" not in out  # figures, no verdicts


@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_only_filters_rows_and_rejects_no_match(capsys: pytest.CaptureFixture[str]) -> None:
    bench = _load()
    assert bench.main(["--games", "2", "--reps", "1", "--only", "Brag engine"]) == 0
    out = capsys.readouterr().out
    assert "| Brag engine, 4 players |" in out and "leduc" not in out
    with pytest.raises(SystemExit):
        bench.main(["--games", "2", "--reps", "1", "--only", "no such row"])
