"""The Seven-card Brag observation (B24): one float32 vector with named views.

Seats are relative to the observer: row 0 is the observer, row 1 the seat to its left, and
so on round the table. n = ``num_players``. Chip amounts are divided by ``starting_chips``.

====================  ==========  =========================================================
name                  shape       contents
====================  ==========  =========================================================
``own_cards``         52          one-hot of the observer's seven cards this deal
``own_arrangements``  140 x 2     per arrangement id, the percentile (fraction of the deck's
                                  hands strictly weaker, B21 order under lowball) of its first
                                  and of its second hand: derived from the own cards only
``seat_chips``        n           stacks / starting_chips
``seat_dealer``       n           the dealer of this deal
``seat_to_act``       n           the player whose decision it is
``pot``               1           the pot (this deal's antes and any carried chips)
``deal_number``       1           deal index in the session / hands_per_session
``prev_first``        n x 52      the previous deal's shown first hands (B24), per seat
``prev_second``       n x 52      ... its second hands (discards are never shown)
``prev_first_best``   n           who held the best first hand in it (several: a tie)
``prev_second_best``  n           ... the best second hand
``prev_winner``       n           who took the pot with both (all zero: it carried or shared)
====================  ==========  =========================================================

Nothing in the vector depends on another player's cards of the current deal or on any
arrangement made this deal: the ``prev_*`` views hold only what the previous showdown showed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from brag_env.brag.hands import hand_strength_batch, strength_percentile
from brag_env.brag7.game import Brag7Game
from brag_env.brag7.rules import NUM_ARRANGEMENTS, Brag7Config, arrangement_hands
from brag_env.cards import NUM_CARDS, format_cards


def layout_fields(config: Brag7Config) -> list[tuple[str, tuple[int, ...]]]:
    """The named views, in vector order, with their shapes."""
    n = config.num_players
    return [
        ("own_cards", (NUM_CARDS,)),
        ("own_arrangements", (NUM_ARRANGEMENTS, 2)),
        ("seat_chips", (n,)),
        ("seat_dealer", (n,)),
        ("seat_to_act", (n,)),
        ("pot", (1,)),
        ("deal_number", (1,)),
        ("prev_first", (n, NUM_CARDS)),
        ("prev_second", (n, NUM_CARDS)),
        ("prev_first_best", (n,)),
        ("prev_second_best", (n,)),
        ("prev_winner", (n,)),
    ]


def observation_size(config: Brag7Config) -> int:
    return sum(int(np.prod(shape)) for _, shape in layout_fields(config))


def observation_high(config: Brag7Config) -> np.ndarray:
    """Upper bounds: every chip at one seat (n stacks) for chips and pot, 1 elsewhere."""
    high = np.ones(observation_size(config), dtype=np.float32)
    views = _views(high, config)
    views["seat_chips"][:] = config.num_players
    views["pot"][:] = config.num_players
    return high


def _views(buffer: np.ndarray, config: Brag7Config) -> dict[str, np.ndarray]:
    views, at = {}, 0
    for name, shape in layout_fields(config):
        size = int(np.prod(shape))
        views[name] = buffer[at : at + size].reshape(shape)
        at += size
    return views


def arrangement_percentiles(cards: list[int], config: Brag7Config) -> np.ndarray:
    """float [140, 2]: the percentiles of each arrangement's first and second hand."""
    first, second = arrangement_hands(cards)
    both = np.stack((first, second), axis=1)  # [140, 2, 3]
    strengths = hand_strength_batch(both, config.lowball).astype(np.int64)
    return strength_percentile(strengths, config.lowball, config.deck_ranks)


class Brag7Observer:
    """Fills one buffer for a seat (``set_from``); ``observation`` returns a copy."""

    def __init__(self, config: Brag7Config) -> None:
        self.config = config
        self.buffer = np.zeros(observation_size(config), dtype=np.float32)
        self.views = _views(self.buffer, config)
        # cards of a deal -> its percentiles (each seat's deal is looked at many times)
        self._cache: dict[tuple[int, ...], np.ndarray] = {}

    def set_from(self, game: Brag7Game, player: int) -> np.ndarray:
        cfg, v, n = self.config, self.views, self.config.num_players
        self.buffer[:] = 0.0
        order = [(player + k) % n for k in range(n)]  # relative seat k -> absolute seat
        scale = float(cfg.starting_chips)
        if game.hands:  # a session has been dealt (the last deal's cards stay after the end)
            cards = game.hands[player]
            v["own_cards"][cards] = 1.0
            key = tuple(cards)
            table = self._cache.get(key)
            if table is None:
                if len(self._cache) > 64:
                    self._cache.clear()
                table = self._cache[key] = arrangement_percentiles(cards, cfg)
            v["own_arrangements"][:] = table
        if game.chips:
            v["seat_chips"][:] = [game.chips[s] / scale for s in order]
            v["seat_dealer"][order.index(game.dealer)] = 1.0
            if game.current_player >= 0:
                v["seat_to_act"][order.index(game.current_player)] = 1.0
            v["pot"][0] = game.pot / scale
            v["deal_number"][0] = game.hand_number / cfg.hands_per_session
        # The previous showdown: during a session the last result; after the session's end
        # the last deal is the current one and its result is shown the same way.
        prev = game.last_result
        if prev is not None:
            for k, s in enumerate(order):
                v["prev_first"][k, list(prev.first_hands[s])] = 1.0
                v["prev_second"][k, list(prev.second_hands[s])] = 1.0
            for s in prev.first_best:
                v["prev_first_best"][order.index(s)] = 1.0
            for s in prev.second_best:
                v["prev_second_best"][order.index(s)] = 1.0
            if prev.winner >= 0:
                v["prev_winner"][order.index(prev.winner)] = 1.0
        return self.buffer

    def observation(self, game: Brag7Game, player: int) -> np.ndarray:
        return self.set_from(game, player).copy()


def decode_observation(vector: Any, config: Brag7Config) -> dict[str, Any]:
    """A readable dict of an observation vector (relative seats, chips in chips)."""
    vec = np.asarray(vector, dtype=np.float32)
    if vec.shape != (observation_size(config),):
        raise ValueError(
            f"a brag7 observation has {observation_size(config)} values for this config, "
            f"got shape {vec.shape}"
        )
    v = _views(vec, config)
    scale = config.starting_chips

    def cards(row: np.ndarray) -> str:
        return format_cards(np.flatnonzero(row > 0.5).tolist(), symbols=False)

    def seats(row: np.ndarray) -> list[int]:
        return np.flatnonzero(row > 0.5).tolist()

    return {
        "own_cards": cards(v["own_cards"]),
        "own_arrangements": v["own_arrangements"].tolist(),
        "seat_chips": [round(float(x) * scale) for x in v["seat_chips"]],
        "dealer": seats(v["seat_dealer"]),
        "to_act": seats(v["seat_to_act"]),
        "pot": round(float(v["pot"][0]) * scale),
        "deal_number": round(float(v["deal_number"][0]) * config.hands_per_session),
        "prev_first": [cards(r) for r in v["prev_first"]],
        "prev_second": [cards(r) for r in v["prev_second"]],
        "prev_first_best": seats(v["prev_first_best"]),
        "prev_second_best": seats(v["prev_second_best"]),
        "prev_winner": seats(v["prev_winner"]),
    }
