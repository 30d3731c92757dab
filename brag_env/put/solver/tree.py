"""One hand of heads-up Put as a public tree, vectorised over private hands (pure numpy).

Suits never matter (P1), so a private hand is a multiset of ranks and the deal is a pair of
such multisets weighted by how many card deals give it (card removal). Every action is public,
so an information set is (public node, own remaining hand), and one public node carries a vector
over the hands its players may still hold.

The public tree is built in *layers*: layer ``d`` holds the sequences of ``d`` cards played
(0..6). At a layer, the player to act is the *actor* (A) and the other one the *other* (O); their
remaining hands have sizes ``actor_size(d)`` and ``other_size(d)`` whatever the seats are, which
is what lets a layer be one array. Each node of a layer exists in several Put *states*:

- state 0, *free*: nobody has called Put; the actor may call it (an *answer node* follows, where
  the other sees or folds, P4);
- state ``1 + j``, *seen at j*: a Put was called before card ``j`` by that card's player and
  seen; the stake is ``seen_put_points`` (P4, P5).

Roles: 0 is the non-dealer (who leads the first trick, P3), 1 the dealer.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations_with_replacement
from math import comb

import numpy as np

from brag_env.put.rules import CARDS_PER_HAND, NUM_SUITS

DEPTH = 2 * CARDS_PER_HAND  # 6 cards are played in a hand played out
NON_DEALER, DEALER = 0, 1


def actor_size(d: int) -> int:
    """Cards still held by the player to act at layer d (each has played one per trick)."""
    return CARDS_PER_HAND - d // 2


def other_size(d: int) -> int:
    """Cards still held by the other player at layer d (the leader of an open trick has played)."""
    return CARDS_PER_HAND - d // 2 - d % 2


def num_states(d: int) -> int:
    """Put states of layer d: free (if a card is still to play) and seen at j for j <= d."""
    return 1 + min(d + 1, DEPTH)


@dataclass
class Hands:
    """The multisets of m ranks out of k, with maps between sizes.

    ``counts[m]`` (H_m, k) rank counts; ``remove[m]`` (H_m, k): index in size m-1 of the hand
    less one card of that rank, -1 if not held; ``add[m]`` (H_m, k): index in size m+1 of the
    hand plus that rank; ``slot_rank[m]`` (H_m, m): the distinct ranks held, best first, -1
    padded; ``slot_of[m]`` (H_m, k): the slot of a rank, -1 if not held.
    """

    k: int
    counts: list[np.ndarray]
    remove: list[np.ndarray]
    add: list[np.ndarray]
    slot_rank: list[np.ndarray]
    slot_of: list[np.ndarray]

    @classmethod
    def build(cls, k: int) -> Hands:
        counts, index = [], []
        for m in range(CARDS_PER_HAND + 1):
            combos = list(combinations_with_replacement(range(k), m))
            c = np.zeros((len(combos), k), dtype=np.int8)
            for i, combo in enumerate(combos):
                for r in combo:
                    c[i, r] += 1
            counts.append(c)
            index.append({tuple(row): i for i, row in enumerate(c.tolist())})
        remove, add, slot_rank, slot_of = [], [], [], []
        for m in range(CARDS_PER_HAND + 1):
            c = counts[m]
            rem = np.full((len(c), k), -1, dtype=np.int32)
            ad = np.full((len(c), k), -1, dtype=np.int32)
            sr = np.full((len(c), max(m, 1)), -1, dtype=np.int32)
            so = np.full((len(c), k), -1, dtype=np.int32)
            for i, row in enumerate(c.tolist()):
                held = [r for r in range(k) if row[r]]
                for s, r in enumerate(held):
                    sr[i, s] = r
                    so[i, r] = s
                for r in range(k):
                    other = list(row)
                    if row[r] and m > 0:
                        other[r] -= 1
                        rem[i, r] = index[m - 1][tuple(other)]
                    if m < CARDS_PER_HAND:
                        other = list(row)
                        other[r] += 1
                        ad[i, r] = index[m + 1][tuple(other)]
            remove.append(rem)
            add.append(ad)
            slot_rank.append(sr)
            slot_of.append(so)
        return cls(k, counts, remove, add, slot_rank, slot_of)


@dataclass
class Layer:
    """The public nodes with d cards played (see the module docstring)."""

    d: int
    seqs: np.ndarray  # (N, d) int8 ranks in play order
    parent: np.ndarray  # (N,) int32 node of layer d-1
    last: np.ndarray  # (N,) int32 rank of the card that led here
    actor: np.ndarray  # (N,) int8 role to act (layer 6: meaningless)
    same: np.ndarray  # (N,) bool: the parent's actor acts again here
    won: np.ndarray  # (N, 2) tricks won by role
    played: np.ndarray  # (N, 2, k) cards played per role and rank
    callers: np.ndarray  # (N, d) int8 role that played each card (the caller of seen at j)
    starts: np.ndarray | None = None  # (N_d,) first child of each node in layer d+1
    weight: np.ndarray | None = None  # (N, Ha, Ho) deal probability of (actor hand, other hand)

    @property
    def size(self) -> int:
        return len(self.parent)


def _f_table() -> np.ndarray:
    """f[a, b]: ways to give a cards of one rank to one player and b to the other (4 suits)."""
    f = np.zeros((8, 8))
    for a in range(5):
        for b in range(5 - a):
            f[a, b] = comb(NUM_SUITS, a) * comb(NUM_SUITS - a, b)
    return f


class PutTree:
    """The layers of one heads-up hand for a deck of the top ``k`` ranks."""

    def __init__(self, k: int) -> None:
        if not 2 <= k <= 13:
            raise ValueError(f"deck_ranks must be between 2 and 13 for two players, got {k}")
        self.k = k
        self.hands = Hands.build(k)
        self.layers: list[Layer] = []
        self._build()
        self._weights()

    def _build(self) -> None:
        k = self.k
        layer = Layer(
            0,
            np.zeros((1, 0), np.int8),
            np.zeros(1, np.int32),
            np.full(1, -1, np.int32),
            np.zeros(1, np.int8),
            np.zeros(1, bool),
            np.zeros((1, 2), np.int8),
            np.zeros((1, 2, k), np.int8),
            np.zeros((1, 0), np.int8),
        )
        self.layers.append(layer)
        for d in range(DEPTH):
            total = layer.played.sum(axis=1)  # (N, k)
            parent, rank = np.nonzero(total < NUM_SUITS)  # row-major: children grouped by parent
            parent = parent.astype(np.int32)
            rank = rank.astype(np.int32)
            n = len(parent)
            mover = layer.actor[parent]
            played = layer.played[parent].copy()
            played[np.arange(n), mover, rank] += 1
            won = layer.won[parent].copy()
            if d % 2 == 0:  # a lead: the other player follows
                actor = (1 - mover).astype(np.int8)
            else:  # P3: the higher rank (lower index) wins; a tie leaves the lead with the leader
                lead = layer.seqs[parent, d - 1].astype(np.int32)
                leader = 1 - mover
                follower_wins = rank < lead
                winner = np.where(follower_wins, mover, leader)
                decided = rank != lead
                won[np.arange(n)[decided], winner[decided]] += 1
                actor = np.where(follower_wins, mover, leader).astype(np.int8)
            layer.starts = np.searchsorted(parent, np.arange(layer.size)).astype(np.int64)
            new = Layer(
                d + 1,
                np.concatenate([layer.seqs[parent], rank[:, None].astype(np.int8)], axis=1),
                parent,
                rank,
                actor,
                actor == mover,
                won,
                played,
                np.concatenate([layer.callers[parent], mover[:, None]], axis=1).astype(np.int8),
            )
            self.layers.append(new)
            layer = new

    def _weights(self) -> None:
        """Deal probabilities per node and hand pair: initial hands = held + played."""
        f = _f_table()
        k = self.k
        total = comb(NUM_SUITS * k, 3) * comb(NUM_SUITS * k - 3, 3)
        for layer in self.layers:
            d = layer.d
            xa = self.hands.counts[actor_size(d)]
            xo = self.hands.counts[other_size(d)]
            n = layer.size
            idx = np.arange(n)
            pa = layer.played[idx, layer.actor]  # (N, k)
            po = layer.played[idx, 1 - layer.actor]
            w = np.ones((n, len(xa), len(xo)))
            for r in range(k):
                a = xa[None, :, None, r] + pa[:, None, None, r]
                b = xo[None, None, :, r] + po[:, None, None, r]
                w *= f[a, b]
            layer.weight = w / total
