"""Every command and Python example of the README and of docs/*.md works as written, from a
fresh copy of the repository (what a new user has after cloning).

Fenced blocks marked ``sh`` hold commands, one per line (``#`` starts a comment); blocks marked
``python`` hold examples; ``text`` blocks are neither. Each page runs in its own fresh copy, its
commands in order; in the slow pass each block does (so that they spread over pytest-xdist's
workers), but a block that reads a run directory an earlier block writes runs after it, in its
copy. The quick tests run the play/replay commands, the benchmarks on a tiny budget
and the examples, and parse the evaluate.py and train.py commands (their options, agent specs and
configs). The slow tests run evaluate.py and train.py as well, in new processes, with a small
budget: fewer hands or matches, a few hundred training steps. A model file a command needs is
made first by the train.py command that writes it, with the same small budget. A Python example
whose first line is a ``# slow`` comment runs only with the slow tests.
"""

from __future__ import annotations

import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LANGUAGES = {"sh", "python", "text", "yaml"}
#: ``python -m`` commands cheap enough to run for real in the slow pass.
RUN_IN_SLOW_PASS = {"brag_env.training.curves"}
FENCE = re.compile(r"^```(\S*)\s*$")

# A few hundred steps instead of hundreds of thousands (appended: the last --set of a key wins).
TINY_TRAINING = [
    *("--set", "total_timesteps=256", "--set", "n_envs=2", "--set", "ppo.n_steps=128"),
    *("--set", "ppo.batch_size=64", "--set", "ppo.n_epochs=1", "--set", "ppo.net_arch=[16,16]"),
    *("--set", "checkpoint_every=256", "--set", "pool.snapshot_every=256"),
    *("--set", "eval.every=0", "--set", "eval.episodes=4", "--set", "eval.final_episodes=4"),
    *("--progress", "off"),
]
SMALL_EVALUATION = {"--hands": "48", "--matches": "12"}


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    language: str
    text: str

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    found, language, start, lines = [], None, 0, []
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        fence = FENCE.match(line)
        if fence and language is None:
            language, start, lines = fence.group(1), number, []
        elif fence:
            found.append(Block(page, start, language, "\n".join(lines) + "\n"))
            language = None
        elif language is not None:
            lines.append(line)
    assert language is None, f"{page.name}: a code block opened at line {start} is not closed"
    return found


def commands(page: Path) -> list[tuple[str, list[str]]]:
    found = []
    for block in blocks(page):
        if block.language != "sh":
            continue
        for offset, line in enumerate(block.text.splitlines(), 1):
            words = shlex.split(line, comments=True)
            if words:
                found.append((f"{block.where}+{offset}", words))
    return found


def fresh_copy(destination: Path) -> Path:
    """The repository's files as a clone has them: tracked files plus new ones not ignored."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    for name in listed:
        source = ROOT / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination


# --------------------------------------------------------------------------- what may appear
def test_every_code_block_is_marked_with_its_kind():
    for page in PAGES:
        for block in blocks(page):
            assert block.language in LANGUAGES, f"{block.where}: mark the block {LANGUAGES}"


def test_readme_install_and_test_commands_are_the_ones_ci_runs():
    ci = {}
    for heading in ("Install", "Test"):
        section = (ROOT / "README.md").read_text(encoding="utf-8").split(f"\n## {heading}\n")[1]
        ci[heading] = re.search(r"```\S*\n(.*?)\n", section).group(1)
    assert ci["Install"] == 'pip install -c constraints.txt -e ".[train,test,bench,web,docs]"'
    assert ci["Test"] == "python -m pytest -n auto --dist worksteal"


def test_every_page_is_linked_from_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in PAGES[1:]:
        assert f"(docs/{page.name})" in readme, page.name


def test_relative_links_lead_to_files_and_headings_that_exist():
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if target.startswith(("http://", "https://")):
                continue
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            assert linked.exists(), f"{page.name}: {target}"
            if anchor and linked.suffix == ".md":
                headings = {
                    re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
                    for h in re.findall(r"^#+ (.*)$", linked.read_text(encoding="utf-8"), re.M)
                }
                assert anchor in headings, f"{page.name}: {target}"


# --------------------------------------------------------------------------- running them
def _play_or_replay(module: str, argv: list[str]) -> None:
    from brag_env.play import main as play_main
    from brag_env.replay import main as replay_main

    main = {"brag_env.play": play_main, "brag_env.replay": replay_main}[module]
    out = io.StringIO()
    # Always the first choice, Enter between hands: a session runs to its end.
    code = main(argv, stdin=io.StringIO("1\n" * 400), stdout=out)
    assert code == 0, out.getvalue()[-2000:]


def _bench(script: str, argv: list[str]) -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"docs_{Path(script).stem}", ROOT / script)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    budget = ["--games", "2"]
    if script.endswith("throughput.py"):
        budget += ["--reps", "1", "--put-matches", "1"]
    assert module.main(argv + budget) == 0


def _parse_evaluate(argv: list[str]) -> None:
    sys.path.insert(0, str(ROOT))
    import evaluate
    from agents.registry import parse_spec

    args = evaluate.build_parser().parse_args(argv)
    evaluate.parse_options(args.option)
    for spec in args.agents or args.round_robin:
        if not spec.endswith(".zip"):
            parse_spec(spec, args.game)


def _parse_train(argv: list[str]) -> list[str]:
    """Check a train.py command line; returns the tiny budget to run it with."""
    sys.path.insert(0, str(ROOT))
    import train
    from brag_env.training.config import load_config

    args = train.parse_args(argv)
    overrides = list(args.overrides) + ([f"seed={args.seed}"] if args.seed is not None else [])
    cfg = load_config(args.config or train.DEFAULT_CONFIG, overrides)
    # A best-response run (br.target) takes no snapshots of the learner: it refuses the override;
    # a run that starts from a model (br.init, self-play too) keeps that model's network.
    dropped = (["pool.snapshot_every=256"] if cfg.br.target is not None else []) + (
        ["ppo.net_arch=[16,16]"] if cfg.br.init else []
    )
    if not dropped:
        return TINY_TRAINING
    tiny = list(TINY_TRAINING)
    for value in dropped:
        i = tiny.index(value)
        del tiny[i - 1 : i + 1]
    return tiny


def _subprocess(copy: Path, argv: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(copy)}
    result = subprocess.run(
        [sys.executable, *argv], cwd=copy, env=env, capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, f"{argv}:\n{result.stderr[-3000:]}"


def _small_evaluation(argv: list[str]) -> list[str]:
    out = list(argv)
    for i, word in enumerate(out[:-1]):
        if word in SMALL_EVALUATION:
            out[i + 1] = SMALL_EVALUATION[word]
    return out


def _models_first(copy: Path, argv: list[str]) -> None:
    """Train (tiny) every ``runs/<name>/model.zip`` an evaluate.py command names and lacks."""
    for word in argv:
        match = re.fullmatch(r"runs/([\w-]+)/model\.zip(:.*)?", word)
        if match and not (copy / "runs" / match.group(1) / "model.zip").exists():
            config = f"configs/{match.group(1)}.yaml"
            _subprocess(copy, ["train.py", "--config", config, *TINY_TRAINING])


def run_command(copy: Path, words: list[str], slow: bool) -> str:
    """Run (or, in the quick pass, check) one documented command; returns what was done."""
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=\S*", words[0]):
        words = words[1:]  # an environment setting (OPENBLAS_NUM_THREADS=1): speed only
    if words[:2] == ["pip", "install"]:
        assert "-c" in words and "constraints.txt" in words, "pip installs keep the constraints"
        return "checked"  # CI runs the README's install command
    if words[:3] == ["python", "-m", "pytest"] or words[:2] == ["ruff", "check"]:
        return "checked"  # the suite itself (CI), and tests/test_lint.py
    if words[:3] == ["python", "-m", "mkdocs"]:
        return "checked"  # tests/test_docs_site.py builds the site (serve would not return)
    if words[:2] == ["python", "-m"] and words[2] in ("brag_env.play", "brag_env.replay"):
        _play_or_replay(words[2], words[3:])
        return "ran"
    if words[:2] == ["python", "-m"] and words[2].startswith("brag_env."):
        # Other package commands: their command line must parse (--help); the learning-curve
        # plot, cheap once the page's training runs exist, runs for real in the slow pass.
        if slow and words[2] in RUN_IN_SLOW_PASS:
            _subprocess(copy, words[1:])
            return "ran"
        _subprocess(copy, [*words[1:3], "--help"])
        return "parsed (--help)"
    if words[0] == "python" and words[1].startswith("bench/"):
        _bench(words[1], words[2:])
        return "ran with a tiny budget"
    if words[:2] == ["python", "evaluate.py"]:
        _parse_evaluate(words[2:])
        if slow:
            _models_first(copy, words[2:])
            _subprocess(copy, _small_evaluation(words[1:]))
            return "ran with fewer hands"
        return "parsed"
    if words[:2] == ["python", "train.py"]:
        tiny = _parse_train(words[2:])
        if slow:
            _subprocess(copy, [*words[1:], *tiny])
            return "ran with a few hundred steps"
        return "parsed"
    raise AssertionError(f"no way to run {shlex.join(words)!r}: teach tests/test_docs_commands.py")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_commands_start_as_written_in_a_fresh_copy(page, tmp_path, monkeypatch):
    copy = fresh_copy(tmp_path / "clone")
    monkeypatch.chdir(copy)
    for where, words in commands(page):
        try:
            run_command(copy, words, slow=False)
        except SystemExit as stop:  # argparse refused the command line
            raise AssertionError(f"{where}: {shlex.join(words)}: exit {stop.code}") from None


def _run_dirs(words: list[str]) -> tuple[set[str], set[str]]:
    """The ``runs/NAME`` directories a command writes and reads (train.py without ``--out``
    writes ``runs/<config name>``; ``--resume`` reads what it writes)."""
    writes, reads = set(), set()
    for i, word in enumerate(words):
        if "runs/" not in word:
            continue
        path = word.rpartition("=")[2]  # a value, as in --set br.init=runs/NAME/model.zip
        name = "/".join(Path(path[path.index("runs/") :]).parts[:2])
        (writes if i and words[i - 1] in ("--out", "-o") else reads).add(name)
    if words[:2] == ["python", "train.py"] and not writes:
        config = words[words.index("--config") + 1] if "--config" in words else "put_ppo.yaml"
        writes.add(f"runs/{Path(config).stem}")
    if "--resume" in words:
        reads |= writes
    return writes, reads


def command_groups(page: Path) -> list[list[tuple[str, list[str]]]]:
    """A page's commands, a group per code block, with a block that reads a run directory an
    earlier group writes merged into that group (its commands after the earlier ones)."""
    groups: list[tuple[list, set[str]]] = []  # (commands, run directories written)
    by_block: dict[str, list[tuple[str, list[str]]]] = {}
    for where, words in commands(page):
        by_block.setdefault(where.rpartition("+")[0], []).append((where, words))
    for block in by_block.values():
        writes, reads = set(), set()
        for _, words in block:
            w, r = _run_dirs(words)
            writes |= w
            reads |= r - writes
        earlier = [g for g in groups if g[1] & reads]
        merged = (
            [c for g in earlier for c in g[0]] + block,
            writes.union(*(g[1] for g in earlier)),
        )
        groups = [g for g in groups if g not in earlier] + [merged]
    return [g[0] for g in groups]


def _long_groups() -> list:
    found = []
    for page in PAGES:
        for group in command_groups(page):
            if any(w[:2] in (["python", "evaluate.py"], ["python", "train.py"]) for _, w in group):
                found.append(pytest.param(group, id=group[0][0].rpartition("+")[0]))
    return found


def test_command_groups_keep_a_run_with_the_commands_that_read_it():
    page = ROOT / "docs" / "training.md"
    for group in command_groups(page):
        written: set[str] = set()
        for _, words in group:
            w, r = _run_dirs(words)
            for name in r - w:
                # read from an earlier command of its group, or (a model) made by _models_first
                assert name in written or words[1] == "evaluate.py", (name, group[0][0])
            written |= w
    curves = [g for g in command_groups(page) if any("smoke_b" in " ".join(w) for _, w in g)]
    assert len(curves) == 1 and any("runs/smoke_a" in w for _, w in curves[0])


@pytest.mark.slow
@pytest.mark.parametrize("group", _long_groups())
def test_long_commands_run_with_a_small_budget_in_a_fresh_copy(group, tmp_path, monkeypatch):
    copy = fresh_copy(tmp_path / "clone")
    monkeypatch.chdir(copy)
    for _, words in group:
        run_command(copy, words, slow=True)


def _examples() -> list:
    found = []
    for page in PAGES:
        for block in blocks(page):
            if block.language == "python":
                # an example that takes seconds says so on its first line, and runs with the
                # slow tests
                slow = [pytest.mark.slow] if block.text.startswith("# slow") else []
                found.append(pytest.param(block, id=block.where, marks=slow))
    return found


@pytest.mark.parametrize("block", _examples())
def test_python_examples_run(block, tmp_path, monkeypatch):
    monkeypatch.chdir(fresh_copy(tmp_path / "clone"))
    exec(compile(block.text, block.where, "exec"), {"__name__": "__docs__"})
