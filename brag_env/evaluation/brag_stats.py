"""Brag payoffs and behaviour statistics, read by the omniscient evaluator from the engine.

Payoff samples: one per hand per agent, the hand's chip change divided by the ante, "antes/hand"
(by ``min_stake`` when no ante is paid, ``ante == 0`` or ``ante_mode == "none"``:
"min-stakes/hand").

Hand strength: the percentile of the agent's TRUE hand (fraction of the deck's hands strictly
weaker, of 22,100 in the full pack, in the table's ranking order), whether or not the agent has
looked. Decile ``d`` holds percentiles in ``[d/10, (d+1)/10)``; a *weak* hand is one in the
bottom 40% (percentile below ``WEAK_BELOW`` = 0.4, deciles d0-d3): a raise with it is a bluff.
Rates for another cut-off at a decile boundary (the bottom half used before) can be
re-derived from ``hands_by_decile``.

Behaviour statistics (per agent; counts are kept too, so rates can be re-derived):

- ``blind_play_rate``: share of the hands it was dealt in which it made a betting move (stay,
  raise or see) while blind.
- ``look_rate``: share of its hands in which it looked; ``turns_before_look``: mean number of
  betting moves it made blind before looking, over the hands where it looked (a hand played
  blind to the end has no look to count up to: those hands are ``blind_to_end_rate``).
- ``blind_to_end_rate``: share of its hands in which it made blind moves and never looked.

Forced decisions (a single legal action, e.g. a fold when the seat cannot pay, B16) say nothing
about style: they are counted in ``forced_decisions`` and left out of every rate below and of
the decile table.
- ``actions_by_decile``: counts of fold/stay/raise/see decisions made OPEN, by decile of its
  hand, plus a ``blind`` row for decisions made without looking.
- ``hands_by_decile``: per decile of its (final) hand, counts of hands dealt, hands in which it
  looked, folded (a free choice, open or blind), raised while open, saw while open (B14),
  covered (B16) and won; ``rates_by_decile`` divides each by the hands of the decile
  (``fold_rate_by_decile`` is its fold row).
- ``bluff_raise_rate``: of the hands in which it raised while open, the share where its hand was
  weak (the aggressive bluff). ``bluff_success``: of those bluff-raise hands, the share it won
  with everyone else folding (B15). ``bluff_frequency``: the other way round: of the hands in
  which it looked at a weak hand, the share in which it raised while open.
- ``light_see_rate``: of the hands in which it saw while open (B14), the share where its hand was
  weak (a passive, light see).
- ``bluff_rate``: both together: of the hands in which it raised or saw while open, the share
  with a weak hand.
- ``fold_to_raise``: of its betting decisions facing a raise (another player raised since its
  own previous move this hand), the share it folded.
- ``see_frequency``: of its decisions where a see was legal (B14), the share it saw.
- ``showdown_win_rate``: of the sees it took part in (as seer or seen), the share it won.
- ``fold_rate``, ``raise_rate``: shares of all its betting decisions; ``hand_win_rate``: share of
  its hands it won (with covers: the first covered pot, the one that beat every comparison).
- Covering the pot (B16): ``cover_rate``: share of its hands in which it covered (covers are
  counted apart: not betting decisions, not in the decile table); ``cover_chance_rate``: of its
  free decisions where covering was legal, the share where it covered; ``cover_win_rate``: of its
  covers, the share where it took the pot it closed; ``cover_decided_rate``: share of its hands
  that ended with a cover comparison (anyone's cover). ``carried_rate`` (B15): share of its
  hands whose pot was carried to the next deal.
- ``best_discard_rate`` (Four-/Five-card Brag, B22; None otherwise): of its discards, the share
  that kept the strongest three cards of the deal. Hand percentiles there are those of the kept
  three, known once the seat has discarded.

Where the counts come from: one record per decision (``DECISION_FIELDS``: a look, a forced
choice, a cover or a betting decision, with its decile row and column, whether a see or a
cover was legal, whether it faced a raise) and one per seat per hand (``HAND_FIELDS``: the
hand's percentile, what the seat did, whether it won, how). ``BragCollector.moves`` says what
a decision is (its record and the hand flags it sets) for one decision or for arrays of them;
the AEC hooks call it from the scalar engine one decision at a time, the batched evaluator
(``brag_env.evaluation.batched``) for all its tables at once and hands over the records
(``add_decisions``, ``add_hands``); ``_count_records`` turns both into the counts above, so
each statistic is defined once. Discards (B22) are counted directly: only the scalar engine
deals four or five cards.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from brag_env.brag.game import BLIND, OPEN
from brag_env.brag.rules import FIRST_RAISE, FOLD, LOOK, SEE, STAY, discard_choices
from brag_env.brag.wild import config_ranking
from brag_env.evaluation.records import Records
from brag_env.evaluation.runner import Collector
from brag_env.evaluation.schedule import Episode
from brag_env.evaluation.stats import Counts, decile, decile_table, ratio

ACTION_COLUMNS = ("fold", "stay", "raise", "see")
BLIND_ROW = 10  # row index of the blind decisions in the decile table
#: Columns of ``hands_by_decile`` (hand counts); every one but "hands" is also a rate by decile.
HAND_COLUMNS = ("hands", "looked", "folded", "raised", "saw", "covered", "won")
#: A hand below this percentile is weak: a raise with it is a bluff, a see with it is light.
WEAK_BELOW = 0.4


#: What one decision record holds (``BragCollector.add_decisions``): the agent, its kind
#: (``LOOKED``, ``FORCED``, ``COVERED`` or ``BET``), the decile row (``BLIND_ROW`` when blind)
#: and ``ACTION_COLUMNS`` column of a betting decision, whether a see (B14) or a cover (B16)
#: was legal, whether it faced a raise, and the blind moves the seat made before a look.
DECISION_FIELDS = (
    "agent",
    "kind",
    "row",
    "column",
    "see_legal",
    "cover_legal",
    "faced",
    "blind_moves",
)
LOOKED, FORCED, COVERED, BET = range(4)
#: What one hand record holds (``BragCollector.add_hands``): per seat that played the hand,
#: its agent, the percentile of its hand, and flags (0/1) of what it did (``SEAT_FLAGS``) and
#: what happened: it won, the hand ended on a see (B14), it was the seer or the seen, a cover
#: decided it (B16), it won the pot it covered, the pot was carried (B15).
HAND_FIELDS = (
    "agent",
    "percentile",
    "looked",
    "played_blind",
    "folded",
    "raised",
    "saw",
    "covered",
    "won",
    "by_see",
    "showdown",
    "cover_decided",
    "cover_won",
    "carried",
)
#: Records held before they are counted (memory stays flat over long runs).
_PENDING = 1 << 16
_D = {name: k for k, name in enumerate(DECISION_FIELDS)}
_H = {name: k for k, name in enumerate(HAND_FIELDS)}


#: The per-seat flags of a hand that its moves set (``BragCollector.moves``), in the order of
#: the hand record's fields they fill.
SEAT_FLAGS = ("looked", "played_blind", "folded", "raised", "saw", "covered")


def action_column(action: Any) -> Any:
    """The ``ACTION_COLUMNS`` column of a betting move: fold, stay, raise (any size) or see.
    An action id or an array of them (plain arithmetic, so both work alike)."""
    other = (action != FOLD) & (action != STAY) & (action != SEE)
    return (action == STAY) * 1 + other * 2 + (action == SEE) * 3


def decile_rates(table: dict[str, Any]) -> dict[str, list[float | None]]:
    """``hands_by_decile`` as rates: each column over the decile's hands (None: no hands)."""
    columns = table["columns"]
    return {
        name: [ratio(row[k], row[0]) for row in table["counts"]]
        for k, name in enumerate(columns)
        if k > 0
    }


def raises_faced(faced: Any, seat: Any, action: Any, keep_ids: tuple[int, int], n: int) -> Any:
    """The seats facing a raise, ``faced`` (a bit per seat of a table of ``n``), after ``seat``
    makes ``action``: another seat raised (B13) since the seat's own previous move this hand.
    A look (B10) does not end the seat's turn, nor does a B19 keep/take choice (``keep_ids``,
    the first ids after the raises). Plain integer arithmetic: one table (ints) or one move
    per table (int64 arrays) alike."""
    turn_over = (action != LOOK) & (action != keep_ids[0]) & (action != keep_ids[1])
    raised = (action >= FIRST_RAISE) & (action < keep_ids[0])
    mine = 1 << seat
    return (faced & ~(mine * turn_over)) | ((((1 << n) - 1) ^ mine) * raised)


class _Counts(Counts):
    __slots__ = (
        "aggressive_hands",
        "best_discards",
        "betting_decisions",
        "blind_play_hands",
        "blind_to_end_hands",
        "bluff_hands",
        "bluff_raise_hands",
        "bluff_wins",
        "by_decile",
        "by_hand_decile",
        "carried_hands",
        "cover_chances",
        "cover_decided_hands",
        "cover_wins",
        "covers",
        "discards",
        "faced_raise",
        "folded_to_raise",
        "folds",
        "forced",
        "hands",
        "hands_won",
        "light_see_hands",
        "looked_hands",
        "raise_hands",
        "raises",
        "see_chances",
        "see_hands",
        "sees",
        "showdown_wins",
        "showdowns",
        "turns_before_look",
        "weak_open_hands",
    )

    def __init__(self) -> None:
        super().__init__()
        self.by_decile = [[0, 0, 0, 0] for _ in range(BLIND_ROW + 1)]
        self.by_hand_decile = [[0] * len(HAND_COLUMNS) for _ in range(10)]


class BragCollector(Collector):
    """Per-hand payoffs and the behaviour statistics of the module docstring."""

    def __init__(self, env: Any, num_agents: int, config: Any = None) -> None:
        """``config`` (a ``BragConfig``) instead of ``env``: for a run without the AEC env."""
        super().__init__(num_agents)
        self.config = config if config is not None else env.unwrapped.config
        cfg = self.config
        antes = cfg.ante > 0 and cfg.ante_mode != "none"
        self.unit = float(cfg.ante if antes else cfg.min_stake)
        self.payoff_unit = "antes/hand" if antes else "min-stakes/hand"
        self.lowball = cfg.lowball
        self.deck_ranks = cfg.deck_ranks  # B1: percentiles among the short deck's hands
        self.ranking = config_ranking(cfg)  # B21, B1, B25: the order and percentiles
        self.keep_ids = (cfg.keep_old_hand_action, cfg.take_new_hand_action)
        self.cover_id = cfg.cover_action  # B16; -1 without cover_pot
        # B22: discard actions (ids from first_discard), a private choice before the betting.
        self.discard_choices = discard_choices(cfg.cards_dealt)
        self.first_discard = cfg.first_discard_action if self.discard_choices else cfg.num_actions
        self.counts = [_Counts() for _ in range(num_agents)]
        self._episode: Episode | None = None
        # Records not yet counted (see ``add_decisions``): rows as tuples, or whole arrays.
        self._decisions = Records(DECISION_FIELDS, np.int64)
        self._hands = Records(HAND_FIELDS, np.float64)

    # ----------------------------------------------------------------- per hand
    def _begin_hand(self, game: Any) -> None:
        n = len(game.status)
        self._results_seen = len(game.hand_results)
        self._percentile = [self._hand_percentile(game, s) for s in range(n)]
        self._blind_moves = [0] * n
        self._flags = {name: [False] * n for name in SEAT_FLAGS}  # set by ``moves``
        self._faced = 0  # ``raises_faced``: a bit per seat

    def _hand_percentile(self, game: Any, seat: int) -> float:
        hand = game.hands[seat]
        if len(hand) != 3:  # sits out (B16), or has not discarded yet (B22)
            return -1.0
        return self.ranking.percentile(self.ranking.strength(hand))

    def start_episode(self, env: Any, episode: Episode) -> None:
        self._episode = episode
        self._chip_changes = [0] * len(episode.seats)
        self._begin_hand(env.unwrapped.game)

    def end_episode(self, env: Any, episode: Episode, seat_rewards: list[float]) -> None:
        # The payoff samples are the per-hand chip changes; the env's rewards must add up to them.
        if [float(x) for x in self._chip_changes] != [float(x) for x in seat_rewards]:
            raise RuntimeError(
                f"brag rewards {seat_rewards} disagree with the engine's chip changes "
                f"{self._chip_changes} in episode {episode.index}"
            )

    def before_action(self, env: Any, seat: int, agent: int, action: int) -> None:
        game = env.unwrapped.game
        c = self.counts[agent]
        if action in self.keep_ids:
            return
        if action >= self.first_discard:  # B22: did it keep the best three?
            by_id = sorted(game.hands[seat])
            kept = [
                max(
                    self.ranking.strength([x for j, x in enumerate(by_id) if j not in p])
                    for p in self.discard_choices
                ),
                self.ranking.strength(
                    [
                        x
                        for j, x in enumerate(by_id)
                        if j not in self.discard_choices[action - self.first_discard]
                    ]
                ),
            ]
            c.discards += 1
            c.best_discards += kept[0] == kept[1]
            return
        status = game.status[seat]
        legal = game.legal_mask()
        cover_legal = self.cover_id >= 0 and legal[self.cover_id]
        faced = bool(self._faced >> seat & 1)
        self._faced = raises_faced(self._faced, seat, action, self.keep_ids, len(game.status))
        record, moves = self.moves(
            agent,
            action,
            status == BLIND,
            status == OPEN,
            sum(legal) == 1,
            bool(legal[SEE]),
            bool(cover_legal),
            faced,
            self._percentile[seat],
            self._blind_moves[seat],
        )
        self._decisions.append(tuple(int(x) for x in record))
        for name in SEAT_FLAGS:
            if moves[name]:
                self._flags[name][seat] = True
        self._blind_moves[seat] += int(moves["blind_move"])

    def moves(
        self,
        agent: Any,
        action: Any,
        blind: Any,
        open_: Any,
        forced: Any,
        see_legal: Any,
        cover_legal: Any,
        faced: Any,
        percentile: Any,
        blind_moves: Any,
    ) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """What decisions are, for both evaluators: one (Python ints and bools) or many (arrays
        of them), never a B19 keep/take choice nor a B22 discard. Returns the decision record
        (``DECISION_FIELDS``, a value or an array per field) and the ``SEAT_FLAGS`` each
        decision sets for its seat's hand, with ``blind_move`` (a betting move made blind).

        A look is a look; a decision with a single legal action is forced (B16: no choice, no
        style to measure); a cover (B16) is counted apart from the betting decisions; the rest
        are betting decisions: fold, stay, raise or see."""
        look = action == LOOK
        forced = forced & (look ^ True)
        cover = (action == self.cover_id) & ((look | forced) ^ True)
        bet = (look | forced | cover) ^ True
        kind = look * LOOKED + forced * FORCED + cover * COVERED + bet * BET
        row = blind * BLIND_ROW + (blind ^ True) * decile(percentile)
        fold = bet & (action == FOLD)
        blind_move = bet & (action != FOLD) & blind
        record = (
            agent,
            kind,
            bet * row,
            bet * action_column(action),
            bet & see_legal,
            (bet | cover) & cover_legal,
            bet & faced,
            look * blind_moves,
        )
        moves = {
            "looked": look,
            "played_blind": blind_move | (cover & blind),
            "folded": fold,
            "raised": bet & open_ & (action >= FIRST_RAISE),
            "saw": bet & open_ & (action == SEE),
            "covered": cover,
            "blind_move": blind_move,
        }
        return record, moves

    def after_action(self, env: Any, seat: int, agent: int, action: int) -> None:
        game = env.unwrapped.game
        if action in self.keep_ids or action >= self.first_discard:
            # B19: the chosen hand is the one that plays; B22: the three cards kept
            self._percentile[seat] = self._hand_percentile(game, seat)
            return
        if len(game.hand_results) == self._results_seen:
            return
        for result in game.hand_results[self._results_seen :]:
            self._end_hand(result)
        if not game.session_over:
            self._begin_hand(game)

    def _end_hand(self, result: Any) -> None:
        episode = self._episode
        assert episode is not None
        seats = episode.seats
        for seat, delta in enumerate(result.deltas):
            agent = seats[seat]
            self._chip_changes[seat] += delta
            self.metrics.add("payoff", agent, episode.group, seat, delta / self.unit)
            if self._percentile[seat] < 0:  # sat out this hand (B16)
                continue
            flags = tuple(self._flags[name][seat] for name in SEAT_FLAGS)
            self._hands.append(
                (
                    agent,
                    self._percentile[seat],
                    *flags,
                    result.winner == seat,
                    result.by_see,
                    result.by_see and seat in (result.seer, result.seen),
                    bool(result.covers),  # B16
                    sum(w == seat == k for _, w, k in result.pots),
                    result.carried > 0,  # B15
                )
            )
        if len(self._decisions) > _PENDING:
            self._count_records()

    # ----------------------------------------------------------------- records
    def add_decisions(self, records: np.ndarray) -> None:
        """Decision records of many tables at once: (m, ``DECISION_FIELDS``) integers, what
        ``before_action`` records one decision at a time (the batched evaluator's input)."""
        self._decisions.extend(records)
        if len(self._decisions) + len(self._hands) > _PENDING:
            self._count_records()

    def add_hands(self, records: np.ndarray) -> None:
        """Hand records of many tables at once: (m, ``HAND_FIELDS``), as ``_end_hand``'s."""
        self._hands.extend(records)
        if len(self._decisions) + len(self._hands) > _PENDING:
            self._count_records()

    def _count_records(self) -> None:
        """Add every record not yet counted to the agents' counts (one code for both runs)."""
        n = self.num_agents
        d = self._decisions.take()
        if d is not None:
            agent, kind, column = d[:, _D["agent"]], d[:, _D["kind"]], d[:, _D["column"]]
            bet = kind == BET
            free = bet | (kind == COVERED)
            see, faced = bet & (d[:, _D["see_legal"]] > 0), bet & (d[:, _D["faced"]] > 0)
            looks = kind == LOOKED
            per_agent = {
                "looked_hands": looks,
                "forced": kind == FORCED,
                "covers": kind == COVERED,
                "cover_chances": free & (d[:, _D["cover_legal"]] > 0),
                "betting_decisions": bet,
                "folds": bet & (column == 0),
                "raises": bet & (column == 2),
                "see_chances": see,
                "sees": see & (column == 3),
                "faced_raise": faced,
                "folded_to_raise": faced & (column == 0),
            }
            totals = {k: np.bincount(agent[v], minlength=n) for k, v in per_agent.items()}
            blind_moves = np.bincount(agent[looks], d[looks, _D["blind_moves"]], minlength=n)
            cells = agent[bet] * (BLIND_ROW + 1) * 4 + d[bet, _D["row"]] * 4 + column[bet]
            table = np.bincount(cells, minlength=n * (BLIND_ROW + 1) * 4).reshape(n, -1, 4)
            for a, c in enumerate(self.counts):
                for name, values in totals.items():
                    setattr(c, name, getattr(c, name) + int(values[a]))
                c.turns_before_look += int(blind_moves[a])
                c.by_decile = (np.array(c.by_decile) + table[a]).tolist()
        h = self._hands.take()
        if h is not None:
            agent = h[:, _H["agent"]].astype(np.int64)
            p = h[:, _H["percentile"]]
            f = {name: h[:, k] > 0 for name, k in _H.items() if k > 1}
            weak = p < WEAK_BELOW
            raised, saw = f["raised"], f["saw"]
            per_agent = {
                "hands": np.ones(len(h), bool),
                "hands_won": f["won"],
                "blind_play_hands": f["played_blind"],
                "blind_to_end_hands": f["played_blind"] & ~f["looked"],
                "weak_open_hands": weak & f["looked"],
                "aggressive_hands": raised | saw,
                "bluff_hands": (raised | saw) & weak,
                "raise_hands": raised,
                "bluff_raise_hands": raised & weak,
                "bluff_wins": raised & weak & f["won"] & ~f["by_see"],  # all others folded
                "see_hands": saw,
                "light_see_hands": saw & weak,
                "cover_decided_hands": f["cover_decided"],
                "cover_wins": f["cover_won"],
                "carried_hands": f["carried"],
                "showdowns": f["showdown"],
                "showdown_wins": f["showdown"] & f["won"],
            }
            totals = {k: np.bincount(agent[v], minlength=n) for k, v in per_agent.items()}
            deciles = decile(p)
            columns = [np.ones(len(h), bool)] + [f[name] for name in HAND_COLUMNS[1:]]
            width = len(HAND_COLUMNS)
            table = np.zeros((n, 10, width), np.int64)
            for k, flag in enumerate(columns):
                table[:, :, k] = np.bincount(
                    agent[flag] * 10 + deciles[flag], minlength=n * 10
                ).reshape(n, 10)
            for a, c in enumerate(self.counts):
                for name, values in totals.items():
                    setattr(c, name, getattr(c, name) + int(values[a]))
                c.by_hand_decile = (np.array(c.by_hand_decile) + table[a]).tolist()

    # ----------------------------------------------------------------- summary
    def behaviour(self, agent: int) -> dict[str, Any]:
        self._count_records()
        c = self.counts[agent]
        table = decile_table(ACTION_COLUMNS, c.by_decile, ["blind"])
        hands_table = decile_table(HAND_COLUMNS, c.by_hand_decile)
        rates = decile_rates(hands_table)
        return {
            "hands": c.hands,
            "betting_decisions": c.betting_decisions,
            "forced_decisions": c.forced,
            "blind_play_rate": ratio(c.blind_play_hands, c.hands),
            "look_rate": ratio(c.looked_hands, c.hands),
            "turns_before_look": ratio(c.turns_before_look, c.looked_hands),
            "blind_to_end_rate": ratio(c.blind_to_end_hands, c.hands),
            "bluff_raise_rate": ratio(c.bluff_raise_hands, c.raise_hands),
            "light_see_rate": ratio(c.light_see_hands, c.see_hands),
            "bluff_rate": ratio(c.bluff_hands, c.aggressive_hands),
            "bluff_success": ratio(c.bluff_wins, c.bluff_raise_hands),
            "bluff_frequency": ratio(c.bluff_raise_hands, c.weak_open_hands),
            "weak_below": WEAK_BELOW,
            "fold_to_raise": ratio(c.folded_to_raise, c.faced_raise),
            "see_frequency": ratio(c.sees, c.see_chances),
            "showdown_win_rate": ratio(c.showdown_wins, c.showdowns),
            "fold_rate": ratio(c.folds, c.betting_decisions),
            "raise_rate": ratio(c.raises, c.betting_decisions),
            "hand_win_rate": ratio(c.hands_won, c.hands),
            "cover_rate": ratio(c.covers, c.hands),
            "cover_chance_rate": ratio(c.covers, c.cover_chances),
            "cover_win_rate": ratio(c.cover_wins, c.covers),
            "cover_decided_rate": ratio(c.cover_decided_hands, c.hands),
            "carried_rate": ratio(c.carried_hands, c.hands),
            "best_discard_rate": ratio(c.best_discards, c.discards)
            if self.discard_choices
            else None,
            "counts": {
                "hands": c.hands,
                "hands_won": c.hands_won,
                "blind_play_hands": c.blind_play_hands,
                "blind_to_end_hands": c.blind_to_end_hands,
                "forced_decisions": c.forced,
                "looked_hands": c.looked_hands,
                "blind_moves_before_look": c.turns_before_look,
                "aggressive_hands": c.aggressive_hands,
                "bluff_hands": c.bluff_hands,
                "raise_hands": c.raise_hands,
                "bluff_raise_hands": c.bluff_raise_hands,
                "bluff_wins": c.bluff_wins,
                "weak_open_hands": c.weak_open_hands,
                "see_hands": c.see_hands,
                "light_see_hands": c.light_see_hands,
                "faced_raise": c.faced_raise,
                "folded_to_raise": c.folded_to_raise,
                "see_chances": c.see_chances,
                "sees": c.sees,
                "showdowns": c.showdowns,
                "showdown_wins": c.showdown_wins,
                "folds": c.folds,
                "raises": c.raises,
                "covers": c.covers,
                "cover_chances": c.cover_chances,
                "cover_wins": c.cover_wins,
                "cover_decided_hands": c.cover_decided_hands,
                "carried_hands": c.carried_hands,
                "discards": c.discards,
                "best_discards": c.best_discards,
            },
            "actions_by_decile": table,
            "hands_by_decile": hands_table,
            "rates_by_decile": rates,
            "fold_rate_by_decile": rates["folded"],
        }

    def histories(self, env: Any) -> list[dict[str, Any]]:
        return env.unwrapped.game.history()
