"""The tournament loop over any PettingZoo AEC env, and the round robin built on it.

A *game adapter* knows one game: how to build its env for ``n`` agents, the public ``TableInfo``
its agents get, and a *collector* that turns what happens into payoff samples and behaviour
statistics. The collector is the omniscient evaluator: it may read the engine behind
``env.unwrapped`` (true hands, results), which the agents never can.

Samples are recorded per metric, per agent, with the unit and seat they came from. The unit is
the episode (one hand, a session of hands, a match of hands) or, in duplicate mode, the deal
group; samples within a unit are not independent, so estimates are ratio estimates over units
with a delta-method interval (``stats.ratio_ci``).
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from numbers import Integral
from typing import IO, Any

import numpy as np

from agents.base import Agent, TableInfo
from agents.registry import GAMES, AgentSpec, make_agent, parse_spec
from brag_env.evaluation.schedule import Episode, agent_seeds, make_schedule
from brag_env.evaluation.stats import Estimate, ratio_ci


class DuplicateWarning(UserWarning):
    """Duplicate mode cannot replay every deal exactly at this table (the message says why)."""


class _Samples:
    """One agent's samples of one metric as three columns (group, seat, value) kept in numpy
    chunks: as Python lists of ints and floats they took about four times the memory."""

    _PENDING = 4096  # samples ``add`` gathers before they become a chunk

    def __init__(self) -> None:
        self._chunks: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self._pending: tuple[list[int], list[int], list[float]] = ([], [], [])

    def add(self, group: int, seat: int, value: float) -> None:
        groups, seats, values = self._pending
        groups.append(group)
        seats.append(seat)
        values.append(value)
        if len(values) >= self._PENDING:
            self._flush()

    def extend(self, groups, seats, values) -> None:
        self._flush()  # the samples stay in the order they came
        self._chunks.append(_columns(groups, seats, values))

    def _flush(self) -> None:
        if self._pending[2]:
            self._chunks.append(_columns(*self._pending))
            self._pending = ([], [], [])

    def columns(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every sample so far, in order: groups, seats (int64), values (float64)."""
        self._flush()
        if not self._chunks:
            return _columns([], [], [])
        if len(self._chunks) > 1:  # joined once, kept joined
            groups, seats, values = zip(*self._chunks, strict=True)
            self._chunks = [(np.concatenate(groups), np.concatenate(seats), np.concatenate(values))]
        for column in self._chunks[0]:
            column.flags.writeable = False  # the store's own arrays, handed out
        return self._chunks[0]


def _columns(groups, seats, values) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return (
        np.array(groups, dtype=np.int64),
        np.array(seats, dtype=np.int64),
        np.array(values, dtype=np.float64),
    )


class MetricStore:
    """Samples per metric and agent, each tagged with its deal group and seat."""

    def __init__(self, num_agents: int) -> None:
        self.num_agents = num_agents
        self._data: dict[str, list[_Samples]] = {}

    def _samples(self, metric: str, agent: int) -> _Samples:
        rows = self._data.get(metric)
        if rows is None:
            rows = self._data[metric] = [_Samples() for _ in range(self.num_agents)]
        return rows[agent]

    def add(self, metric: str, agent: int, group: int, seat: int, value: float) -> None:
        """One sample of ``metric`` for ``agent``; ``group`` is its unit (episode or deal group)."""
        self._samples(metric, agent).add(group, seat, value)

    def extend(
        self, metric: str, agent: int, groups: np.ndarray, seats: np.ndarray, values: np.ndarray
    ) -> None:
        """Many samples of ``metric`` for ``agent`` at once (``add`` for each, in order)."""
        self._samples(metric, agent).extend(groups, seats, values)

    @property
    def metrics(self) -> list[str]:
        return list(self._data)

    def values(self, metric: str, agent: int) -> np.ndarray:
        if metric not in self._data:
            return np.zeros(0)
        return self._data[metric][agent].columns()[2]

    def estimate(self, metric: str, agent: int) -> Estimate:
        """Mean and 95% CI over the units (episodes or deal groups): ``stats.ratio_ci``."""
        if metric not in self._data:
            return ratio_ci([], [])
        groups, _, values = self._data[metric][agent].columns()
        sums, counts = unit_totals(groups, values)
        return ratio_ci(sums, counts)

    def seat_means(self, metric: str, agent: int, num_seats: int) -> list[float | None]:
        if metric not in self._data:
            return [None] * num_seats
        _, s, v = self._data[metric][agent].columns()
        counts = np.bincount(s, minlength=num_seats)
        sums = np.bincount(s, weights=v, minlength=num_seats)
        return [float(sums[k] / counts[k]) if counts[k] else None for k in range(num_seats)]

    def seat_estimates(self, metric: str, agent: int, num_seats: int) -> list[Estimate]:
        """Per seat, the mean and 95% CI over the units that put the agent in that seat."""
        if metric not in self._data:
            return [ratio_ci([], []) for _ in range(num_seats)]
        g, s, v = self._data[metric][agent].columns()
        return [ratio_ci(*unit_totals(g[s == k], v[s == k])) for k in range(num_seats)]


def unit_totals(groups: Sequence[int], values: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """Per unit (group id, in sorted order): the sum of its values and their number."""
    g = np.asarray(groups, dtype=np.int64)
    v = np.asarray(values, dtype=np.float64)
    if g.size == 0:
        return v, v
    _, inverse = np.unique(g, return_inverse=True)
    return np.bincount(inverse, weights=v), np.bincount(inverse).astype(np.float64)


class Collector:
    """Base collector: one ``payoff`` sample per agent per episode (the sum of its rewards).

    Game collectors override the hooks; the runner calls them in this order per episode:
    ``start_episode``, then per decision ``before_action`` / ``after_action``, ``end_episode``.
    """

    payoff_metric = "payoff"
    #: The payoff's unit when the table decides it (e.g. Brag without antes), else None.
    payoff_unit: str | None = None

    def __init__(self, num_agents: int) -> None:
        self.num_agents = num_agents
        self.metrics = MetricStore(num_agents)

    def start_episode(self, env: Any, episode: Episode) -> None:
        """Called after ``env.reset``."""

    def before_action(self, env: Any, seat: int, agent: int, action: int) -> None:
        """Called before ``env.step(action)``, with the engine still in the decision's state."""

    def after_action(self, env: Any, seat: int, agent: int, action: int) -> None:
        """Called right after ``env.step(action)``."""

    def end_episode(self, env: Any, episode: Episode, seat_rewards: list[float]) -> None:
        for seat, reward in enumerate(seat_rewards):
            self.metrics.add("payoff", episode.seats[seat], episode.group, seat, reward)

    def behaviour(self, agent: int) -> dict[str, Any]:
        """Behaviour statistics of one agent (none for a generic game)."""
        return {}

    def histories(self, env: Any) -> list[dict[str, Any]]:
        """JSON-serialisable histories of the episode just finished (none for a generic game)."""
        return []


class GameAdapter:
    """One game as the evaluator sees it. Subclasses set the class attributes and override."""

    name = "generic"
    #: What one payoff sample is ("episode", "hand", "match") and what its unit is.
    sample_unit = "episode"
    payoff_unit = "reward"
    default_num_players: int | None = None
    allowed_num_players: tuple[int, ...] = ()

    def num_players(self, num_agents: int, options: dict[str, Any]) -> int:
        """Check the agent count against the table; ``ValueError`` in one line if they differ."""
        allowed = self.allowed_num_players
        if allowed and num_agents not in allowed:
            lo, hi = min(allowed), max(allowed)
            span = f"{lo} to {hi}" if len(allowed) == hi - lo + 1 else ", ".join(map(str, allowed))
            raise ValueError(
                f"{self.name} needs {span} agents (one spec per seat), got {num_agents}"
            )
        wanted = options.get("num_players")
        if wanted is not None and (isinstance(wanted, bool) or not isinstance(wanted, Integral)):
            raise ValueError(f"the option num_players must be a whole number, got {wanted!r}")
        if wanted is not None and wanted != num_agents:
            raise ValueError(
                f"{num_agents} agents given but the option num_players={wanted}; "
                "give one agent spec per seat"
            )
        return num_agents

    def make_env(self, num_agents: int, options: dict[str, Any]) -> Any:
        raise NotImplementedError

    def table_info(self, env: Any) -> TableInfo:
        first = env.possible_agents[0]
        return TableInfo(
            game=self.name,
            num_players=len(env.possible_agents),
            action_names=tuple(f"action_{i}" for i in range(env.action_space(first).n)),
            observation_shape=tuple(env.observation_space(first)["observation"].shape),
        )

    def collector(self, env: Any, num_agents: int) -> Collector:
        return Collector(num_agents)

    def duplicate_caveat(self, env: Any) -> str | None:
        """Why duplicate deals are not exact replays at this table, or None if they are."""
        return None


class FactoryAdapter(GameAdapter):
    """Any AEC env with dict observations {"observation", "action_mask"}, from a factory."""

    def __init__(self, name: str, factory: Callable[..., Any]) -> None:
        self.name = name
        self._factory = factory

    def make_env(self, num_agents: int, options: dict[str, Any]) -> Any:
        env = self._factory(**options)
        if len(env.possible_agents) != num_agents:
            raise ValueError(
                f"{self.name} seats {len(env.possible_agents)} agents, got {num_agents}"
            )
        return env


@dataclass
class AgentResult:
    """One agent's numbers from a tournament."""

    index: int
    spec: str
    label: str
    payoff: Estimate
    seat_payoff: list[float | None]
    metrics: dict[str, Estimate] = field(default_factory=dict)
    seat_estimates: list[Estimate] = field(default_factory=list)  # seat_payoff with CI and n
    behaviour: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "spec": self.spec,
            "label": self.label,
            "payoff": self.payoff.to_dict(),
            "seat_payoff": self.seat_payoff,
            "metrics": {k: v.to_dict() for k, v in self.metrics.items()},
            "behaviour": self.behaviour,
        }


@dataclass
class TournamentResult:
    """Everything one evaluation measured (``to_dict`` is what ``--json`` writes).

    ``to_dict`` leaves out ``seconds`` (wall time), so the same seed writes the same bytes.
    """

    game: str
    specs: list[str]
    options: dict[str, Any]
    seed: int
    duplicate: bool
    episodes: int
    groups: int
    sample_unit: str
    payoff_unit: str
    agents: list[AgentResult]
    seconds: float
    decisions: int
    samples: int  # payoff samples per agent: hands (Brag) or matches (Put) played
    #: "scalar" (the AEC env, one table) or "batched" (all tables as arrays, no histories)
    engine: str = "scalar"

    @property
    def unit(self) -> str:
        """The independent unit of the confidence intervals."""
        if self.duplicate:
            return "deal group"
        if self.sample_unit == "hand" and self.options.get("hands_per_session", 1) > 1:
            return "session"
        if self.sample_unit == "deal" and self.samples > self.episodes:  # brag7's sessions
            return "session"
        return self.sample_unit

    @property
    def ci_method(self) -> str:
        units = "matches" if self.unit == "match" else f"{self.unit}s"
        return (
            f"normal approximation over {self.groups} independent {units}; a unit of several "
            "samples gives a ratio estimate with delta-method variance (see docs/evaluation.md in "
            "the repository)"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "specs": self.specs,
            "options": self.options,
            "seed": self.seed,
            "duplicate": self.duplicate,
            "episodes": self.episodes,
            "deal_groups": self.groups,
            "sample_unit": self.sample_unit,
            "payoff_unit": self.payoff_unit,
            "ci_method": self.ci_method,
            "samples_per_agent": self.samples,
            "decisions": self.decisions,
            "engine": self.engine,
            "agents": [a.to_dict() for a in self.agents],
        }


def _progress(total: int, unit: str, desc: str, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(
        total=total, unit=unit, desc=desc, disable=not enabled, leave=False, dynamic_ncols=True
    )


def run_tournament(
    adapter: GameAdapter,
    specs: Sequence[str | AgentSpec],
    episodes: int,
    seed: int = 0,
    duplicate: bool = False,
    options: dict[str, Any] | None = None,
    history: IO[str] | None = None,
    progress: bool = False,
    agents: Sequence[Agent] | None = None,
    history_fields: dict[str, Any] | None = None,
) -> TournamentResult:
    """Play ``episodes`` episodes (rounded up to whole seating designs, ``schedule``), measure.

    ``specs`` name one agent per seat. ``history``, if given, receives one JSON line per hand:
    the episode, deal group, reset seed, the agent in each seat, the rules config and the
    engine's hand history.
    ``agents`` may pass ready agents instead of building them from ``specs`` (same length).
    ``history_fields`` are added to every history line (the round robin's table number).
    """
    options = dict(options or {})
    parsed = [s if isinstance(s, AgentSpec) else parse_spec(s, _spec_game(adapter)) for s in specs]
    n = adapter.num_players(len(parsed), options)
    schedule = make_schedule(n, episodes, seed, duplicate)
    env = adapter.make_env(n, options)
    caveat = adapter.duplicate_caveat(env) if duplicate else None
    if caveat:
        warnings.warn(caveat, DuplicateWarning, stacklevel=2)
    table = adapter.table_info(env)
    if agents is None:
        rngs = agent_seeds(seed, n)
        agents = [make_agent(spec, table, rngs[i]) for i, spec in enumerate(parsed)]
    elif len(agents) != n:
        raise ValueError(f"got {len(agents)} agents for {n} specs")
    collector = adapter.collector(env, n)
    seat_of = {name: i for i, name in enumerate(env.possible_agents)}
    labels = [a.label for a in parsed]
    # The rules go into every history line, so a replay needs no --option (brag_env.replay).
    config = getattr(env.unwrapped, "config", None)
    rules = {"config": config.to_dict()} if hasattr(config, "to_dict") else {}

    started = time.perf_counter()
    decisions = 0
    bar = _progress(
        len(schedule),
        adapter.sample_unit if adapter.sample_unit != "hand" else "ep",
        adapter.name,
        progress,
    )
    try:
        for episode in schedule:
            env.reset(seed=episode.reset_seed)
            for agent in agents:
                agent.reset()
            collector.start_episode(env, episode)
            seat_rewards = [0.0] * n
            seats = episode.seats
            for name in env.agent_iter():
                _, reward, terminated, truncated, _ = env.last(observe=False)
                seat = seat_of[name]
                seat_rewards[seat] += reward
                if terminated or truncated:
                    env.step(None)
                    continue
                obs = env.observe(name)
                who = seats[seat]
                action = int(agents[who].act(obs["observation"], obs["action_mask"]))
                collector.before_action(env, seat, who, action)
                env.step(action)
                collector.after_action(env, seat, who, action)
                decisions += 1
            collector.end_episode(env, episode, seat_rewards)
            if history is not None:
                for record in collector.histories(env):
                    record = {
                        **(history_fields or {}),
                        "game": adapter.name,
                        "episode": episode.index,
                        "deal_group": episode.group,
                        "reset_seed": episode.reset_seed,
                        "seat_agents": [labels[a] for a in seats],
                        **rules,
                        **record,
                    }
                    history.write(json.dumps(record, separators=(",", ":")) + "\n")
            bar.update(1)
    finally:
        bar.close()
        env.close()
    seconds = time.perf_counter() - started
    return tournament_result(
        adapter, parsed, options, seed, duplicate, schedule, collector, seconds, decisions
    )


def tournament_result(
    adapter: GameAdapter,
    parsed: Sequence[AgentSpec],
    options: dict[str, Any],
    seed: int,
    duplicate: bool,
    schedule: Sequence[Episode],
    collector: Collector,
    seconds: float,
    decisions: int,
    engine: str = "scalar",
) -> TournamentResult:
    """The ``TournamentResult`` of a finished run from its collector's samples and counts
    (shared by the scalar loop above and the batched runs of ``brag_env.evaluation.batched``)."""
    n = len(parsed)
    metrics = collector.metrics
    results = []
    for i, spec in enumerate(parsed):
        extra = {m: metrics.estimate(m, i) for m in metrics.metrics if m != collector.payoff_metric}
        results.append(
            AgentResult(
                index=i,
                spec=spec.text,
                label=spec.label,
                payoff=metrics.estimate(collector.payoff_metric, i),
                seat_payoff=metrics.seat_means(collector.payoff_metric, i, n),
                seat_estimates=metrics.seat_estimates(collector.payoff_metric, i, n),
                metrics=extra,
                behaviour=collector.behaviour(i),
            )
        )
    return TournamentResult(
        game=adapter.name,
        specs=[s.text for s in parsed],
        options=options,
        seed=seed,
        duplicate=duplicate,
        episodes=len(schedule),
        groups=len({e.group for e in schedule}),
        sample_unit=adapter.sample_unit,
        payoff_unit=collector.payoff_unit or adapter.payoff_unit,
        agents=results,
        seconds=seconds,
        decisions=decisions,
        samples=int(metrics.values(collector.payoff_metric, 0).size),
        engine=engine,
    )


def _pair_seed(seed: int, number: int) -> int:
    """An independent evaluation seed for the round robin's ``number``-th table."""
    return int(np.random.SeedSequence([seed, 2, number]).generate_state(1)[0])


def _spec_game(adapter: GameAdapter) -> str | None:
    return adapter.name if adapter.name in GAMES else None


@dataclass
class RoundRobinResult:
    """``matrix[i][j]``: pool agent i's payoff against agent j (Estimate; None on the diagonal)."""

    game: str
    pool: list[str]
    labels: list[str]
    table_size: int
    matrix: list[list[Estimate | None]]
    matches: list[TournamentResult]
    seconds: float
    #: ``pairs[k] = (i, j)``: table k (``matches[k]``) seated pool agent i against copies of j.
    pairs: list[tuple[int, int]] = field(default_factory=list)

    def mean_vs_pool(self, i: int) -> float | None:
        row = [e.mean for e in self.matrix[i] if e is not None and e.n]
        return float(np.mean(row)) if row else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "pool": self.pool,
            "labels": self.labels,
            "table_size": self.table_size,
            "definition": (
                "matrix[i][j] = mean payoff of pool[i] at a table with table_size - 1 copies of "
                "pool[j]"
            ),
            "matrix": [
                [e.to_dict() if e is not None else None for e in row] for row in self.matrix
            ],
            "mean_vs_pool": [self.mean_vs_pool(i) for i in range(len(self.pool))],
            "tables": [list(pair) for pair in self.pairs],
            "tournaments": [m.to_dict() for m in self.matches],
        }


def run_round_robin(
    adapter: GameAdapter,
    pool: Sequence[str],
    episodes: int,
    seed: int = 0,
    duplicate: bool = False,
    options: dict[str, Any] | None = None,
    table_size: int | None = None,
    history: IO[str] | None = None,
    progress: bool = False,
    tournament: Callable[..., TournamentResult] | None = None,
) -> RoundRobinResult:
    """Every pool agent against every other: one of i with ``table_size - 1`` copies of j.

    Heads-up (table size 2) each unordered pair plays once and fills both cells; larger tables
    play each ordered pair. Table ``k`` is ``matches[k]``; its history lines carry ``"table": k``.
    ``tournament`` plays one table (default ``run_tournament``; same arguments).
    """
    options = dict(options or {})
    if len(pool) < 2:
        raise ValueError(f"a round robin needs at least 2 agents in the pool, got {len(pool)}")
    parsed = [parse_spec(s, _spec_game(adapter)) for s in pool]
    if table_size is not None and table_size < 2:
        raise ValueError(f"a round robin table needs at least 2 seats, got table_size={table_size}")
    size = table_size or options.get("num_players") or adapter.default_num_players or 2
    options.pop("num_players", None)
    k = len(parsed)
    matrix: list[list[Estimate | None]] = [[None] * k for _ in range(k)]
    matches = []
    started = time.perf_counter()
    pairs = [(i, j) for i in range(k) for j in range(k) if i != j and (size > 2 or i < j)]
    for number, (i, j) in enumerate(pairs):
        specs = [parsed[i]] + [parsed[j]] * (size - 1)
        result = (tournament or run_tournament)(
            adapter,
            specs,
            episodes,
            seed=_pair_seed(seed, number),
            duplicate=duplicate,
            options=options,
            history=history,
            progress=progress,
            history_fields={"table": number},
        )
        matches.append(result)
        matrix[i][j] = result.agents[0].payoff
        if size == 2:
            matrix[j][i] = result.agents[1].payoff
    return RoundRobinResult(
        game=adapter.name,
        pool=[p.text for p in parsed],
        labels=[p.label for p in parsed],
        table_size=size,
        matrix=matrix,
        matches=matches,
        seconds=time.perf_counter() - started,
        pairs=pairs,
    )
