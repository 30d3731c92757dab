"""docs/results.md's evaluation figures, from the commands printed on the page.

    python bench/results.py                      # run every command, list the rows that differ
    python bench/results.py --write              # ... and write today's figures into the page
    python bench/results.py --only put_baselines --only put_duplicate
    python bench/results.py --only brag_model_headsup     # the Brag models: on demand only

Each ``Row`` names one table row of the page (by its first cell), the ``evaluate.py`` commands
that make it, exactly as the page prints them, and how the row's cells are read from their
``--json`` reports. The cells are formatted with the report's own formatters
(``brag_env.evaluation.report``), so they carry the digits ``evaluate.py`` prints. Every row's
anchor command must be on the page, above its table (the model table shows one command for
its six opponents). Covered so far:
the baselines against random play, the heads-up round robins without `never_look`, the
duplicate deals (Brag and Put) and the shipped Put model against each baseline. Exit status 0
when every covered row is what its commands print today (or was written), 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a clone: the checkout's brag_env

from brag_env.evaluation.report import ci_text, interval_text, rate_text  # noqa: E402
from brag_env.evaluation.stats import Estimate  # noqa: E402
from brag_env.io import write_output  # noqa: E402

PAGE = ROOT / "docs" / "results.md"
Report = dict[str, Any]
Cells = Callable[[Sequence[Report]], list[str]]


def estimate(entry: dict[str, Any]) -> Estimate:
    """An ``Estimate`` back from its ``--json`` form."""
    return Estimate(
        entry["mean"], entry["half_width"], entry["n"], entry["std"], units=entry["units"]
    )


@dataclass(frozen=True)
class Row:
    """One row of the page: the first line starting ``first_cell`` after the line that shows
    ``anchor`` (the command printed above its table), made by ``commands``."""

    group: str
    anchor: str
    first_cell: str
    commands: tuple[str, ...]
    cells: Callable[[Sequence[Report]], list[str]]


def put_baseline(reports: Sequence[Report]) -> list[str]:
    """Match wins ± CI, 95% CI, points/hand ± CI, Put rate, bluff Put, light see, fold to Put."""
    agent = reports[0]["agents"][0]
    wins, points = (estimate(agent["metrics"][k]) for k in ("match_win", "points_per_hand"))
    return [
        ci_text(wins, 1, percent=True),
        interval_text(wins, 1, percent=True),
        ci_text(points, 2),
        *rates(agent, "put_rate", "bluff_put_rate", "light_see_rate", "fold_to_put"),
    ]


def brag_baseline(reports: Sequence[Report]) -> list[str]:
    """Payoff ± CI, 95% CI, then blind play, bluff raise, light see, fold to raise, see freq,
    showdown win."""
    agent = reports[0]["agents"][0]
    payoff = estimate(agent["payoff"])
    keys = ("blind_play_rate", "bluff_raise_rate", "light_see_rate", "fold_to_raise")
    return [
        ci_text(payoff),
        interval_text(payoff),
        *rates(agent, *keys, "see_frequency", "showdown_win_rate"),
    ]


def rates(agent: dict[str, Any], *keys: str) -> list[str]:
    return [rate_text(agent["behaviour"].get(k), k) for k in keys]


def payoffs(reports: Sequence[Report]) -> list[str]:
    """The first agent's payoff ± CI, one cell per report."""
    return [ci_text(estimate(r["agents"][0]["payoff"])) for r in reports]


def round_robin_row(index: int) -> Callable[[Sequence[Report]], list[str]]:
    """Row ``index`` of the payoff matrix: ``+0.23 ± 0.06``, `` (ns)`` when the CI holds 0."""

    def cells(reports: Sequence[Report]) -> list[str]:
        out = []
        for entry in reports[0]["matrix"][index]:
            if entry is None:
                out.append("-")
                continue
            e = estimate(entry)
            out.append(ci_text(e, 2) + ("" if e.excludes(0.0) else " (ns)"))
        return out

    return cells


def match_wins(reports: Sequence[Report]) -> list[str]:
    """The first agent's match win rate ± CI, one cell per report."""
    return [
        ci_text(estimate(r["agents"][0]["metrics"]["match_win"]), 1, percent=True) for r in reports
    ]


def model_vs(reports: Sequence[Report]) -> list[str]:
    """``87.5% [86.5%, 88.5%]`` and ``+0.620 [+0.600, +0.640]`` of the first agent."""
    agent = reports[0]["agents"][0]
    wins, points = (estimate(agent["metrics"][k]) for k in ("match_win", "points_per_hand"))
    return [
        f"{100 * wins.mean:.1f}% [{100 * wins.low:.1f}%, {100 * wins.high:.1f}%]",
        f"{points.mean:+.3f} [{points.low:+.3f}, {points.high:+.3f}]",
    ]


def baseline_rows(game: str, others: str, budget: str, cells: Cells, *styles: str) -> list[Row]:
    """One row per style: ``evaluate.py --agents GAME:STYLE OTHERS BUDGET --no-batched``."""
    rows = []
    for style in styles:
        command = (
            f"python evaluate.py --game {game} --agents {game}:{style} {others} {budget} "
            "--seed 0 --no-batched"
        )
        rows.append(Row(f"{game}_baselines", command, f"`{style}`", (command,), cells))
    return rows


def round_robin_rows(game: str, pool: str, budget: str) -> list[Row]:
    """The payoff matrix of ``evaluate.py --round-robin POOL BUDGET --no-batched``, row by row."""
    command = (
        f"python evaluate.py --game {game} --round-robin {pool} {budget} --seed 0 --no-batched"
    )
    return [
        Row(
            f"{game}_round_robin",
            command,
            f"#{i} {name.partition(':')[2] or name}",
            (command,),
            round_robin_row(i),
        )
        for i, name in enumerate(pool.split())
    ]


def duplicate_row(game: str, pair: str, budget: str, first_cell: str, cells: Cells) -> Row:
    """A plain (scalar) run and a duplicate-deal run of the same pair, one cell each."""
    plain = f"python evaluate.py --game {game} --agents {pair} {budget} --seed 0 --no-batched"
    duplicate = plain.replace(" --no-batched", " --duplicate")
    return Row(f"{game}_duplicate", plain, first_cell, (plain, duplicate), cells)


def brag_model(reports: Sequence[Report]) -> list[str]:
    """``+2.008 [+1.746, +2.270]``, then look, blind to the end, fold, bluff raise, light see,
    cover rate and bluff success of the model (the first agent)."""
    agent = reports[0]["agents"][0]
    e = estimate(agent["payoff"])
    keys = ("look_rate", "blind_to_end_rate", "fold_rate", "bluff_raise_rate", "light_see_rate")
    return [
        f"{e.mean:+.3f} [{e.low:+.3f}, {e.high:+.3f}]",
        *rates(agent, *keys, "cover_rate", "bluff_success"),
    ]


def brag_model_rows(group: str, shown: str, seats: int) -> list[Row]:
    """A Brag model against each baseline (``seats - 1`` copies); the page shows one command."""
    styles = ("caller", "tight", "bluffer", "blind", "tips", "never_look")
    rows = []
    for opponent in ("random", *(f"brag:{style}" for style in styles)):
        command = shown.replace(" brag:tight" * (seats - 1), f" {opponent}" * (seats - 1))
        cell = opponent if opponent == "random" else f"`{opponent}`"
        rows.append(Row(group, shown, cell, (command,), brag_model))
    return rows


def model_rows() -> list[Row]:
    """The shipped Put model against each baseline; the page shows the command once."""
    shown = (
        "python evaluate.py --game put --agents model:put_selfplay put:bluffer --matches 4000 "
        "--seed 0"
    )
    opponents = ("random", "put:greedy", "put:caller", "put:bluffer", "put:tips", "put:equilibrium")
    return [
        Row(
            "put_model",
            shown,
            opponent if opponent == "random" else f"`{opponent}`",
            (shown.replace("put:bluffer", opponent),),
            model_vs,
        )
        for opponent in opponents
    ]


ROWS = [
    *baseline_rows(
        "brag",
        "random random random",
        "--hands 20000",
        brag_baseline,
        "tight",
        "caller",
        "bluffer",
        "blind",
        "tips",
    ),
    *round_robin_rows(
        "brag",
        "random brag:caller brag:tight brag:bluffer brag:blind brag:tips",
        "--option num_players=2 --hands 4000",
    ),
    duplicate_row(
        "brag",
        "brag:tight brag:tips",
        "--hands 20000",
        "`brag:tight` vs `brag:tips`, heads-up, antes/hand",
        payoffs,
    ),
    *baseline_rows("put", "random", "--matches 2000", put_baseline, "greedy", "caller", "bluffer"),
    *round_robin_rows("put", "random put:greedy put:caller put:bluffer", "--matches 1000"),
    duplicate_row(
        "put",
        "put:caller put:greedy",
        "--matches 2000",
        "`put:caller` vs `put:greedy`, match win rate",
        match_wins,
    ),
    *model_rows(),
]
#: The Brag models' tables: checked on demand (--only), ten minutes and more of CPU.
ON_DEMAND = [
    *brag_model_rows(
        "brag_model_headsup",
        "python evaluate.py --game brag --agents model:brag_headsup_selfplay brag:tight "
        "--option num_players=2 --hands 10000 --seed 0 --no-batched",
        2,
    ),
    *brag_model_rows(
        "brag_model_4p",
        "python evaluate.py --game brag --agents model:brag_selfplay brag:tight brag:tight "
        "brag:tight --hands 10000 --seed 0 --no-batched",
        4,
    ),
]


def run_command(command: str, cache: dict[str, Report]) -> Report:
    """The ``--json`` report of one page command, run in a new process from the repository."""
    if command in cache:
        return cache[command]
    words = shlex.split(command)
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "report.json"
        result = subprocess.run(
            [sys.executable, *words[1:], "--json", str(out), "--no-progress"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        if result.returncode != 0:
            raise SystemExit(f"bench/results.py: {command!r} failed: {result.stderr.strip()}")
        cache[command] = json.loads(out.read_text(encoding="utf-8"))
    return cache[command]


def find_line(lines: list[str], row: Row) -> int:
    """The index of the row's line: the first whose first cell is ``row.first_cell`` after the
    line showing ``row.anchor``."""
    shown = [i for i, line in enumerate(lines) if line.strip() == row.anchor]
    if not shown:
        raise SystemExit(f"bench/results.py: {PAGE.name} does not show {row.anchor!r}")
    pattern = re.compile(r"^\|\s*" + re.escape(row.first_cell) + r"\s*\|")
    for i in range(shown[0], len(lines)):
        if pattern.match(lines[i]):
            return i
    raise SystemExit(f"bench/results.py: no row {row.first_cell!r} after {row.anchor!r}")


def page_row(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")][1:]


def check(rows: Sequence[Row], write: bool) -> int:
    lines = PAGE.read_text(encoding="utf-8").splitlines()
    cache: dict[str, Report] = {}
    differ = 0
    for row in rows:
        at = find_line(lines, row)  # the anchor first: a command the page does not show stops
        today = row.cells([run_command(c, cache) for c in row.commands])
        printed = page_row(lines[at])
        if printed == today:
            print(f"same  {row.group}: {row.first_cell}")
            continue
        differ += 1
        print(f"DIFF  {row.group}: {row.first_cell}\n  page:  {printed}\n  today: {today}")
        head = lines[at].split("|")[1]
        lines[at] = "|" + head + "| " + " | ".join(today) + " |"
    if write and differ:
        write_output(PAGE, "\n".join(lines) + "\n", "the results page")  # atomically
        print(f"wrote {differ} row(s) of {PAGE}")
    return 0 if write or not differ else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python bench/results.py", description=__doc__.split("\n")[0]
    )
    groups = sorted({row.group for row in ROWS + ON_DEMAND})
    parser.add_argument(
        "--only", action="append", choices=groups, help="a group of rows (repeatable)"
    )
    parser.add_argument("--write", action="store_true", help="write today's figures into the page")
    args = parser.parse_args(argv)
    chosen = ROWS + ON_DEMAND if args.only else ROWS
    rows = [row for row in chosen if not args.only or row.group in args.only]
    return check(rows, args.write)


if __name__ == "__main__":
    sys.exit(main())
