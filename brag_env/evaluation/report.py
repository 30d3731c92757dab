"""Rich terminal tables for tournament and round-robin results."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table

from brag_env.evaluation.games import ADAPTERS
from brag_env.evaluation.runner import RoundRobinResult, TournamentResult
from brag_env.evaluation.stats import Estimate
from brag_env.games import game_spec

# (behaviour key, column title), per game: each adapter's ``behaviour_columns``.
BEHAVIOUR_COLUMNS: dict[str, list[tuple[str, str]]] = {
    name: list(cls.behaviour_columns) for name, cls in ADAPTERS.items() if cls.behaviour_columns
}
_ENGINES = {
    "scalar": "scalar engine (one AEC env)",
    "batched": "batched engine (all episodes at once, as arrays)",
}
_COUNT_KEYS = {
    "turns_before_look",
    "antes_per_scoop",
    "longest_carry",
}  # shown as a number, not a percentage

# Rates by strength decile in the text report, per game (each adapter's ``decile_tables``):
# (title, behaviour table key, numerator column, denominator columns).
DECILE_TABLES: dict[str, list[tuple[str, str, str, tuple[str, ...]]]] = {
    name: list(cls.decile_tables) for name, cls in ADAPTERS.items() if cls.decile_tables
}


def ci_text(e: Estimate, digits: int = 3, percent: bool = False, shown: float | None = None) -> str:
    """``+1.234 ± 0.567`` (payoffs carry a sign) or ``63.6% ± 2.1`` (rates); ``shown``: the
    mean already scaled and rounded (``shares_rounded``)."""
    if e.n == 0:
        return "-"
    scale, unit, sign = (100.0, "%", "") if percent else (1.0, "", "+")
    mean = e.mean * scale if shown is None else shown
    if e.units < 2:
        return f"{mean:{sign}.{digits}f}{unit}"
    return f"{mean:{sign}.{digits}f}{unit} ± {e.half_width * scale:.{digits}f}"


def shares_rounded(values: Sequence[float], digits: int) -> list[float]:
    """``values`` rounded to ``digits`` decimals so that they add up to their rounded sum
    (42.33 + 20.33 + 37.33 shows as 42.4, 20.3, 37.3, not as a total of 99.9).

    Each value is rounded as usual; only when those add up to something else are the ones that
    rounding moved furthest moved one unit of the last digit the other way (largest remainder),
    so a table whose rounding already adds up prints as it always did."""
    step = 10.0**digits
    units = [v * step for v in values]
    rounded = [round(float(f"{v:.{digits}f}") * step) for v in values]  # as printing rounds
    short = round(sum(units)) - sum(rounded)
    if short:
        sign = 1 if short > 0 else -1  # round up the ones rounded down most, or the reverse
        order = sorted(range(len(units)), key=lambda i: sign * (rounded[i] - units[i]))
        for i in order[: abs(short)]:
            rounded[i] += sign
    return [r / step for r in rounded]


def significance_mark(e: Estimate) -> str:
    """``*`` when the 95% CI excludes 0 (the text table and the heatmap use the same mark)."""
    return "*" if e.excludes(0.0) else ""


def interval_text(e: Estimate, digits: int = 3, percent: bool = False) -> str:
    if e.units < 2:
        return "-"
    scale, sign = (100.0, "") if percent else (1.0, "+")
    return f"[{e.low * scale:{sign}.{digits}f}, {e.high * scale:{sign}.{digits}f}]"


def rate_text(value: Any, key: str) -> str:
    if value is None:
        return "-"
    if key in _COUNT_KEYS:
        return f"{value:.2f}"
    return f"{100.0 * value:.1f}%"


def tournament_tables(result: TournamentResult) -> list[Table]:
    """The payoff table and the behaviour table (statistics as rows) of a tournament."""
    unit = result.sample_unit
    plural = "matches" if unit == "match" else f"{unit}s"
    payoff = Table(
        title=f"{result.game}: {result.samples} {plural}, seed {result.seed}"
        + (f", duplicate deals ({result.groups} groups)" if result.duplicate else ""),
        caption=f"95% CI: {result.ci_method}",
    )
    payoff.add_column("#", justify="right")
    payoff.add_column("agent", style="bold")
    put = game_spec(result.game).matches
    if put:  # the match win rate is the headline; the reward is 2 * rate - 1 heads-up
        payoff.add_column("match wins ± 95% CI", justify="right")
        payoff.add_column("95% CI", justify="right")
        payoff.add_column("points/hand ± CI", justify="right")
    else:
        payoff.add_column(f"{result.payoff_unit} ± 95% CI", justify="right")
        payoff.add_column("95% CI", justify="right")
    payoff.add_column("n", justify="right")
    win_pct: dict[int, float] = {}  # the match win rates, rounded to add up (shares_rounded)
    if put:
        played = [a for a in result.agents if a.metrics["match_win"].n]
        shown = shares_rounded([100.0 * a.metrics["match_win"].mean for a in played], 1)
        win_pct = {a.index: pct for a, pct in zip(played, shown, strict=True)}
    for a in result.agents:
        if put:
            wins = a.metrics["match_win"]
            row = [
                ci_text(wins, 1, percent=True, shown=win_pct.get(a.index)),
                interval_text(wins, 1, percent=True),
                ci_text(a.metrics["points_per_hand"], 2),
            ]
            n = wins.n
        else:
            row = [ci_text(a.payoff), interval_text(a.payoff)]
            n = a.payoff.n
        payoff.add_row(str(a.index), escape(a.label), *row, str(n))

    tables = [payoff]
    columns = BEHAVIOUR_COLUMNS.get(result.game)
    if columns:
        behaviour = Table(title="behaviour (definitions: docs/evaluation.md in the repository)")
        behaviour.add_column("statistic")
        for a in result.agents:
            behaviour.add_column(escape(f"{a.index} {a.label}"), justify="right")
        for key, title in columns:
            cells = [rate_text(a.behaviour.get(key), key) for a in result.agents]
            behaviour.add_row(title, *cells)
        tables.append(behaviour)
    tables.extend(decile_tables(result))
    return tables


def decile_cell(
    table: dict[str, Any], row: int, numerator: str, denominator: tuple[str, ...]
) -> str:
    """``12.5% of 40`` (the rate and the count it rests on), ``-`` when there is none."""
    columns = table["columns"]
    counts = table["counts"][row]
    total = sum(counts[columns.index(name)] for name in denominator)
    if total == 0:
        return "-"
    return f"{100.0 * counts[columns.index(numerator)] / total:.1f}% of {total}"


def decile_tables(result: TournamentResult) -> list[Table]:
    """The ``DECILE_TABLES`` of the game: deciles as rows, one column per agent."""
    tables = []
    for title, key, numerator, denominator in DECILE_TABLES.get(result.game, []):
        agents = [a for a in result.agents if key in a.behaviour]
        if not agents:
            continue
        table = Table(title=title, caption="d0: the weakest tenth; a cell: the rate and its count")
        table.add_column("decile")
        for a in agents:
            table.add_column(escape(f"{a.index} {a.label}"), justify="right")
        for row in range(10):
            cells = [decile_cell(a.behaviour[key], row, numerator, denominator) for a in agents]
            table.add_row(f"d{row}", *cells)
        tables.append(table)
    return tables


def round_robin_table(result: RoundRobinResult) -> Table:
    """The payoff matrix: the row agent's mean payoff against the column agent.

    Columns are headed by pool number (``#j``), so long or similar specs are never cut to the
    same text; the rows spell each agent out. A ``*`` marks a mean whose 95% CI excludes 0
    (``round_robin_intervals`` lists the intervals).
    """
    others = result.table_size - 1
    copies = "1 copy" if others == 1 else f"{others} copies"
    unit = result.matches[0].payoff_unit if result.matches else "payoff"
    table = Table(
        title=f"{result.game} round robin, tables of {result.table_size}: "
        "payoff of the row agent #i against the column agent #j",
        caption=f"cell (i, j) = mean {unit} of #i at a table with {copies} of #j; "
        "* = its 95% CI excludes 0; mean = over the row",
        box=box.SIMPLE_HEAD,  # no vertical rules and one space between columns: 6 agents fit
        collapse_padding=True,
        pad_edge=False,
    )
    names = [f"#{i} {label}" for i, label in enumerate(result.labels)]
    width = max((len(name) for name in names), default=5)
    table.add_column("agent", style="bold", no_wrap=True, min_width=width)
    for j in range(len(result.labels)):
        table.add_column(f"#{j}", justify="right", no_wrap=True)
    table.add_column("mean", justify="right", no_wrap=True)
    for i, name in enumerate(names):
        cells = [
            "—" if e is None else f"{e.mean:+.2f}{significance_mark(e) or ' '}"
            for e in result.matrix[i]
        ]
        mean = result.mean_vs_pool(i)
        table.add_row(escape(name), *cells, "-" if mean is None else f"{mean:+.2f}")
    return table


def round_robin_intervals(result: RoundRobinResult) -> Table:
    """One row per table played: the row agent's payoff with its 95% CI and sample count."""
    unit = result.matches[0].payoff_unit if result.matches else "payoff"
    table = Table(
        title="round robin tables: payoff of the row agent, 95% CI",
        box=box.SIMPLE_HEAD,
        collapse_padding=True,
        pad_edge=False,
    )
    table.add_column("agent", no_wrap=True)
    table.add_column("vs", no_wrap=True)
    table.add_column(f"{unit} ± 95% CI", justify="right", no_wrap=True)
    table.add_column("95% CI", justify="right", no_wrap=True)
    table.add_column("n", justify="right", no_wrap=True)
    for (i, j), match in zip(result.pairs, result.matches, strict=True):
        e = match.agents[0].payoff
        table.add_row(
            escape(f"#{i} {result.labels[i]}"),
            escape(f"#{j} {result.labels[j]}"),
            ci_text(e, 2),
            interval_text(e, 2),
            str(e.n),
        )
    return table


def fitting_console(renderables: Sequence[Any]) -> Console:
    """The console for a report: a terminal's own width; piped or redirected (where rich
    assumes 80 columns), as wide as the widest table, so no agent name is cut to "…"."""
    console = Console()
    if console.is_terminal:
        return console
    unbounded = console.options.update_width(100_000)
    widest = max((Measurement.get(console, unbounded, r).maximum for r in renderables), default=0)
    return Console(width=max(console.width, widest))


def print_tournament(result: TournamentResult, console: Console | None = None) -> None:
    tables = tournament_tables(result)
    console = console or fitting_console(tables)
    for table in tables:
        console.print(table)
    console.print(
        f"{result.decisions} decisions in {result.seconds:.1f} s "
        f"({result.decisions / max(result.seconds, 1e-9):,.0f}/s), {_ENGINES[result.engine]}"
    )


def print_round_robin(result: RoundRobinResult, console: Console | None = None) -> None:
    tables = [round_robin_table(result), round_robin_intervals(result)]
    console = console or fitting_console(tables)
    for table in tables:
        console.print(table)
    engine = _ENGINES[result.matches[0].engine] if result.matches else ""
    console.print(f"{len(result.matches)} tables in {result.seconds:.1f} s, {engine}")
