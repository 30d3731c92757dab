"""The env's observations at the solver's information sets, built in batches, and back.

``observations`` writes, for a batch of (node, hand) information sets of one layer and Put
state, the vectors ``PutObserver.set_from`` gives the deciding player (the one-hand game is a
match's hand at the chosen score with no finished hand before it, so the ``last_*`` block is
empty, as in a match's first hand). ``locate`` goes the other way: from what a player has seen
of a hand to the solver's information set (tests check the two against the real env).

Both observation options a model may be trained with are built too: ``put_timing`` (put_v2's
fields saying in which trick and at which turn the Put came) and ``config.perfect_recall``
(the hand's events in order). They follow the put_v1 fields, whose offsets ``_OFF`` stay valid
for every layout (the vectorised baselines read them).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from brag_env.put.observation import observation_layout
from brag_env.put.rules import FOLD, NUM_RANKS, PASS_NONE, PLAY, PUT, SEE, PutConfig
from brag_env.put.solver.tree import DEALER, DEPTH, PutTree, actor_size, other_size

_OFF: dict[str, int] = {}
_pos = 0
for _name, _shape in observation_layout(2):
    _OFF[_name] = _pos
    _pos += int(np.prod(_shape))
OBS_SIZE = _pos

PLAY_NODE, ANSWER_NODE = "play", "answer"


@functools.lru_cache(maxsize=4)
def _offsets(perfect_recall: bool, put_timing: bool) -> tuple[dict[str, int], int]:
    """Offset of every field of the heads-up layout with these options, and its size."""
    offsets, pos = {}, 0
    for name, shape in observation_layout(2, False, perfect_recall, put_timing):
        offsets[name] = pos
        pos += int(np.prod(shape))
    return offsets, pos


@dataclass(frozen=True)
class Batch:
    """Information sets of one kind: layer ``d``, Put state ``s`` (play) or an answer node."""

    d: int
    kind: str
    s: int
    nodes: np.ndarray  # (B,) node per row
    hands: np.ndarray  # (B,) hand index (actor's at play nodes, the other's at answers)


def batches(tree: PutTree, d: int, kind: str, s: int, chunk: int = 200_000) -> Iterator[Batch]:
    """Every possible information set of a kind, in chunks of about ``chunk`` rows
    (hands the public cards rule out are skipped: their deal probability is 0)."""
    w = tree.layers[d].weight
    possible = w.sum(axis=2) > 0 if kind == PLAY_NODE else w.sum(axis=1) > 0
    nodes, hands = np.nonzero(possible)
    for start in range(0, len(nodes), chunk):
        yield Batch(d, kind, s, nodes[start : start + chunk], hands[start : start + chunk])


def observations(
    tree: PutTree,
    config: PutConfig,
    score: tuple[int, int],
    batch: Batch,
    put_timing: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """(obs (B, size) float32, action masks (B, 29) int8) of the deciding player: put_v1's
    220 values, put_v2's 230 with ``put_timing``, and the event block after them with
    ``config.perfect_recall``."""
    off, obs_size = _offsets(config.perfect_recall, put_timing)
    layer = tree.layers[batch.d]
    d, nodes, b = batch.d, batch.nodes, len(batch.nodes)
    rows = np.arange(b)
    answer = batch.kind == ANSWER_NODE
    actor = layer.actor[nodes].astype(np.int64)
    me = 1 - actor if answer else actor
    seqs = layer.seqs[nodes].astype(np.int64)
    callers = layer.callers[nodes].astype(np.int64)
    obs = np.zeros((b, obs_size), np.float32)
    size = other_size(d) if answer else actor_size(d)
    counts = tree.hands.counts[size][batch.hands]
    obs[:, _OFF["hand"] : _OFF["hand"] + tree.k] = counts
    rel = lambda role: (role != me).astype(np.int64)  # noqa: E731 - seat as seen by me
    won = np.zeros((b, 2), np.int64)
    for i in range(d):
        t = i // 2
        obs[rows, _OFF["played"] + (t * 2 + rel(callers[:, i])) * NUM_RANKS + seqs[:, i]] = 1
        if i % 2 == 0:
            obs[rows, _OFF["trick_leader"] + t * 2 + rel(callers[:, i])] = 1
        else:
            lead, follow = seqs[:, i - 1], seqs[:, i]
            winner = np.where(follow < lead, callers[:, i], callers[:, i - 1])
            tied = follow == lead
            win_rows = rows[~tied]
            obs[win_rows, _OFF["trick_winner"] + t * 2 + rel(winner)[~tied]] = 1
            obs[rows[tied], _OFF["trick_tied"] + t] = 1
            won[win_rows, winner[~tied]] += 1
    if d % 2 == 0:  # the actor leads the trick about to start
        obs[rows, _OFF["trick_leader"] + (d // 2) * 2 + rel(actor)] = 1
    for role in (0, 1):
        obs[rows, _OFF["tricks_won"] + rel(np.full(b, role))] = won[:, role]
        obs[rows, _OFF["scores"] + rel(np.full(b, role))] = score[role] / config.target_points
    obs[:, _OFF["current_trick"] + d // 2] = 1
    obs[:, _OFF["acting"]] = 1
    obs[:, _OFF["phase"] + (2 if answer else 1)] = 1
    obs[rows, _OFF["dealer"] + rel(np.full(b, DEALER))] = 1
    mask = np.zeros((b, config.num_actions), np.int8)
    if answer:
        obs[:, _OFF["put_caller"] + 1] = 1
        mask[:, SEE] = mask[:, FOLD] = 1
    else:
        if batch.s > 0:
            j = batch.s - 1
            caller = callers[:, j] if j < d else actor
            obs[rows, _OFF["put_caller"] + rel(caller)] = 1
            obs[:, _OFF["put_seen"]] = 1
        else:
            mask[:, PUT] = 1
        mask[:, PLAY : PLAY + tree.k] = counts > 0
    # The Put came before card ``put_at`` (the answer: before the card the actor is about to play).
    put_at = d if answer else batch.s - 1 if batch.s > 0 else None
    if put_timing and put_at is not None:
        obs[:, off["put_trick"] + put_at // 2] = 1
        obs[:, off["put_turn"] + put_at % 2] = 1
    if config.perfect_recall:
        _fill_events(obs, off, d, put_at, not answer, callers, seqs, actor, rel)
    return obs, mask


def _fill_events(
    obs: np.ndarray,
    off: dict[str, int],
    d: int,
    put_at: int | None,
    seen: bool,
    callers: np.ndarray,
    seqs: np.ndarray,
    actor: np.ndarray,
    rel,
) -> None:
    """The perfect-recall rows of this hand as the game records them (``HandRecord.actions``):
    each card played in order, and the Put just before card ``put_at``, followed by its SEE
    once ``seen`` (at the answer node the Put is the last row). The last hand's rows stay
    empty (the first hand of a match)."""
    rows = np.arange(len(obs))
    width = PASS_NONE  # recall_action: one column per action of a two-player table
    seat_row = lambda row, role: off["recall_seat"] + row * 2 + rel(role)  # noqa: E731
    action_row = lambda row: off["recall_action"] + row * width  # noqa: E731
    for i in range(d):
        row = i if put_at is None or i < put_at else i + 2
        obs[rows, seat_row(row, callers[:, i])] = 1
        obs[rows, action_row(row) + PLAY + seqs[:, i]] = 1
    if put_at is None:
        return
    caller = callers[:, put_at] if put_at < d else actor
    obs[rows, seat_row(put_at, caller)] = 1
    obs[:, action_row(put_at) + PUT] = 1
    if seen:
        obs[rows, seat_row(put_at + 1, 1 - caller)] = 1
        obs[:, action_row(put_at + 1) + SEE] = 1


def node_index(tree: PutTree, seq: Sequence[int]) -> int:
    """Node of the layer ``len(seq)`` whose cards are ``seq`` (layers are sorted)."""
    layer = tree.layers[len(seq)]
    k = tree.k
    powers = k ** np.arange(len(seq) - 1, -1, -1, dtype=np.int64)
    codes = layer.seqs.astype(np.int64) @ powers
    code = int(np.dot(np.asarray(seq, np.int64), powers))
    at = int(np.searchsorted(codes, code))
    if at >= len(codes) or codes[at] != code:
        raise ValueError(f"no public node plays {list(seq)}")
    return at


def hand_index(tree: PutTree, counts: Sequence[int]) -> int:
    counts = np.asarray(counts[: tree.k], np.int8)
    table = tree.hands.counts[int(counts.sum())]
    return int(np.flatnonzero((table == counts).all(axis=1))[0])


def locate(
    tree: PutTree, plays: Sequence[int], put_depth: int | None, seen: bool, hand: Sequence[int]
) -> tuple[int, str, int, int, int]:
    """(d, kind, state, node, hand) of a decision: ``plays`` the ranks played so far, a Put
    called before card ``put_depth`` (None: none yet), ``seen`` whether it was seen (if not,
    the decision is the answer), ``hand`` the decider's rank counts now."""
    d = len(plays)
    if d >= DEPTH:
        raise ValueError("a hand with 6 cards played has no decision left")
    node = node_index(tree, plays)
    x = hand_index(tree, hand)
    if put_depth is None:
        return d, PLAY_NODE, 0, node, x
    if not seen:
        return d, ANSWER_NODE, 0, node, x
    return d, PLAY_NODE, 1 + put_depth, node, x
