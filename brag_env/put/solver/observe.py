"""The env's observations at the solver's information sets, built in batches, and back.

``observations`` writes, for a batch of (node, hand) information sets of one layer and Put
state, the vectors ``PutObserver.set_from`` gives the deciding player (the one-hand game is a
match's hand at the chosen score with no finished hand before it, so the ``last_*`` block is
empty, as in a match's first hand). ``locate`` goes the other way: from what a player has seen
of a hand to the solver's information set (tests check the two against the real env).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from brag_env.put.observation import observation_layout
from brag_env.put.rules import FOLD, NUM_RANKS, PLAY, PUT, SEE, PutConfig
from brag_env.put.solver.tree import DEALER, DEPTH, PutTree, actor_size, other_size

_OFF: dict[str, int] = {}
_pos = 0
for _name, _shape in observation_layout(2):
    _OFF[_name] = _pos
    _pos += int(np.prod(_shape))
OBS_SIZE = _pos

PLAY_NODE, ANSWER_NODE = "play", "answer"


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
    tree: PutTree, config: PutConfig, score: tuple[int, int], batch: Batch
) -> tuple[np.ndarray, np.ndarray]:
    """(obs (B, 220) float32, action masks (B, 29) int8) of the deciding player."""
    layer = tree.layers[batch.d]
    d, nodes, b = batch.d, batch.nodes, len(batch.nodes)
    rows = np.arange(b)
    answer = batch.kind == ANSWER_NODE
    actor = layer.actor[nodes].astype(np.int64)
    me = 1 - actor if answer else actor
    seqs = layer.seqs[nodes].astype(np.int64)
    callers = layer.callers[nodes].astype(np.int64)
    obs = np.zeros((b, OBS_SIZE), np.float32)
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
    return obs, mask


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
