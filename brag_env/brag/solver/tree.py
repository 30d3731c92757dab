"""One heads-up Brag hand as an explicit tree, built by playing the real engine (``BragGame``).

The betting of a hand never depends on the cards: the legal actions, the stake, the pot and
whether a seat has looked (LOOK is public, B10) follow from the public actions alone, and the
cards matter only where hands are compared (a see, B14, or a cover, B16). So the hand is one
*public tree* (every sequence of public actions, found by playing ``BragGame`` from a stacked
deal) times the private hands: ``H`` = C(deck, 3) hands per seat, two seats' hands disjoint.

Information sets (perfect recall): a seat that has looked knows its hand and every public
action, one information set per (public node, own hand); a blind seat knows only the public
actions, one information set per public node. The chance of a deal is uniform over ordered
pairs of disjoint hands. Heads-up, a showdown's chips depend only on which hand is better (or
a tie), so each terminal keeps the engine's chip changes for the three comparisons, found by
replaying its path on a deal of each kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from math import comb

import numpy as np

from brag_env.brag.game import BLIND, BragGame
from brag_env.brag.hands import hand_strength
from brag_env.brag.rules import BragConfig
from brag_env.brag.scenario import stack_deck

MAX_PUBLIC_NODES = 200_000  # a guard: larger trees belong to other tools


def check_hand_config(config: BragConfig) -> None:
    """The one-line ``ValueError`` for options the exact one-hand tree does not cover."""
    if config.num_players != 2:
        raise ValueError(
            f"the exact Brag tree is heads-up only, got num_players={config.num_players}"
        )
    if config.hands_per_session != 1:
        raise ValueError(
            f"the exact Brag tree is one hand, got hands_per_session={config.hands_per_session}"
        )
    if config.cards_dealt != 3:
        raise ValueError(
            f"the exact Brag tree is Three-card Brag, got cards_dealt={config.cards_dealt}"
        )
    if config.prial_bonus:
        raise ValueError("the exact Brag tree does not cover prial_bonus (B20 pays by category)")
    if config.wild_cards != "none":
        raise ValueError(f"the exact Brag tree does not cover wild_cards={config.wild_cards!r}")


@dataclass
class HandTree:
    """The public tree of one heads-up hand under ``config``, ``dealer`` dealing.

    Node arrays are indexed by public node id (0 = the first decision). ``player[v]`` is the
    seat to act, -1 at a terminal. ``looked[v, s]``: seat ``s`` is open at ``v`` (knows its
    hand). ``children[v]`` lists (action, child) in action order. ``payoff[v]`` (terminals):
    seat 0's chips for (seat 0's hand better, seat 1's better, a tie); a fold's payoff is the
    same in all three.
    """

    config: BragConfig
    dealer: int
    hands: np.ndarray  # (H, 3) card ids, each sorted, in combinations order
    strength: np.ndarray  # (H,) B2-B6 strength (B21 order under lowball)
    player: list[int] = field(default_factory=list)
    looked: list[tuple[bool, bool]] = field(default_factory=list)
    children: list[list[tuple[int, int]]] = field(default_factory=list)
    path: list[tuple[tuple[int, int], ...]] = field(default_factory=list)
    payoff: dict[int, tuple[float, float, float]] = field(default_factory=dict)
    engines: dict[int, BragGame] = field(default_factory=dict)  # decision nodes, for observers

    @property
    def num_nodes(self) -> int:
        return len(self.player)

    @property
    def num_hands(self) -> int:
        return len(self.hands)

    @property
    def deal_probability(self) -> float:
        """The chance of one ordered pair of disjoint hands."""
        d = self.config.deck_size
        return 1.0 / (comb(d, 3) * comb(d - 3, 3))

    def compatible(self) -> np.ndarray:
        """(H, H) float: 1 where the two hands share no card."""
        h = self.hands
        bits = (np.int64(1) << h.astype(np.int64)).sum(axis=1)
        return ((bits[:, None] & bits[None, :]) == 0).astype(np.float64)

    def comparison(self) -> np.ndarray:
        """(H, H) int: 0 where seat 0's hand is better, 1 where seat 1's, 2 on a tie."""
        s0, s1 = self.strength[:, None], self.strength[None, :]
        return np.where(s0 > s1, 0, np.where(s0 < s1, 1, 2))

    def info_sets(self) -> int:
        """Information sets of both seats: one per blind decision node, H per open one."""
        return sum(
            (self.num_hands if self.looked[v][p] else 1)
            for v, p in enumerate(self.player)
            if p >= 0
        )

    def index_of_path(self) -> dict[tuple[tuple[int, int], ...], int]:
        return {p: v for v, p in enumerate(self.path)}


def _start(config: BragConfig, dealer: int, hands: tuple[np.ndarray, np.ndarray]) -> BragGame:
    """``BragGame`` at the start of the hand with ``hands`` dealt (a stacked deck, B9)."""
    game = BragGame(config)
    deck = stack_deck([list(map(int, hands[0])), list(map(int, hands[1]))], dealer)
    game.new_session(np.random.default_rng(0), deck=deck, dealer=dealer)
    return game


def deck_hands(config: BragConfig) -> np.ndarray:
    """Every 3-card hand of the deck, as sorted card ids in combinations order."""
    return np.array(list(combinations(config.deck_cards(), 3)), dtype=np.int64)


def _representative_deals(tree: HandTree) -> list[tuple[np.ndarray, np.ndarray] | None]:
    """A deal where seat 0's hand is better, one where seat 1's is, and a tie (None when the
    deck has no tie)."""
    compat, cmp = tree.compatible(), tree.comparison()
    out: list[tuple[np.ndarray, np.ndarray] | None] = []
    for kind in (0, 1, 2):
        where = np.argwhere((compat > 0) & (cmp == kind))
        out.append(None if not len(where) else (tree.hands[where[0, 0]], tree.hands[where[0, 1]]))
    return out


def build_tree(config: BragConfig, dealer: int = 1) -> HandTree:
    """Play every public action sequence of one hand on the engine (depth first)."""
    check_hand_config(config)
    if dealer not in (0, 1):
        raise ValueError(f"dealer must be seat 0 or 1, got {dealer!r}")
    hands = deck_hands(config)
    lowball = config.lowball
    strength = np.array([hand_strength(h.tolist(), lowball) for h in hands], dtype=np.int64)
    tree = HandTree(config, dealer, hands, strength)
    deals = _representative_deals(tree)
    first = deals[0]
    assert first is not None  # some hand always beats another
    root = _start(config, dealer, first)

    def replay(path: tuple[tuple[int, int], ...], deal) -> list[int]:
        game = _start(config, dealer, deal)
        result = None
        for _, action in path:
            result = game.apply(action)
        assert result is not None
        return result.deltas

    stack: list[tuple[BragGame, tuple[tuple[int, int], ...], int, int]] = [(root, (), -1, -1)]
    while stack:
        game, path, parent, action = stack.pop()
        v = len(tree.player)
        if v >= MAX_PUBLIC_NODES:
            raise ValueError(f"the hand has more than {MAX_PUBLIC_NODES} public nodes: too large")
        tree.path.append(path)
        if parent >= 0:
            tree.children[parent].append((action, v))
        tree.children.append([])
        if game.session_over:
            tree.player.append(-1)
            tree.looked.append((True, True))
            result = game.hand_results[-1]
            if result.shown:  # a comparison (B14 see, B16 cover): the chips by its outcome
                pay = []
                for deal in deals:
                    pay.append(0.0 if deal is None else float(replay(path, deal)[0]))
                tree.payoff[v] = (pay[0], pay[1], pay[2])
            else:
                tree.payoff[v] = (float(result.deltas[0]),) * 3
            continue
        p = game.current_player
        tree.player.append(p)
        tree.looked.append(tuple(game.status[s] != BLIND for s in (0, 1)))  # type: ignore[arg-type]
        tree.engines[v] = game
        legal = game.legal_actions()
        # children pushed in reverse so that they are numbered in action order
        for a in reversed(legal):
            child = game.copy()
            child.apply(a)
            stack.append((child, (*path, (p, a)), v, a))
    for kids in tree.children:
        kids.sort()
    return tree
