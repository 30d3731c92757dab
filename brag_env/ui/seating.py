"""Who sits where at a human's table, the agents in the other seats, and saving hand histories."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from rich.text import Text

from agents.base import Agent, TableInfo
from agents.registry import AgentSpec, agent_class, make_agent, parse_spec
from agents.tables import table_info_from_env
from brag_env.evaluation.schedule import agent_seeds
from brag_env.games import game_spec
from brag_env.io import AtomicFile

HUMAN_LABEL = "human"


@dataclass(frozen=True)
class Seating:
    """Seat ``human`` is the person; ``specs[s]`` is the agent of every other seat s."""

    game: str
    human: int
    specs: tuple[AgentSpec | None, ...]

    @property
    def num_players(self) -> int:
        return len(self.specs)

    @property
    def labels(self) -> list[str]:
        """Per seat: ``"human"`` or the agent's spec label (``seat_agents`` in histories)."""
        return [HUMAN_LABEL if s is None else s.label for s in self.specs]

    @property
    def names(self) -> list[str]:
        """Short display names: ``"You"``, ``"seat 1"``."""
        return ["You" if spec is None else f"seat {seat}" for seat, spec in enumerate(self.specs)]

    @property
    def players(self) -> list[str]:
        """Who plays each seat, for the table: ``"you"`` or the agent's spec label."""
        return ["you" if spec is None else spec.label for spec in self.specs]

    def who_is_who(self) -> str:
        """``"You: seat 0 · seat 1: brag:tight · ..."``; with Put's four seats (P8) the
        partner opposite the human is marked."""
        partners = game_spec(self.game).partners and self.num_players == 4
        partner = (self.human + 2) % 4 if partners else -1
        parts = []
        for seat, spec in enumerate(self.specs):
            if spec is None:
                parts.append(f"You: seat {seat}")
            else:
                mark = " (your partner)" if seat == partner else ""
                parts.append(f"seat {seat}: {spec.label}{mark}")
        return " · ".join(parts)


def seat_players(game: str, opponents: list[str], human: int) -> Seating:
    """The human at seat ``human``, the opponents' specs (validated) in the other seats in order."""
    if not opponents:
        raise ValueError("name at least one opponent (an agent spec such as 'random')")
    n = len(opponents) + 1
    if not 0 <= human < n:
        raise ValueError(f"--seat must be a seat number 0..{n - 1} for {n} players, got {human}")
    parsed = [parse_spec(text, game) for text in opponents]
    specs: list[AgentSpec | None] = list(parsed)
    specs.insert(human, None)
    return Seating(game, human, tuple(specs))


def reads_a_file(spec: AgentSpec) -> bool:
    """Whether building the agent loads a file (a trained model, ``put:equilibrium``'s table):
    seconds, not microseconds. The agent's class says so (``Agent.reads_file``), not the spec."""
    return agent_class(spec).reads_file


def build_agents(
    seating: Seating, table: TableInfo, seed: int, console: Console | None = None
) -> list[Agent | None]:
    """One seeded agent per non-human seat (``None`` for the human). With ``console``, a line
    before each agent that loads a file, so that a person does not face a blank screen."""
    rngs = agent_seeds(seed, seating.num_players)
    agents: list[Agent | None] = []
    announced: set[str] = set()
    for seat, spec in enumerate(seating.specs):
        if spec is None:
            agents.append(None)
            continue
        if console is not None and reads_a_file(spec) and spec.label not in announced:
            announced.add(spec.label)
            console.print(Text(f"loading {spec.label}…", style="dim"))
        agents.append(make_agent(spec, table, rngs[seat]))
    return agents


def open_table(
    seating: Seating,
    env_module: Any,
    options: dict[str, Any],
    seed: int,
    console: Console | None = None,
) -> tuple[Any, list[Agent | None]]:
    """The raw env of ``env_module`` (``brag_v1``/``put_v1``) with the rule ``options`` at
    ``seating``'s number of seats, and the seeded agents of the other seats (``console``: where
    to say that an agent is loading a file)."""
    n = seating.num_players
    wanted = options.get("num_players")
    if wanted is not None and wanted != n:
        raise ValueError(
            f"--option num_players={wanted} but the table has {n} seats (you and {n - 1} opponents)"
        )
    env = env_module.raw_env(**{**options, "num_players": n})
    return env, build_agents(seating, table_info_from_env(env), seed, console)


def pick_seed(seed: int | None) -> int:
    """The given seed, or a fresh one the user can note to play the same table again."""
    if seed is not None:
        if seed < 0:
            raise ValueError(f"--seed must be >= 0, got {seed}")
        return seed
    return secrets.randbelow(2**31 - 1)


def open_history(path: str, force: bool = False) -> AtomicFile:
    """A new history file, written atomically (``brag_env.io.AtomicFile``: the hands go to a
    temporary file beside it, renamed into place when the session closes, and not at all if
    no hand finished). An existing file is refused (``FileError``, a ``ValueError``) unless
    ``force``; an existing file is replaced only once the new one is complete."""
    return AtomicFile(path, "--history", force=force, keep_empty=False)


class HistoryWriter:
    """Writes each finished hand as one JSON line, in ``evaluate.py --history``'s format.

    The evaluator's keys (``game``, ``episode``, ``deal_group``, ``reset_seed``,
    ``seat_agents``) come first, then ``config`` (the full rules config, so ``brag_env.replay``
    rebuilds each decision under the same rules), then the engine's hand history.
    """

    def __init__(self, seating: Seating, config: dict[str, Any]) -> None:
        self.stream: AtomicFile | None = None  # set by the caller once the table is valid
        self.seating = seating
        self.config = config

    def __enter__(self) -> HistoryWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        # The finished hands are kept however the session ended (q, Ctrl-C, an error); a
        # failed write has already discarded the file (commit is then a no-op).
        if self.stream is not None:
            self.stream.commit()

    def write(self, record: dict[str, Any], episode: int, reset_seed: int) -> None:
        if self.stream is None:
            return
        line = {
            "game": self.seating.game,
            "episode": episode,
            "deal_group": episode,
            "reset_seed": reset_seed,
            "seat_agents": self.seating.labels,
            "config": self.config,
            **record,
        }
        self.stream.write(json.dumps(line, separators=(",", ":")) + "\n")
        self.stream.flush()  # a session left with q or Ctrl-C keeps every finished hand
