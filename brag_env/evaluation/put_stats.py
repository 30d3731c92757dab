"""Put payoffs and behaviour statistics, read by the omniscient evaluator from the engine.

Samples per agent: ``payoff`` (the env's reward summed over the match: +1/-1 heads-up with the
default ``reward="match"``), ``match_win`` (1 if its seat, or its side, won the match) per match,
and ``points_per_hand`` per hand: the points its side scored, minus its share of the points
another side scored (the env's ``reward="points"`` split: -p heads-up and with partners, -p/2
each with three players), 0 for a drawn hand.

Strength at a decision: the *live strength* of ``agents.put`` computed from the deciding
seat's true cards and the tricks so far (what that player knows about itself). Decile ``d``
holds strengths in ``[d/10, (d+1)/10)``; a *weak* hand has strength below ``WEAK_BELOW`` = 0.4
(the bottom 40%, as in Brag; the bottom half was used before).

Behaviour statistics (per agent):

- ``put_rate``: of its turns where it could call Put (P4), the share it did.
- ``bluff_put_rate``: of its Puts, the share made with a weak hand (the aggressive bluff);
  ``bluff_success``: of those weak Puts, the share every opponent folded to;
  ``bluff_frequency``: the other way round: of its turns where it could call Put with a weak
  hand, the share where it did.
- ``light_see_rate``: of its sees of a Put, the share made with a weak hand (a passive,
  light see).
- ``bluff_rate``: both together: of its Puts and its sees of a Put, the share made with a
  weak hand.
- ``put_success``: of all its Puts, the share every opponent folded to.
- ``fold_to_put``: of the Puts it had to answer, the share it folded (``see_frequency`` is the
  share it saw).
- ``showdown_win_rate``: of the hands it played out to the last trick, the share its side
  scored (a drawn hand is not a win).
- ``actions_by_decile``: counts by strength decile of put / no_put (turns where Put was
  available) and see / fold (answers to a Put); ``rates_by_decile`` turns them into the Put
  rate (of the turns where Put was available) and the see and fold rates (of the Puts faced),
  ``fold_to_put_by_decile`` being the last.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.put import live_strength
from brag_env.evaluation.records import Records
from brag_env.evaluation.runner import Collector
from brag_env.evaluation.schedule import Episode
from brag_env.evaluation.stats import Counts, decile, decile_table, ratio
from brag_env.put.rules import FOLD, PUT, PUT_RANK, SEE, hand_rewards

ACTION_COLUMNS = ("put", "no_put", "see", "fold")
#: A live strength below this is weak: a Put with it is a bluff, a see of a Put with it is light.
WEAK_BELOW = 0.4
_FOLDED_REASON = "fold"
#: What one decision record holds (``PutCollector.add_decisions``): the agent, whether it could
#: call Put (P4), the action it took and the live strength of its hand then.
DECISION_FIELDS = ("agent", "put_legal", "action", "strength")
#: What one hand record holds (``PutCollector.add_hands``), per seat: its agent, whether it
#: called this hand's Put, whether the hand ended on a fold to it, whether the seat's side
#: scored the hand, and the live strength at which the seat called Put (-1: it did not).
HAND_FIELDS = ("agent", "called", "folded", "side_won", "put_strength")
#: Records held before they are counted (memory stays flat over long runs).
_PENDING = 1 << 16


def hand_points(config: Any, unit: int, points: int) -> list[float]:
    """Each seat's ``points_per_hand`` sample of one hand: its share by the env's
    ``reward="points"`` split (``hand_rewards``: P7 with three players, P8 partners), and
    0 for every seat when the hand is drawn (``unit`` -1)."""
    if unit < 0:
        return [0.0] * config.num_players
    return hand_rewards(config, unit, points)


def decile_rates(table: dict[str, Any]) -> dict[str, list[float | None]]:
    """``actions_by_decile`` as rates: Put of the chances, see and fold of the Puts faced."""
    rows = table["counts"]
    return {
        "put": [ratio(put, put + no_put) for put, no_put, _, _ in rows],
        "see": [ratio(see, see + fold) for _, _, see, fold in rows],
        "fold": [ratio(fold, see + fold) for _, _, see, fold in rows],
    }


class _Counts(Counts):
    __slots__ = (
        "bluff_put_wins",
        "bluff_puts",
        "bluff_sees",
        "by_decile",
        "faced_put",
        "folded_to_put",
        "hands",
        "put_chances",
        "put_wins",
        "puts",
        "showdown_wins",
        "showdowns",
        "weak_put_chances",
    )

    def __init__(self) -> None:
        super().__init__()
        self.by_decile = [[0, 0, 0, 0] for _ in range(10)]


class PutCollector(Collector):
    """Match and hand payoffs and the behaviour statistics of the module docstring.

    Every count is defined once, in ``_count_records``, over decision and hand records
    (``DECISION_FIELDS``, ``HAND_FIELDS``): the AEC hooks write them one at a time from the
    scalar engine, the batched evaluator (``brag_env.evaluation.batched``) hands them over
    for many tables at once (``add_decisions``, ``add_hands``)."""

    def __init__(self, env: Any, num_agents: int) -> None:
        super().__init__(num_agents)
        self.counts = [_Counts() for _ in range(num_agents)]
        self._episode: Episode | None = None
        self._decisions = Records(DECISION_FIELDS)
        self._hands = Records(HAND_FIELDS)

    def start_episode(self, env: Any, episode: Episode) -> None:
        self._episode = episode
        self._hands_seen = 0
        self._put_strength: dict[int, float] = {}  # seat -> strength at its Put this hand

    @staticmethod
    def _strength(game: Any, seat: int) -> float:
        ranks = [PUT_RANK[c] for c in game.hands[seat]]
        ranks += [r for s, r, _ in game.trick if s == seat]  # its card on the table still counts
        won = game.tricks_won
        unit_of = game.unit_of
        mine = sum(w for s, w in enumerate(won) if unit_of[s] == unit_of[seat])
        others = [0] * game.num_units
        for s, w in enumerate(won):
            others[unit_of[s]] += w
        theirs = max(w for u, w in enumerate(others) if u != unit_of[seat])
        return live_strength(ranks, mine - theirs)

    def before_action(self, env: Any, seat: int, agent: int, action: int) -> None:
        game = env.unwrapped.game
        put_legal = bool(game.legal_mask()[PUT])
        if not self.recorded(put_legal, action):
            return
        p = self._strength(game, seat)
        self._decisions.append((agent, put_legal, action, p))
        if action == PUT:
            self._put_strength[seat] = p

    def after_action(self, env: Any, seat: int, agent: int, action: int) -> None:
        game = env.unwrapped.game
        if len(game.records) == self._hands_seen:
            return
        for record in game.records[self._hands_seen :]:
            self._end_hand(game, record)
        self._hands_seen = len(game.records)

    def _end_hand(self, game: Any, record: Any) -> None:
        episode = self._episode
        assert episode is not None
        reason, unit, points = record.result
        unit_of = game.unit_of
        shares = hand_points(game.config, unit, points)
        folded = reason == _FOLDED_REASON
        for seat in range(game.n):
            agent = episode.seats[seat]
            self.metrics.add("points_per_hand", agent, episode.group, seat, shares[seat])
            side_won = unit >= 0 and unit_of[seat] == unit
            put_strength = self._put_strength.get(seat, -1.0)
            self._hands.append((agent, seat == record.put_caller, folded, side_won, put_strength))
        self._put_strength.clear()
        if len(self._decisions) + len(self._hands) > _PENDING:
            self._count_records()

    # ----------------------------------------------------------------- records
    @staticmethod
    def recorded(put_legal: Any, action: Any) -> Any:
        """Which decisions have a record: a chance to call Put (P4) or an answer to one (see
        or fold, P5); a card played otherwise says nothing of style. One decision (bools and
        ints) or arrays of them."""
        return put_legal | (action == SEE) | (action == FOLD)

    def add_decisions(self, records: np.ndarray) -> None:
        """Decision records of many tables at once: (m, ``DECISION_FIELDS``), what
        ``before_action`` records one decision at a time (only those ``recorded`` says)."""
        self._decisions.extend(records)
        if len(self._decisions) > _PENDING:
            self._count_records()

    def add_hands(self, records: np.ndarray) -> None:
        """Hand records of many tables at once: (m, ``HAND_FIELDS``), as ``_end_hand``'s."""
        self._hands.extend(records)
        if len(self._hands) > _PENDING:
            self._count_records()

    def _count_records(self) -> None:
        """Add every record not yet counted to the agents' counts (one code for both runs)."""
        n = self.num_agents
        rows = self._decisions.take()
        if rows is not None:
            d = self._decisions.columns(rows)
            agent, action, p = d["agent"].astype(np.int64), d["action"], d["strength"]
            legal, weak = d["put_legal"] > 0, p < WEAK_BELOW
            put = legal & (action == PUT)
            faced = ~legal & ((action == SEE) | (action == FOLD))  # answering a Put
            fold, see = faced & (action == FOLD), faced & (action == SEE)
            events = {
                "put_chances": legal,
                "puts": put,
                "bluff_puts": put & weak,
                "weak_put_chances": legal & weak,
                "faced_put": faced,
                "folded_to_put": fold,
                "bluff_sees": see & weak,
            }
            column = np.where(legal, np.where(put, 0, 1), np.where(fold, 3, 2))  # ACTION_COLUMNS
            k = legal | faced
            cells = agent[k] * 40 + decile(p[k]) * 4 + column[k]
            table = np.bincount(cells, minlength=n * 40).reshape(n, 10, 4)
            self._add(events, agent, table)
        rows = self._hands.take()
        if rows is not None:
            h = self._hands.columns(rows)
            agent = h["agent"].astype(np.int64)
            folded, side_won = h["folded"] > 0, h["side_won"] > 0
            put_won = (h["called"] > 0) & folded  # every opponent folded to its Put
            bluffed = (h["put_strength"] >= 0) & (h["put_strength"] < WEAK_BELOW)
            events = {
                "hands": np.ones(len(rows), bool),
                "put_wins": put_won,
                "bluff_put_wins": put_won & bluffed,
                "showdowns": ~folded,
                "showdown_wins": ~folded & side_won,
            }
            self._add(events, agent, None)

    def _add(self, events: dict[str, np.ndarray], agent: np.ndarray, table: Any) -> None:
        for name, flag in events.items():
            totals = np.bincount(agent[flag], minlength=self.num_agents)
            for a, c in enumerate(self.counts):
                setattr(c, name, getattr(c, name) + int(totals[a]))
        if table is not None:
            for a, c in enumerate(self.counts):
                c.by_decile = (np.array(c.by_decile) + table[a]).tolist()

    def end_episode(self, env: Any, episode: Episode, seat_rewards: list[float]) -> None:
        super().end_episode(env, episode, seat_rewards)
        winners = env.unwrapped.game.winners()
        for seat in range(len(seat_rewards)):
            won = 1.0 if seat in winners else 0.0
            self.metrics.add("match_win", episode.seats[seat], episode.group, seat, won)

    def behaviour(self, agent: int) -> dict[str, Any]:
        self._count_records()
        c = self.counts[agent]
        table = decile_table(ACTION_COLUMNS, c.by_decile)
        rates = decile_rates(table)
        return {
            "hands": c.hands,
            "weak_below": WEAK_BELOW,
            "put_rate": ratio(c.puts, c.put_chances),
            "put_success": ratio(c.put_wins, c.puts),
            "bluff_put_rate": ratio(c.bluff_puts, c.puts),
            "light_see_rate": ratio(c.bluff_sees, c.faced_put - c.folded_to_put),
            "bluff_rate": ratio(
                c.bluff_puts + c.bluff_sees, c.puts + c.faced_put - c.folded_to_put
            ),
            "bluff_success": ratio(c.bluff_put_wins, c.bluff_puts),
            "bluff_frequency": ratio(c.bluff_puts, c.weak_put_chances),
            "fold_to_put": ratio(c.folded_to_put, c.faced_put),
            "see_frequency": ratio(c.faced_put - c.folded_to_put, c.faced_put),
            "showdown_win_rate": ratio(c.showdown_wins, c.showdowns),
            "counts": {
                "hands": c.hands,
                "put_chances": c.put_chances,
                "puts": c.puts,
                "put_wins": c.put_wins,
                "bluff_puts": c.bluff_puts,
                "weak_put_chances": c.weak_put_chances,
                "bluff_put_wins": c.bluff_put_wins,
                "bluff_sees": c.bluff_sees,
                "faced_put": c.faced_put,
                "folded_to_put": c.folded_to_put,
                "showdowns": c.showdowns,
                "showdown_wins": c.showdown_wins,
            },
            "actions_by_decile": table,
            "rates_by_decile": rates,
            "put_rate_by_decile": rates["put"],
            "fold_to_put_by_decile": rates["fold"],
        }

    def histories(self, env: Any) -> list[dict[str, Any]]:
        return env.unwrapped.game.history()
