"""Tournaments on a batched engine: every episode of an evaluation played at once, as arrays.

``run_tournament_batched`` returns what ``run_tournament`` returns (a ``TournamentResult`` with
the same metrics, per-seat payoffs, behaviour statistics and 95% intervals over episodes) from
the same schedule (seat rotation) and the same per-agent seeds, but the episodes are the tables
of a batched engine, played in blocks of a fixed number of tables (memory stays flat however
long the run), and each agent decides for all the tables where it is to act in one
``act_batch`` call. The deals come from the engine's own stream, so the numbers are another
sample of the same quantities, not the scalar evaluator's exact figures. No hand histories.

``supports_batched`` says when it applies: a game with a batched runner here (its game spec's
``batched_runner``, a ``BatchedRunner``:
Put heads-up with the full pack; Brag at 2-8 seats, sessions of any length, with the options
``BatchedBrag`` covers, its own check deciding), the table size, and every agent deciding
natively for many tables (``act_batch``: the Put and Brag baselines but ``put:tips``,
``random``, snapshots). Duplicate deals and ``--history`` need the scalar evaluator. A game's
engine plugs in with a ``BatchedRunner``: its tournament ``(parsed specs, episodes, seed,
options) -> TournamentResult``, its option check and the table sizes it plays, named by the
game's ``batched_runner`` in brag_env/games.py.

The behaviour statistics come from the game's collector (``put_stats``, ``brag_stats``): the
runner reads, at every step and for all tables at once, what the collector reads from the
scalar engine at each decision and hand end, and hands it the same decision and hand records
the scalar collector writes (``DECISION_FIELDS``, ``HAND_FIELDS`` of each), built with the
collector's own rules (``BragCollector.moves``, ``PutCollector.recorded``,
``put_stats.hand_points``). The collector counts both runs' records with one code: no
statistic is computed here. For Brag each table is one session, its hands one after another
(the state a hand's records need is read before the step that ends it: in a session the next
hand is dealt at once).

``run_headsup_batched`` is what training evaluations call: the first agent against the other
(Put: match win rate) or against ``num_players - 1`` copies of it (Brag, ``BatchedBrag``:
payoff per hand in antes, min-stakes without an ante, over ``n`` hands in whole sessions),
with ``ratio_ci``'s interval. ``supports_headsup_batched`` says when it applies. Each copy
of a Brag opponent is its own agent with its own seed, as in the scalar evaluator.
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents import make_agent, table_info
from agents.batch import natively_batched
from agents.put import PutBatchView, PutView
from agents.registry import parse_spec
from brag_env.brag.game import BLIND, OPEN, SITTING_OUT
from brag_env.brag.rules import BragConfig
from brag_env.evaluation import episodes_for, headline_of
from brag_env.evaluation.brag_stats import SEAT_FLAGS, BragCollector, raises_faced
from brag_env.evaluation.games import get_adapter
from brag_env.evaluation.put_stats import PutCollector, hand_points
from brag_env.evaluation.runner import tournament_result
from brag_env.evaluation.schedule import agent_seeds, make_schedule
from brag_env.games import GAMES
from brag_env.put.rules import PutConfig

_DEALS_TAG = 0xBA7C  # the engine's deal stream, apart from the schedule's and the agents'
_BRAG_CHUNK = 32_768  # tables of one batched Brag block (about 12 KB each at 4 seats)
_PUT_CHUNK = 32_768  # matches of one batched Put block


def _put_options_supported(options: dict[str, Any]) -> bool:
    """Matches that ``BatchedPut`` covers (its own check, no Numba imported); bad options go
    to the env's error."""
    from brag_env.put.batched_options import check_batched_put

    try:
        check_batched_put(PutConfig.from_dict(options))
    except (TypeError, ValueError):
        return False
    return True


def _brag_options_supported(options: dict[str, Any]) -> bool:
    """Sessions of any length that ``BatchedBrag`` covers (its own check, the one-line
    ``ValueError``, no Numba imported); bad options go to the scalar env's error."""
    from brag_env.brag.batched_options import check_batched_brag

    try:
        check_batched_brag(BragConfig.from_dict(options))
    except (TypeError, ValueError):
        return False
    return True


@dataclass(frozen=True)
class BatchedRunner:
    """One game's batched evaluator."""

    #: ``(parsed specs, episodes, seed, options, **ready) -> TournamentResult``.
    tournament: Callable[..., Any]
    #: Whether the batched engine covers a table of these options (its own check).
    options_supported: Callable[[dict[str, Any]], bool]
    #: The table sizes it plays.
    table_sizes: tuple[int, ...]
    #: Why the engine cannot load here (e.g. Numba missing), asked last; None: it always loads.
    unavailable: Callable[[], str | None] | None = None
    #: ``run_headsup_batched`` of the game at any table size (one agent against copies of the
    #: opponent), or None for a heads-up tournament read by its headline figure.
    headsup: Callable[..., dict[str, Any]] | None = None
    #: Whether the tournament takes ready agents and block sizes (``run_tournament_batched``).
    ready_agents: bool = False


def batched_runner(game: str) -> BatchedRunner | None:
    """The batched evaluator of ``game``, or None when it has none (or is no game)."""
    spec = GAMES.get(game)
    return None if spec is None or spec.batched_runner is None else spec.load("batched_runner")


def _engine_loads(game: str) -> bool:
    """Whether the batched engine of ``game`` loads here, asked last (it imports Numba for
    Brag). It not loading is a one-line note (once) and the scalar env: the choice of the
    batched engine is automatic."""
    runner = batched_runner(game)
    if runner is None or runner.unavailable is None:
        return True
    reason = runner.unavailable()
    if reason is not None:
        _note_once(f"note: {reason}; playing on the scalar env")
    return reason is None


@functools.cache
def _note_once(line: str) -> None:
    print(line, file=sys.stderr)


def supports_batched(
    game: str, specs: Sequence[str], env_config: dict[str, Any], duplicate: bool = False
) -> bool:
    """Whether ``run_tournament_batched`` can play this evaluation (module docstring)."""
    runner = batched_runner(game)
    if runner is None or duplicate:
        return False
    options_supported, table_sizes = runner.options_supported, runner.table_sizes
    wanted = env_config.get("num_players", len(specs))
    if len(specs) not in table_sizes or wanted != len(specs):
        return False
    if not options_supported({**env_config, "num_players": len(specs)}):
        return False
    natively = _natively_batched(game, specs, {**env_config, "num_players": len(specs)})
    return natively and _engine_loads(game)


def _natively_batched(game: str, specs: Sequence[str], env_config: dict[str, Any]) -> bool:
    table = table_info(game, **env_config)
    for spec in specs:
        agent = make_agent(spec, table, 0)
        if not natively_batched(agent):
            return False
        if getattr(agent, "_layers", True) is None:  # a model without the numpy actor
            return False
    return True


def supports_headsup_batched(game: str, specs: Sequence[str], env_config: dict[str, Any]) -> bool:
    """Whether ``run_headsup_batched`` can play ``specs`` (agent, opponent) of ``game``."""
    runner = batched_runner(game)
    if runner is not None and runner.headsup is not None:
        supported = runner.options_supported(env_config)
        return supported and _natively_batched(game, specs, env_config) and _engine_loads(game)
    return supports_batched(game, specs, env_config)


def run_tournament_batched(
    game: str,
    specs: Sequence[Any],
    episodes: int,
    seed: int = 0,
    options: dict | None = None,
    agents: Sequence[Any] | None = None,
    block_tables: int | None = None,
) -> Any:
    """``run_tournament`` of ``game`` on its batched engine (see the module docstring).

    ``agents`` (Brag only), as for ``run_tournament``: ready agents, one per spec, instead of
    building them from ``specs`` (which then only name them); each must be natively batched.
    An agent with a ``hand_over(rows, chips)`` method is told, when hands end, each of its
    state rows' chip change (what a player sees when the pot is paid out). ``block_tables``
    plays the sessions in blocks of that many tables, one block after another, so that such
    an agent learns from the earlier blocks (default: blocks of ``_BRAG_CHUNK``)."""
    runner = batched_runner(game)
    if runner is None:
        raise ValueError(f"no batched engine for game {game!r}; use the scalar evaluator")
    parsed = [s if not isinstance(s, str) else parse_spec(s, game) for s in specs]
    if agents is None and block_tables is None:
        return runner.tournament(parsed, episodes, seed, dict(options or {}))
    if not runner.ready_agents:
        raise ValueError("ready agents and block sizes are for the batched Brag evaluator only")
    return runner.tournament(
        parsed, episodes, seed, dict(options or {}), agents=agents, block_tables=block_tables
    )


def run_headsup_batched(
    agent_spec: str,
    opponent_spec: str,
    n: int,
    seed: int = 0,
    env_config: dict[str, Any] | None = None,
    game: str = "put",
) -> dict[str, Any]:
    """``run_headsup(game, ...)`` on the batched engine (see the module docstring)."""
    runner = batched_runner(game)
    if runner is not None and runner.headsup is not None:
        return runner.headsup(agent_spec, opponent_spec, n, seed, env_config)
    result = run_tournament_batched(game, [agent_spec, opponent_spec], n, seed, env_config)
    return headline_of(result)


def _blocks(
    seat_agent: np.ndarray,
    group: np.ndarray,
    chunk: int,
    make: Callable[..., Any],
    config: Any,
    seed: int,
):
    """The run's episodes in blocks of at most ``chunk`` tables, so that memory stays flat
    however many are asked for: per block its rows of ``seat_agent`` and ``group`` and the
    engine, made once by ``make(tables, config, seed)`` for the first block (its deal stream
    runs on from one block to the next; a shorter last block leaves spare tables unplayed)
    and given new sessions for each."""
    engine = None
    for first in range(0, len(seat_agent), chunk):
        block = slice(first, first + chunk)
        if engine is None:
            engine = make(
                len(seat_agent[block]), config, np.random.SeedSequence([seed, _DEALS_TAG])
            )
        engine.new_session()
        yield seat_agent[block], group[block], engine


def _decide(engine: Any, live: np.ndarray, seat_agent: np.ndarray, agents: list) -> tuple:
    """One decision at every live table: each agent acts, in one ``act_batch`` call, at the
    tables where one of its seats is to move (state row = table * seats + seat)."""
    seats = engine.current_player[live]
    who = seat_agent[live, seats]
    obs = engine.observe(live, seats)
    masks = engine.legal_mask(live)
    actions = np.empty(live.size, np.int64)
    width = seat_agent.shape[1]
    for a in np.unique(who).tolist():
        k = np.flatnonzero(who == a)
        actions[k] = agents[a].act_batch(obs[k], masks[k], live[k] * width + seats[k])
    return seats, who, obs, masks, actions


def _put_tournament(
    parsed: list,
    episodes: int,
    seed: int,
    options: dict[str, Any],
    make_engine: Callable[..., Any] | None = None,
) -> Any:
    """Heads-up Put: ``run_tournament`` with ``PutCollector``'s samples, and its counts from
    the decision and hand records of all tables at each step (strength from the acting seat's
    own observation, which holds exactly the cards and tricks the collector reads from the
    engine), which the collector counts with the scalar run's code, in blocks of at
    most ``_PUT_CHUNK`` matches. ``make_engine`` ``(tables, config, seed)`` replaces
    ``BatchedPut`` (tests deal the scalar run's cards)."""
    from brag_env.put.batched import BatchedPut
    from brag_env.put.rules import PUT, PutConfig

    adapter = get_adapter("put")
    adapter.num_players(len(parsed), options)
    config = PutConfig.from_dict(options)
    schedule = make_schedule(2, episodes, seed)
    table = table_info("put", **options)
    rngs = agent_seeds(seed, 2)
    agents = [make_agent(spec, table, rngs[i]) for i, spec in enumerate(parsed)]
    all_seat_agent = np.array([e.seats for e in schedule], np.int64)  # (tables, 2): agent/seat
    all_group = np.array([e.group for e in schedule], np.int64)
    view = PutBatchView(PutView(table))
    collector = PutCollector(None, 2)
    store = collector.metrics

    started = time.perf_counter()
    decisions = 0
    blocks = _blocks(all_seat_agent, all_group, _PUT_CHUNK, make_engine or BatchedPut, config, seed)
    for seat_agent, group, engine in blocks:
        here = len(seat_agent)
        for agent in agents:
            agent.reset_rows(np.arange(2 * here))
        hand_samples: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        put_strength = np.full((here, 2), -1.0)  # the seat's strength at its Put this hand
        payoff = np.zeros((here, 2))
        live = np.arange(here)
        while live.size:
            seats, who, obs, masks, actions = _decide(engine, live, seat_agent, agents)
            decisions += live.size
            # before the step: the decision records PutCollector.before_action writes
            view.load(obs)
            strength = view.strength
            put_legal = masks[:, PUT] > 0
            k = collector.recorded(put_legal, actions)
            records = np.column_stack([who, put_legal, actions, strength])
            collector.add_decisions(records[k])
            put = actions == PUT
            put_strength[live[put], seats[put]] = strength[put]
            before = engine.hands_played[live]
            rewards, _ = engine.step(live, actions)
            payoff[live] += rewards
            done = live[engine.hands_played[live] > before]
            if done.size:  # PutCollector._end_hand's samples and records, per hand just ended
                unit = engine.last_unit[done]
                folded = engine.last_folded[done].any(axis=1)
                caller = engine.last_caller[done]
                # put_stats.hand_points of each (unit, points) the hands ended with
                pairs, which = np.unique(
                    np.stack([unit, engine.last_points[done]]), axis=1, return_inverse=True
                )
                shares = np.array([hand_points(config, int(u), int(p)) for u, p in pairs.T])
                shares = shares[which.reshape(-1)]
                for seat in (0, 1):
                    a = seat_agent[done, seat]
                    side_won = unit == config.unit_of(seat)
                    value = shares[:, seat]
                    hand_samples.append((a, group[done], np.full(done.size, seat), value))
                    called = caller == seat
                    strength_at_put = put_strength[done, seat]
                    collector.add_hands(
                        np.column_stack([a, called, folded, side_won, strength_at_put])
                    )
                put_strength[done] = -1.0
            live = live[engine.current_player[live] >= 0]
        for seat in (0, 1):
            for a in (0, 1):
                k = np.flatnonzero(seat_agent[:, seat] == a)
                seat_ids = np.full(k.size, seat)
                store.extend("payoff", a, group[k], seat_ids, payoff[k, seat])
                store.extend("match_win", a, group[k], seat_ids, engine.winner[k] == seat)
        agent_of, groups, seat_of, values = (
            np.concatenate(x) for x in zip(*hand_samples, strict=True)
        )
        for a in (0, 1):
            k = np.flatnonzero(agent_of == a)
            store.extend("points_per_hand", a, groups[k], seat_of[k], values[k])
    seconds = time.perf_counter() - started

    return tournament_result(
        adapter, parsed, options, seed, False, schedule, collector, seconds, decisions, "batched"
    )


def _run_brag(
    agent_spec: str, opponent_spec: str, n: int, seed: int, env_config: dict[str, Any] | None
) -> dict[str, Any]:
    options = dict(env_config or {})
    options.setdefault("num_players", 4)  # brag_v1's default table, as run_headsup
    p = int(options["num_players"])
    specs = [parse_spec(s, "brag") for s in [agent_spec] + [opponent_spec] * (p - 1)]
    result = _brag_tournament(specs, episodes_for("brag", n, options), seed, options)
    estimate = result.agents[0].payoff  # one sample per hand: its chip change over the unit
    return {
        "metric": f"payoff ({result.payoff_unit})",
        "mean": estimate.mean,
        "ci_low": estimate.low,
        "ci_high": estimate.high,
        "n": estimate.n,
    }


def _brag_tournament(
    parsed: list,
    episodes: int,
    seed: int,
    options: dict[str, Any],
    make_engine: Callable[..., Any] | None = None,
    agents: Sequence[Any] | None = None,
    block_tables: int | None = None,
) -> Any:
    """Brag, 2-8 seats, sessions of any length: ``run_tournament`` with ``BragCollector``'s
    payoffs and behaviour statistics. Each table plays one session (episode). The loop keeps,
    per table and seat, the flags the collector keeps for the hand being played, hands it the
    same decision and hand records (``brag_stats.DECISION_FIELDS``, ``HAND_FIELDS``), which it
    counts with the same code, and clears them when a hand ends inside a session. The payoff
    samples are the collector's: one per hand and seat (a seat sitting out: 0), each session
    one unit. ``make_engine`` ``(tables, config, seed)`` replaces ``BatchedBrag`` (tests deal
    the scalar run's cards); ``agents`` and ``block_tables``: ``run_tournament_batched``."""
    from brag_env.brag.batched import BatchedBrag
    from brag_env.brag.rules import FOLD, SEE, BragConfig

    adapter = get_adapter("brag")
    n = adapter.num_players(len(parsed), options)
    table_options = {**options, "num_players": n}
    config = BragConfig.from_dict(table_options)
    schedule = make_schedule(n, episodes, seed)
    rngs = agent_seeds(seed, n)
    table = table_info("brag", **table_options)
    if agents is None:
        agents = [make_agent(spec, table, rngs[i]) for i, spec in enumerate(parsed)]
    elif len(agents) != n:
        raise ValueError(f"got {len(agents)} agents for {n} specs")
    told = [a for a in range(n) if hasattr(agents[a], "hand_over")]
    chunk = _BRAG_CHUNK if block_tables is None else max(1, int(block_tables))
    all_seat_agent = np.array([e.seats for e in schedule], np.int64)  # (tables, n): agent per seat
    all_group = np.array([e.group for e in schedule], np.int64)
    collector = BragCollector(None, n, config)
    cover_id, keep_ids = config.cover_action, collector.keep_ids
    choice_ids = np.array(keep_ids)

    started = time.perf_counter()
    decisions = 0
    make = make_engine or (lambda t, c, s: BatchedBrag(t, c, seed=s))
    for seat_agent, group, engine in _blocks(all_seat_agent, all_group, chunk, make, config, seed):
        here = len(seat_agent)
        for agent in agents:
            agent.reset_rows(np.arange(n * here))
        # what BragCollector keeps per seat for the hand being played, per table
        hand_flags = tuple(np.zeros((here, n), bool) for _ in SEAT_FLAGS)
        faced_raise = np.zeros(here, np.int64)  # ``raises_faced``: a bit per seat
        blind_moves = np.zeros((here, n), np.int64)
        ended_hands: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # table, hand, deltas
        live = np.arange(here)
        while live.size:
            seats, who, _, masks, actions = _decide(engine, live, seat_agent, agents)
            decisions += live.size
            # the decision records and hand flags, from BragCollector.moves as in the scalar
            # run; a B19 keep/take choice makes none (it only changes the hand measured)
            status = engine.status[live, seats]
            choice = np.isin(actions, choice_ids)
            cover_legal = masks[:, cover_id] > 0 if cover_id >= 0 else np.zeros(live.size, bool)
            record, moves = collector.moves(
                who,
                actions,
                status == BLIND,
                status == OPEN,
                masks.sum(axis=1) == 1,
                masks[:, SEE] > 0,
                cover_legal,
                (faced_raise[live] >> seats & 1) > 0,
                engine.percentile[live, seats],
                blind_moves[live, seats],
            )
            records = np.stack(np.broadcast_arrays(*record), axis=1)
            collector.add_decisions(records[~choice] if choice.any() else records)
            for name, flag in zip(SEAT_FLAGS, hand_flags, strict=True):
                m = moves[name] & ~choice
                flag[live[m], seats[m]] = True
            moved = moves["blind_move"] & ~choice
            blind_moves[live[moved], seats[moved]] += 1
            faced_raise[live] = raises_faced(faced_raise[live], seats, actions, keep_ids, n)
            # Only a fold, a cover or a see ends a hand: what the hand records need of it,
            # read before the step (in a session the next hand is dealt at once).
            ending = np.flatnonzero(np.isin(actions, (FOLD, SEE, cover_id)))
            hand_end = _HandEnd(engine, live[ending], seats[ending], actions[ending], cover_id)
            before = engine.hands_played[live]
            rewards, over = engine.step(live, actions)
            ended = engine.hands_played[live] > before
            if ended.any():
                done = live[ended]
                hand_end.keep(ended[ending])
                if hand_end.rows.size != done.size:  # the engine ended a hand another way
                    raise RuntimeError("a Brag hand ended on a move other than fold/cover/see")
                _brag_hands_over(engine, collector, hand_end, seat_agent, hand_flags)
                ended_hands.append((done, before[ended], rewards[ended]))
                for a in told:  # the chips each of its seats won or lost in the hand
                    t, seat = np.nonzero(seat_agent[done] == a)
                    agents[a].hand_over(done[t] * n + seat, rewards[ended][t, seat])
                for flag in (*hand_flags, faced_raise):  # a new hand of the session starts
                    flag[done] = False
                blind_moves[done] = 0
            live = live[~over]
        _brag_payoffs(collector, ended_hands, seat_agent, group)
    seconds = time.perf_counter() - started

    return tournament_result(
        adapter, parsed, options, seed, False, schedule, collector, seconds, decisions, "batched"
    )


def _brag_payoffs(collector, ended_hands, seat_agent, group) -> None:
    """``BragCollector``'s payoff samples of one block of sessions: per agent, one per hand
    (its seat's chip change over the collector's unit), session by session and hand by hand
    (the scalar run's order, so that the sums are the same floats)."""
    if not ended_hands:
        return
    t, hand, deltas = (np.concatenate(x) for x in zip(*ended_hands, strict=True))
    order = np.lexsort((hand, t))
    t, deltas = t[order], deltas[order]
    k = np.arange(t.size)
    for a in range(seat_agent.shape[1]):
        seat = (seat_agent[t] == a).argmax(axis=1)
        values = deltas[k, seat] / collector.unit
        collector.metrics.extend("payoff", a, group[t], seat, values)


class _HandEnd:
    """The state a hand's records are made from, taken before the step that may end it
    (a fold, a cover or a see): who is still in and every seat's hand once the move is made,
    the covers in order (B16) and who sits the hand out (B16)."""

    def __init__(self, engine, rows, seats, actions, cover_id) -> None:
        from brag_env.brag.rules import FOLD, SEE

        k = rows.size
        ks = np.arange(k)
        self.rows, self.seer = rows, seats
        status = engine.status[rows]
        self.inn = status >= BLIND
        out = (actions == FOLD) | (actions == cover_id)
        self.inn[ks[out], seats[out]] = False  # the move's own effect (B12, B16)
        self.sat_out = status == SITTING_OUT
        self.by_see = actions == SEE
        self.strength = engine.strength[rows]
        self.percentile = engine.percentile[rows]
        self.num_covers = engine.num_covers[rows].copy()
        self.cover_order = engine.cover_order[rows]
        c = np.flatnonzero(actions == cover_id) if cover_id >= 0 else ks[:0]
        self.cover_order[c, self.num_covers[c]] = seats[c]
        self.num_covers[c] += 1

    def keep(self, ended: np.ndarray) -> None:
        """Only the tables whose hand did end."""
        for name, value in vars(self).items():
            setattr(self, name, value[ended])


def _brag_hands_over(engine, collector, end: _HandEnd, seat_agent, flags) -> None:
    """``BragCollector._end_hand``'s hand records for the tables whose hand just ended: the
    winner and the carried pot as the engine settled them (its ``hand_winner``, -1 when the
    pot was carried, B15, and ``hand_carried``); B16's covered pots from the last closed
    outwards, each won by its coverer when it beats the winner so far. A seat sitting the hand
    out has no record."""
    done, seer, by_see = end.rows, end.seer, end.by_see
    k, n = done.size, engine.num_players
    ks = np.arange(k)
    strength = end.strength
    other = end.inn.copy()  # after a see, both players; else the last one in
    other[ks, seer] = False
    seen = np.where(by_see, other.argmax(axis=1), -1)
    beats = strength[ks, seer] > strength[ks, np.maximum(seen, 0)]
    lone = np.where(by_see, np.where(beats, seer, seen), end.inn.argmax(axis=1))
    champion = lone.copy()  # who holds the pots won so far, for cover_won only
    cover_won = np.zeros((k, n), bool)
    covers = end.num_covers
    for j in range(int(covers.max(initial=0)) - 1, -1, -1):
        has = covers > j
        coverer = end.cover_order[ks, j]
        better = has & (strength[ks, coverer] > strength[ks, champion])
        champion = np.where(better, coverer, champion)
        cover_won[ks[better], coverer[better]] = True
    carried = engine.hand_carried[done] > 0  # B15: as game.py, a pot of chips carried
    seat = np.arange(n)[None, :]
    won = seat == engine.hand_winner[done][:, None]
    showdown = by_see[:, None] & ((seat == seer[:, None]) | (seat == seen[:, None]))
    columns = [
        seat_agent[done],
        end.percentile,
        *(f[done] for f in flags),  # SEAT_FLAGS, in the hand record's order
        won,
        np.broadcast_to(by_see[:, None], (k, n)),
        showdown,
        np.broadcast_to((covers > 0)[:, None], (k, n)),
        cover_won,
        np.broadcast_to(carried[:, None], (k, n)),
    ]
    records = np.stack([np.asarray(c, np.float64) for c in columns], axis=2)
    collector.add_hands(records[~end.sat_out])


def _batched_brag_unavailable() -> str | None:
    from brag_env.brag.batched_options import batched_brag_unavailable

    return batched_brag_unavailable()


def _batched_put_unavailable() -> str | None:
    from brag_env.put.batched_options import batched_put_unavailable

    return batched_put_unavailable()


#: The batched evaluators, named by each game's ``batched_runner`` (brag_env/games.py).
PUT_RUNNER = BatchedRunner(
    _put_tournament, _put_options_supported, (2,), unavailable=_batched_put_unavailable
)
BRAG_RUNNER = BatchedRunner(
    _brag_tournament,
    _brag_options_supported,
    tuple(range(2, 9)),  # B1
    unavailable=_batched_brag_unavailable,
    headsup=_run_brag,
    ready_agents=True,
)
