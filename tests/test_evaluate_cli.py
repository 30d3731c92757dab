"""evaluate.py as a user runs it: one-line errors, outputs (--json, --history, --plot)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from brag_env.evaluation.cli import build_parser
from brag_env.games import GAMES

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(ROOT / "evaluate.py"), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--game", "chess", "--agents", "random", "random"], "unknown game 'chess'"),
        (["--game", "brag", "--agents", "brag:wizard", "random"], "unknown brag style 'wizard'"),
        (["--game", "brag", "--agents", "put:greedy", "random"], "is a put agent"),
        (["--game", "brag", "--agents", "random"], "brag needs 2 to 8 agents"),
        (["--game", "put", "--agents", *["random"] * 5], "put needs 2 to 4 agents"),
        (["--game", "brag", "--agents", "random", "random", "--option", "ante"], "bad --option"),
        (["--game", "brag", "--agents", "random", "random", "--option", "ante=-1"], "ante"),
        (
            ["--game", "brag", "--agents", "random", "random", "--option", "wild_cards=jokers"],
            "wild_cards must be one of none, braggers, nines, aces",
        ),
        (
            ["--game", "brag", "--agents", "random", "random", "--option", "hands_per_session=x"],
            "hands_per_session must be an integer, got 'x'",
        ),
        pytest.param(
            ["--game", "brag", "--agents", "random", "random", "--matches", "5"],
            "use --hands",
            marks=pytest.mark.slow,
        ),
        pytest.param(  # loads torch: seconds
            ["--game", "put", "--agents", "random", "nowhere/model.zip"],
            "no such file",
            marks=pytest.mark.slow,
        ),
        pytest.param(
            ["--game", "brag"],
            "one of the arguments --agents --round-robin is required",
            marks=pytest.mark.slow,
        ),
        (["--game", "brag", "--agents", "random", "random", "--hands", "0"], "at least 1"),
        (["--game", "brag", "--agents", "random", "random", "--seed", "-1"], "--seed must be"),
        (["--game", "brag", "--agents", "random", "random", "--seed", "x"], "argument --seed"),
        (["--game", "brag", "--round-robin", "random", "random", "--table-size", "1"], "--table-s"),
        (["--game", "brag", "--agents", "brag:tips:see_at=1,see_at=0", "random"], "given twice"),
    ],
)
def test_bad_command_lines_fail_with_one_line(args, fragment):
    result = run(*args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("evaluate.py: error:")
    assert fragment in lines[0]


@pytest.mark.slow
def test_small_evaluation_writes_json_history_and_plots(tmp_path):
    out = tmp_path / "res.json"
    hist = tmp_path / "hands.jsonl"
    plots = tmp_path / "plots"
    args = ["--game", "brag", "--agents", "brag:tight", "random", "random", "--hands", "60"]
    args += ["--no-batched"]  # --history needs the scalar env: both runs on it
    result = run(
        *args, "--seed", "4", "--json", str(out), "--history", str(hist), "--plot", str(plots)
    )
    assert result.returncode == 0, result.stderr
    assert "brag:tight" in result.stdout and "bluff rate" in result.stdout
    data = json.loads(out.read_text())
    assert data["game"] == "brag" and data["specs"] == ["brag:tight", "random", "random"]
    assert data["agents"][0]["payoff"]["n"] == 60
    assert "ci_method" in data and "actions_by_decile" in data["agents"][0]["behaviour"]
    hands = [json.loads(line) for line in hist.read_text().splitlines()]
    assert len(hands) == 60 and all("deltas" in h and "seat_agents" in h for h in hands)
    assert (plots / "payoff_by_seat.png").stat().st_size > 0
    assert (plots / "actions_by_decile.png").stat().st_size > 0

    again = tmp_path / "again.json"
    rerun = run(*args, "--seed", "4", "--json", str(again))
    assert rerun.returncode == 0
    assert out.read_bytes() == again.read_bytes()  # no timings: the same seed, the same bytes


@pytest.mark.slow
def test_round_robin_command_writes_the_matrix(tmp_path):
    out = tmp_path / "rr.json"
    plots = tmp_path / "plots"
    args = ["--game", "put", "--round-robin", "random", "put:greedy", "--matches", "6"]
    result = run(*args, "--json", str(out), "--plot", str(plots))
    assert result.returncode == 0, result.stderr
    assert "round robin" in result.stdout and "#1 put:greedy" in result.stdout
    data = json.loads(out.read_text())
    assert data["pool"] == ["random", "put:greedy"] and data["matrix"][0][0] is None
    assert (plots / "payoff_matrix.png").exists() and (plots / "actions_by_decile.png").exists()
    again = tmp_path / "again.json"
    assert run(*args, "--json", str(again)).returncode == 0
    assert out.read_bytes() == again.read_bytes()


@pytest.mark.slow  # a subprocess: about 2 s
def test_b25_wild_cards_evaluate_on_the_scalar_engine(tmp_path):
    """B25: --option wild_cards plays (the batched engine refuses it, so the scalar one runs)
    and its histories name what a shown wild card stood for."""
    history = tmp_path / "h.jsonl"
    args = ["--game", "brag", "--agents", "brag:tight", "brag:caller", "--hands", "200"]
    result = run(
        *args,
        "--option",
        "num_players=2",
        "--option",
        "wild_cards=nines",
        "--history",
        str(history),
        "--no-progress",
    )
    assert result.returncode == 0, result.stderr
    assert "scalar engine" in result.stdout
    records = [json.loads(line) for line in history.read_text().splitlines()]
    assert {r["config"]["wild_cards"] for r in records} == {"nines"}
    assert any(r.get("stood_for") for r in records)


@pytest.mark.slow
def test_duplicate_sessions_print_a_one_line_warning():
    args = ["--game", "brag", "--agents", "random", "random", "--hands", "4", "--duplicate"]
    result = run(*args, "--option", "hands_per_session=2", "--no-progress")
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip().splitlines() == [
        "evaluate.py: warning: --duplicate with hands_per_session=2: only the first hand of each "
        "session is replayed exactly; later hands depend on play (B16 sitting out, B18 shuffles, "
        "B19 hand choices), so their deals differ between seatings"
    ]


@pytest.mark.parametrize(
    ("option", "value", "fragment"),
    [
        ("--json", "missing_dir/res.json", "the directory"),
        ("--json", ".", "is a directory"),
        ("--plot", "hands.jsonl/plots", "is not a directory"),
    ],
)
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_bad_output_paths_stop_before_the_run(tmp_path, option, value, fragment):
    """Nothing is played (the history file is never opened) when an output path is unusable."""
    (tmp_path / "hands.jsonl").write_text("keep\n")
    args = ["--game", "brag", "--agents", "random", "random", "--hands", "4"]
    result = run(*args, "--history", "new.jsonl", option, value, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.startswith(f"evaluate.py: error: {option} ") and fragment in result.stderr
    assert not (tmp_path / "new.jsonl").exists()


def test_round_robin_table_names_columns_by_number_and_rows_in_full():
    """Similar specs (tight/tips, bluffer/blind) stay apart in an 80-column terminal."""
    import io

    from rich.console import Console

    from brag_env.evaluation import RoundRobinResult, mean_ci
    from brag_env.evaluation.report import round_robin_table

    labels = ["random", "brag:tight", "brag:tips", "brag:bluffer", "brag:blind", "m[v2]/model.zip"]
    k = len(labels)
    matrix = [[None if i == j else mean_ci([i - j, i - j + 1]) for j in range(k)] for i in range(k)]
    result = RoundRobinResult("brag", labels, labels, 2, matrix, [], 0.0)
    out = io.StringIO()
    Console(file=out, width=80).print(round_robin_table(result))
    text = out.getvalue()
    assert "…" not in text
    for i, label in enumerate(labels):
        assert f"#{i} {label} " in text  # escaped: "[v2]" is not rich markup
    assert "+1.50*" in text and "-0.50 " in text  # * = the CI excludes 0


@pytest.mark.slow
def test_decile_charts_show_how_many_decisions_each_bar_holds():
    from brag_env.evaluation import evaluate
    from brag_env.evaluation.plots import SPARSE, _decile_chart, _pyplot

    result = evaluate("brag", ["brag:tight", "random"], 40, seed=1)
    plt = _pyplot()
    for game, table in (("brag", result.agents[0].behaviour["actions_by_decile"]),):
        fig = _decile_chart(plt, game, [("tight", table)])
        ax = fig.axes[0]
        totals = [sum(row) for row in table["counts"]]
        assert [t.get_text() for t in ax.texts] == [str(n) for n in totals]
        first_layer = ax.containers[0].patches
        assert [bar.get_alpha() == 0.3 for bar in first_layer] == [n < SPARSE for n in totals]
        plt.close(fig)


@pytest.mark.parametrize(
    ("values", "shown"),
    [
        ([127 / 3, 61 / 3, 112 / 3], [42.4, 20.3, 37.3]),  # 3-player Put, seed 0: not 99.9
        ([62.0, 38.0], [62.0, 38.0]),
        ([63.65, 36.35], [63.6, 36.4]),  # as formatting rounds them: 63.65 is 63.6499...
        ([12.5, 87.5], [12.5, 87.5]),  # exact values stay as they are
        ([50.04, 49.96], [50.0, 50.0]),
    ],
)
def test_shares_rounded_add_up_to_the_rounded_total(values, shown):
    from brag_env.evaluation.report import shares_rounded

    assert shares_rounded(values, 1) == pytest.approx(shown)
    assert round(sum(shares_rounded(values, 1)), 6) == round(sum(values), 1)


@pytest.mark.slow  # 60 three-player matches on the scalar engine: about 2 s
def test_three_player_put_match_wins_add_up_to_100_percent():
    """One winner per match: the rounded win rates of the table sum to 100.0%, not 99.9%."""
    import io
    import re

    from rich.console import Console

    from brag_env.evaluation import evaluate
    from brag_env.evaluation.report import tournament_tables

    agents = ["put:greedy", "random", "put:caller"]
    result = evaluate("put", agents, 60, seed=3, options={"num_players": 3})  # 38.3 8.3 53.3
    out = io.StringIO()
    Console(file=out, width=120).print(tournament_tables(result)[0])
    rates = [float(x) for x in re.findall(r"(\d+\.\d)% ±", out.getvalue())]
    assert len(rates) == 3 and round(sum(rates), 6) == 100.0, out.getvalue()


def test_piped_reports_keep_long_agent_names_whole(capsys):
    """Out of a terminal rich assumes 80 columns; the report widens to its widest table."""
    from brag_env.evaluation import evaluate
    from brag_env.evaluation.report import print_tournament

    agents = ["put:bluffer:put_at=0.875,see_at=0.375,bluff=0.125", "put:caller:put_at=0.625"]
    print_tournament(evaluate("put", agents, 2, seed=0))
    out = capsys.readouterr().out
    assert "…" not in out
    for label in agents:
        assert f"│ {label} " in out
    assert max(len(line) for line in out.splitlines()) > 80


def test_the_count_and_table_size_help_come_from_the_game_table():
    # Each game's count flag says what it counts and its default; --table-size names every
    # game's default size (Seven-card Brag's was missing when the help was written by hand).
    helps = {action.dest: action.help for action in build_parser()._actions}
    for spec in GAMES.values():
        said = f"{spec.title}: number of {spec.samples} (default {spec.default_count})"
        assert said in helps[spec.count_flag]
        assert f"{spec.name} {spec.default_num_players}" in helps["table_size"]
