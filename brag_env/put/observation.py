"""What one player knows in Put, as a flat float32 vector with named views.

One buffer is allocated per observer; ``PutObserver.views`` are reshaped numpy views into it,
so the names below ARE the layout (in order) and the decoder reads the same views. Seats are
relative to the observer: 0 is the observer, 1 the next seat to the left, and so on.

==================  ===========  ==========================================================
view                shape        content
==================  ===========  ==========================================================
hand                (13,)        own cards: count of each put rank, strongest (3) first
played              (3, n, 13)   card played in trick t by relative seat s (one-hot rank)
trick_leader        (3, n)       who led each trick started so far
trick_winner        (3, n)       who took each finished trick (P8: the first partner on top)
trick_tied          (3,)         finished trick tied (P3)
tricks_won          (n,)         tricks taken so far this hand, per seat
current_trick       (3,)         which trick is in play (all zero once the match is over)
acting              (n,)         whose decision it is
phase               (3,)         pass (P8) / play / answer a Put (P4)
put_caller          (n,)         who called the Put this hand
put_seen            (1,)         the Put was seen
put_folded          (n,)         who folded to it so far (P7: the first answer may fold)
scores              (n,)         match score / target_points (P8: the seat's side)
dealer              (n,)         the dealer of this hand
passed              (13,)        P8 only: rank of the card one chose to pass
received            (13,)        P8 only: rank of the card received from the partner
exchanged           (2,)         P8 optional pass only: own side / other side swapped cards
last_hand           (1,)         a hand of this match has finished (the block below is set)
last_played         (3, n, 13)   last finished hand: card played in trick t by relative seat
last_trick_winner   (3, n)       last finished hand: who took each trick
last_trick_tied     (3,)         last finished hand: the trick tied
last_put_caller     (n,)         last finished hand: who called a Put
last_put_seen       (1,)         last finished hand: the Put was seen
last_put_folded     (n,)         last finished hand: who folded to it
last_points         (n,)         last finished hand: points each seat's unit scored / target
------------------  -----------  ----------------------------------------------------------
only with ``put_timing`` (put_v2's observation)
------------------  -----------  ----------------------------------------------------------
put_trick           (3,)         the trick in which this hand's Put was called
put_turn            (n,)         cards of that trick on the table when it came (0: the lead)
last_put_trick      (3,)         the same two for the last finished hand
last_put_turn       (n,)
------------------  -----------  ----------------------------------------------------------
only with ``perfect_recall`` (L = ``history_length(n)``, A = the number of actions)
------------------  -----------  ----------------------------------------------------------
recall_seat         (L, n)       every event of this hand, oldest first: who acted
recall_action       (L, A)       ... the action (cards, the Put where it came, the answers)
recall_hidden       (L,)         ... another seat chose its pass card (P8): no action shown
last_recall_seat    (L, n)       the same three for the last finished hand
last_recall_action  (L, A)
last_recall_hidden  (L,)
==================  ===========  ==========================================================

Sizes: 220 values with two players, 316 with three, 438 with four (440 with
``partner_exchange="optional"``, whose ``exchanged`` view tells what the whole table sees: which
partners swapped cards after the pass; ``passed`` stays set when one's partner passed nothing
and one kept the card).

P7 with ``put_answers="simultaneous"``: ``put_seen`` and ``put_folded`` stay clear until both
opponents have answered, so the second one to answer sees exactly what the first saw.

The ``last_*`` block exists because a hand's final card is played and the next hand dealt in
one step: without it nobody would see how a hand ended (the last trick, a fold). It is filled
from the finished hand until the next one ends, and stays set when the match is over. A trick
with cards but neither winner nor tie was cut short by a folded Put (P4).

The recall rows come from the hand record (``HandRecord.actions``): an answer appears when it
takes effect (P7 simultaneous: both at once), so they say no more than the rest of the vector,
only in order. With the match over, this hand and the last hand are the same hand.

Nothing about another player's unplayed cards is encoded, except the card one passed to
one's partner (P8), which one knows. The last-hand block holds only cards that were played
face up; the cards still in hand when a Put was folded stay unknown.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from brag_env.put.game import PHASE_OVER, PutGame
from brag_env.put.rules import (
    ACTION_NAMES,
    NUM_ACTIONS,
    NUM_RANKS,
    PASS,
    PASS_NONE,
    PUT_RANK,
    RANK_NAMES,
    TRICKS_PER_HAND,
    PutConfig,
)

PHASE_LABELS = ("pass", "play", "answer")
# The perfect-recall block (``perfect_recall=True``), after everything else: one row per event
# of this hand and of the last hand, oldest first.
RECALL_FIELDS = (
    "recall_seat",
    "recall_action",
    "recall_hidden",
    "last_recall_seat",
    "last_recall_action",
    "last_recall_hidden",
)


def history_length(num_players: int) -> int:
    """The most events one hand can hold: one pass choice per seat (P8, four players), three
    cards per seat, one Put and its answers (two with three players, P7)."""
    passes = num_players if num_players == 4 else 0
    answers = 2 if num_players == 3 else 1
    return passes + TRICKS_PER_HAND * num_players + 1 + answers


def observation_layout(
    num_players: int,
    optional_pass: bool = False,
    perfect_recall: bool = False,
    put_timing: bool = False,
) -> list[tuple[str, tuple[int, ...]]]:
    """The named fields of the observation vector, in order, with their shapes
    (``optional_pass``: four players with ``partner_exchange="optional"``, P8;
    ``put_timing``: put_v2's when-the-Put-came fields; ``perfect_recall``: the event block.
    Both are appended, so every field before them keeps its offset)."""
    n, t, r = num_players, TRICKS_PER_HAND, NUM_RANKS
    layout = [
        ("hand", (r,)),
        ("played", (t, n, r)),
        ("trick_leader", (t, n)),
        ("trick_winner", (t, n)),
        ("trick_tied", (t,)),
        ("tricks_won", (n,)),
        ("current_trick", (t,)),
        ("acting", (n,)),
        ("phase", (3,)),
        ("put_caller", (n,)),
        ("put_seen", (1,)),
        ("put_folded", (n,)),
        ("scores", (n,)),
        ("dealer", (n,)),
    ]
    if num_players == 4:
        layout += [("passed", (r,)), ("received", (r,))]
        if optional_pass:
            layout.append(("exchanged", (2,)))
    layout += [
        ("last_hand", (1,)),
        ("last_played", (t, n, r)),
        ("last_trick_winner", (t, n)),
        ("last_trick_tied", (t,)),
        ("last_put_caller", (n,)),
        ("last_put_seen", (1,)),
        ("last_put_folded", (n,)),
        ("last_points", (n,)),
    ]
    if put_timing:
        layout += [
            ("put_trick", (t,)),
            ("put_turn", (n,)),
            ("last_put_trick", (t,)),
            ("last_put_turn", (n,)),
        ]
    if perfect_recall:
        length, actions = history_length(n), NUM_ACTIONS if optional_pass else PASS_NONE
        for prefix in ("", "last_"):
            layout += [
                (f"{prefix}recall_seat", (length, n)),
                (f"{prefix}recall_action", (length, actions)),
                (f"{prefix}recall_hidden", (length,)),
            ]
    return layout


def _views(buffer: np.ndarray, layout: list[tuple[str, tuple[int, ...]]]) -> dict[str, np.ndarray]:
    views: dict[str, np.ndarray] = {}
    offset = 0
    for name, shape in layout:
        size = int(np.prod(shape))
        views[name] = buffer[offset : offset + size].reshape(shape)
        offset += size
    if offset != buffer.shape[0]:
        raise ValueError(f"observation must have {offset} values, got {buffer.shape[0]}")
    return views


def observation_high(config: PutConfig) -> float:
    """Upper bound of every observation value: card counts and tricks reach 3; a score is
    at most ``target_points - 1 + seen_put_points`` (a seen Put won one point short of the
    target), divided by ``target_points``; the last hand's points are below that."""
    spp = config.seen_put_points
    best_score = config.target_points if spp == "game" else config.target_points - 1 + max(spp, 1)
    return max(3.0, best_score / config.target_points)


class PutObserver:
    """Fills one player's observation in place (OpenSpiel style) and decodes vectors."""

    def __init__(self, config: PutConfig, put_timing: bool = False) -> None:
        """``put_timing``: put_v2's observation (when the Put came); False: put_v1's."""
        self.config = config
        self.put_timing = put_timing
        n = self.n = config.num_players
        self.layout = observation_layout(n, config.optional_pass, config.perfect_recall, put_timing)
        self.size = sum(int(np.prod(shape)) for _, shape in self.layout)
        self.buffer = np.zeros(self.size, dtype=np.float32)
        self.views = _views(self.buffer, self.layout)
        # Flat offsets of each view, for the hot path (plain int arithmetic, one setitem each).
        off: dict[str, int] = {}
        pos = 0
        for name, shape in self.layout:
            off[name] = pos
            pos += int(np.prod(shape))
        self._off = off
        # set_from writes these fields one value at a time; the last-hand block is copied whole
        names = [name for name, _ in observation_layout(4, True) if not name.startswith("last_")]
        self._offsets = tuple(off.get(name, -1) for name in names)
        # rel[p][s]: seat s as seen from seat p.
        self._rel = tuple(tuple((s - p) % n for s in range(n)) for p in range(n))
        self._inv_target = 1.0 / config.target_points
        # The last-hand block changes once per hand: each seat's copy is built when
        # ``game.last_hand`` is a new object and then written with one slice assignment.
        self._last_start = off["last_hand"]
        self._last_end = off["last_points"] + n  # the put_v2 and recall fields come after it
        self._last_blocks = [
            np.zeros(self._last_end - self._last_start, np.float32) for _ in range(n)
        ]
        last = self._last_start
        self._last_offsets = tuple(
            off[name] - last
            for name in (
                "last_played",
                "last_trick_winner",
                "last_trick_tied",
                "last_put_caller",
                "last_put_seen",
                "last_put_folded",
                "last_points",
            )
        )
        self._last_source: list[object] = [None] * n

    def set_from(self, game: PutGame, player: int) -> np.ndarray:
        """Write ``player``'s view of ``game`` into the buffer and return the buffer."""
        b = self.buffer
        b.fill(0.0)
        (
            o_hand,
            o_played,
            o_lead,
            o_win,
            o_tied,
            o_won,
            o_cur,
            o_act,
            o_phase,
            o_caller,
            o_seen,
            o_folded,
            o_scores,
            o_dealer,
            o_passed,
            o_received,
            o_exchanged,
        ) = self._offsets
        n = self.n
        rel = self._rel[player]
        counts = game.counts[player]
        for card in game.hands[player]:
            r = PUT_RANK[card]
            b[o_hand + r] = counts[r]
        for t, s, r in game.plays:
            b[o_played + (t * n + rel[s]) * NUM_RANKS + r] = 1.0
        t = 0
        for leader, winner in game.trick_results:
            b[o_lead + t + rel[leader]] = 1.0
            if winner >= 0:
                b[o_win + t + rel[winner]] = 1.0
            else:
                b[o_tied + t // n] = 1.0
            t += n
        for s, won in enumerate(game.tricks_won):
            if won:
                b[o_won + rel[s]] = won
        phase = game.phase
        if phase != PHASE_OVER:
            t = game.trick_no
            b[o_lead + t * n + rel[game.leader]] = 1.0
            b[o_cur + t] = 1.0
            b[o_act + rel[game.current_player]] = 1.0
            b[o_phase + phase] = 1.0
        if game.put_caller >= 0:
            b[o_caller + rel[game.put_caller]] = 1.0
            if game.put_seen:
                b[o_seen] = 1.0
            for s in game.put_folded:
                b[o_folded + rel[s]] = 1.0
        scores, inv = game.scores, self._inv_target
        for s, unit in enumerate(game.unit_of):
            if scores[unit]:
                b[o_scores + rel[s]] = scores[unit] * inv
        b[o_dealer + rel[game.dealer]] = 1.0
        if o_passed >= 0:
            if game.pass_choice[player] >= 0:
                b[o_passed + game.pass_choice[player]] = 1.0
            if game.received[player] >= 0:
                b[o_received + game.received[player]] = 1.0
            if o_exchanged >= 0:
                side = player & 1
                if game.exchanged[side]:
                    b[o_exchanged] = 1.0
                if game.exchanged[1 - side]:
                    b[o_exchanged + 1] = 1.0
        last = game.last_hand
        if last is not None:
            if last is not self._last_source[player]:
                self._fill_last_hand(game, player)
            b[self._last_start : self._last_end] = self._last_blocks[player]
        if self.put_timing:
            self._fill_put_timing(game)
        if self.config.perfect_recall:
            self._fill_recall(game, player)
        return b

    def _fill_put_timing(self, game: PutGame) -> None:
        """put_v2: the trick of this hand's and the last hand's Put, and how many cards of it
        were on the table when it came (0: before the lead)."""
        v = self.views
        for prefix, record in (("", game.record), ("last_", game.last_record)):
            if record is not None and record.put_trick >= 0:
                v[f"{prefix}put_trick"][record.put_trick] = 1.0
                v[f"{prefix}put_turn"][record.put_turn] = 1.0

    def _fill_recall(self, game: PutGame, player: int) -> None:
        """The events of this hand and of the last one, oldest first: who acted and what they
        did (the Put where it came, the answers once they took effect). Another seat's pass
        choice (P8) is private: its row has the seat and ``recall_hidden``, no action."""
        v = self.views
        rel = self._rel[player]
        for prefix, record in (("", game.record), ("last_", game.last_record)):
            if record is None:
                continue
            seats, actions, hidden = (
                v[f"{prefix}recall_seat"],
                v[f"{prefix}recall_action"],
                v[f"{prefix}recall_hidden"],
            )
            for row, (seat, action, _) in enumerate(record.actions):
                seats[row, rel[seat]] = 1.0
                if PASS <= action <= PASS_NONE and seat != player:
                    hidden[row] = 1.0
                else:
                    actions[row, action] = 1.0

    def _fill_last_hand(self, game: PutGame, player: int) -> None:
        """Build ``player``'s last-hand block from ``game.last_hand`` (cards played face up,
        trick results, the Put, the points; seats relative to ``player``)."""
        plays, results, caller, seen, folded, unit, points = game.last_hand
        o_played, o_win, o_tied, o_caller, o_seen, o_folded, o_points = self._last_offsets
        b = self._last_blocks[player]
        b.fill(0.0)
        b[0] = 1.0  # last_hand: the block is set
        n, rel = self.n, self._rel[player]
        for t, s, r in plays:
            b[o_played + (t * n + rel[s]) * NUM_RANKS + r] = 1.0
        for t, (_, winner) in enumerate(results):
            if winner >= 0:
                b[o_win + t * n + rel[winner]] = 1.0
            else:
                b[o_tied + t] = 1.0
        if caller >= 0:
            b[o_caller + rel[caller]] = 1.0
            if seen:
                b[o_seen] = 1.0
            for s in folded:
                b[o_folded + rel[s]] = 1.0
        if unit >= 0:
            value = points * self._inv_target
            for s, u in enumerate(game.unit_of):
                if u == unit:
                    b[o_points + rel[s]] = value
        self._last_source[player] = game.last_hand

    def decode(self, vector: np.ndarray) -> dict:
        """A readable dict of an observation vector (seats relative to the observer)."""
        v = _views(np.asarray(vector, dtype=np.float32).reshape(-1), self.layout)

        def seat(row: np.ndarray) -> int | None:
            hits = np.flatnonzero(row)
            return int(hits[0]) if hits.size else None

        hand = [RANK_NAMES[r] for r in range(NUM_RANKS) for _ in range(round(float(v["hand"][r])))]
        tricks = []
        for t in range(TRICKS_PER_HAND):
            leader = seat(v["trick_leader"][t])
            if leader is None:
                break
            cards = {
                int(s): RANK_NAMES[int(np.argmax(v["played"][t, s]))]
                for s in range(self.n)
                if v["played"][t, s].any()
            }
            done = bool(v["trick_tied"][t]) or v["trick_winner"][t].any()
            tricks.append(
                {
                    "leader": leader,
                    "cards": cards,
                    "winner": seat(v["trick_winner"][t]),
                    "tied": bool(v["trick_tied"][t]),
                    "finished": bool(done),
                }
            )
        phase = seat(v["phase"])
        current = seat(v["current_trick"])
        out = {
            "hand": hand,
            "tricks": tricks,
            "current_trick": None if current is None else current + 1,
            "tricks_won": [round(float(x)) for x in v["tricks_won"]],
            "acting": seat(v["acting"]),
            "phase": None if phase is None else PHASE_LABELS[phase],
            "put": {
                "caller": seat(v["put_caller"]),
                "seen": bool(v["put_seen"][0]),
                "folded": [int(s) for s in np.flatnonzero(v["put_folded"])],
            },
            "scores": [round(float(x) * self.config.target_points) for x in v["scores"]],
            "dealer": seat(v["dealer"]),
        }
        if self.n == 4:
            passed, received = seat(v["passed"]), seat(v["received"])
            out["passed"] = None if passed is None else RANK_NAMES[passed]
            out["received"] = None if received is None else RANK_NAMES[received]
            if "exchanged" in v:
                out["exchanged"] = [bool(x) for x in v["exchanged"]]
        out["last_hand"] = self._decode_last_hand(v, seat) if v["last_hand"][0] else None
        if "put_trick" in v:
            for put, prefix in ((out["put"], ""), ((out["last_hand"] or {}).get("put"), "last_")):
                if put is not None:
                    trick, turn = seat(v[f"{prefix}put_trick"]), seat(v[f"{prefix}put_turn"])
                    put["trick"] = None if trick is None else trick + 1
                    put["turn"] = turn
        if "recall_seat" in v:
            out["history"] = _decode_events(v, "")
            out["last_history"] = _decode_events(v, "last_")
        return out

    def _decode_last_hand(
        self, v: dict[str, np.ndarray], seat: Callable[[np.ndarray], int | None]
    ) -> dict:
        """The finished hand's block: tricks with cards (a trick neither won nor tied was cut
        short by a folded Put), the Put, and the points per relative seat."""
        tricks = []
        for t in range(TRICKS_PER_HAND):
            played = v["last_played"][t]
            cards = {
                int(s): RANK_NAMES[int(np.argmax(played[s]))]
                for s in range(self.n)
                if played[s].any()
            }
            if not cards:
                break
            tied = bool(v["last_trick_tied"][t])
            winner = seat(v["last_trick_winner"][t])
            tricks.append(
                {
                    "cards": cards,
                    "winner": winner,
                    "tied": tied,
                    "finished": tied or winner is not None,
                }
            )
        return {
            "tricks": tricks,
            "put": {
                "caller": seat(v["last_put_caller"]),
                "seen": bool(v["last_put_seen"][0]),
                "folded": [int(s) for s in np.flatnonzero(v["last_put_folded"])],
            },
            "points": [round(float(x) * self.config.target_points) for x in v["last_points"]],
        }


def _decode_events(v: dict[str, np.ndarray], prefix: str) -> list[dict]:
    """The perfect-recall rows, oldest first: relative seat and action name (None: a pass
    whose card is private)."""
    events = []
    for seat_row, action_row, hidden in zip(
        v[f"{prefix}recall_seat"],
        v[f"{prefix}recall_action"],
        v[f"{prefix}recall_hidden"],
        strict=True,
    ):
        if not seat_row.any():
            break
        action = None if hidden else ACTION_NAMES[int(np.argmax(action_row))]
        events.append({"seat": int(np.argmax(seat_row)), "action": action})
    return events


def decode_observation(
    vector: np.ndarray, config: PutConfig | None = None, put_timing: bool = False
) -> dict:
    """Decode an observation vector of a game with ``config`` (default: two players);
    ``put_timing``: a put_v2 vector."""
    return PutObserver(config if config is not None else PutConfig(), put_timing).decode(vector)
