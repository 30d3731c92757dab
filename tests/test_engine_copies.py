"""``copy()`` of the three engines (BragGame, PutGame, Brag7Game): a copy taken mid-session
plays on by itself, leaving the original as it was, and a copy given the same decisions as
the original plays the same session, deal for deal (its generator is copied, not shared).

The engines' state is compared through what a player or a tool can read of it: the seat to
act, the legal mask, every seat's observation, the chips or scores, the finished hands'
histories and the hand in play.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from copy import deepcopy
from operator import attrgetter
from typing import Any

import numpy as np
import pytest

from brag_env import brag7_v0, brag_v1, put_v1
from brag_env.brag.game import BragGame
from brag_env.brag.observation import BragObserver
from brag_env.brag.rules import BragConfig
from brag_env.brag7.game import Brag7Game
from brag_env.brag7.observation import Brag7Observer
from brag_env.brag7.rules import Brag7Config
from brag_env.put.game import PutGame
from brag_env.put.observation import PutObserver
from brag_env.put.rules import PutConfig
from brag_env.recent import RecentList

Fingerprint = Callable[[Any], tuple]


def fingerprint(observer: Any, num_players: int, *more: Callable[[Any], Any]) -> Fingerprint:
    """What a player or a tool reads of a game: the seat to act, the legal mask, the hand
    number, every seat's observation, the finished hands, and ``more`` of each engine."""

    def read(game: Any) -> tuple:
        return (
            game.current_player,
            np.asarray(game.legal_mask(), np.int8).tobytes(),
            game.hand_number,
            [observer.set_from(game, s).tobytes() for s in range(num_players)],
            game.history(),
            *(deepcopy(part(game)) for part in more),  # a snapshot, not the live list
        )

    return read


def in_play(game: PutGame) -> dict | None:
    """The record of the Put hand being played (finished hands are in ``history()``)."""
    return game.record.to_dict() if game.record is not None else None


def brag(config: BragConfig) -> tuple[Any, Fingerprint, tuple]:
    game = BragGame(config)
    game.new_session(7)
    more = (attrgetter("chips"), attrgetter("betting"), attrgetter("deck_cards"))
    read = fingerprint(BragObserver(config), config.num_players, *more)
    return game, read, brag_v1.raw_env.history_lists


def put(config: PutConfig) -> tuple[Any, Fingerprint, tuple]:
    game = PutGame(config)
    game.new_session(np.random.default_rng(7))
    read = fingerprint(PutObserver(config), config.num_players, attrgetter("scores"), in_play)
    return game, read, put_v1.raw_env.history_lists


def brag7(config: Brag7Config) -> tuple[Any, Fingerprint, tuple]:
    game = Brag7Game(config)
    game.new_session(7)
    more = (attrgetter("chips"), attrgetter("pot"))
    read = fingerprint(Brag7Observer(config), config.num_players, *more)
    return game, read, brag7_v0.raw_env.history_lists


ENGINES = {
    "brag-3": lambda: brag(BragConfig(num_players=3, hands_per_session=4)),
    "brag-keep-hand": lambda: brag(
        BragConfig(num_players=2, hands_per_session=8, blind_keep_hand=True)  # B19
    ),
    "brag-four-card": lambda: brag(
        BragConfig(num_players=3, hands_per_session=4, cards_dealt=4, allow_blind=False)
    ),
    "put-2": lambda: put(PutConfig(num_players=2, target_points=3)),
    "put-3": lambda: put(PutConfig(num_players=3, target_points=3)),
    "put-4": lambda: put(PutConfig(num_players=4, target_points=3)),
    "brag7-3": lambda: brag7(Brag7Config(num_players=3, hands_per_session=4)),
}


def play(game: Any, pick: random.Random, steps: int | None = None) -> None:
    """Random legal decisions: ``steps`` of them, or to the end of the session."""
    while game.current_player >= 0 and (steps is None or steps > 0):
        legal = game.legal_actions()
        game.apply(legal[pick.randrange(len(legal))])
        steps = None if steps is None else steps - 1


def play_out(game: Any, pick: random.Random, read: Fingerprint) -> list[tuple]:
    """What can be read of ``game`` after each decision, to the end of the session."""
    seen = []
    while game.current_player >= 0:
        legal = game.legal_actions()
        game.apply(legal[pick.randrange(len(legal))])
        seen.append(read(game))
    return seen


@pytest.mark.parametrize("keep", [None, 2], ids=["all hands kept", "keep_histories=2"])
@pytest.mark.parametrize("name", list(ENGINES))
def test_a_copy_diverges_independently_and_replays_identically(name: str, keep: int | None):
    game, read, history_lists = ENGINES[name]()
    if keep is not None:  # as the env does: its lists count every hand but keep the last few
        for attribute, least in history_lists:
            setattr(game, attribute, RecentList(max(keep, least)))
    play(game, random.Random(1), steps=9)
    assert game.current_player >= 0, "the prefix must leave the session running"
    before = read(game)

    twin = game.copy()
    assert read(twin) == before
    other = play_out(twin, random.Random(2), read)  # the copy's own decisions
    assert other, "the copy played on"
    assert read(game) == before, "the copy's decisions changed the original"

    again = game.copy()
    ours = play_out(game, random.Random(3), read)
    assert read(again) == before, "the original's decisions changed a copy"
    assert play_out(again, random.Random(3), read) == ours  # the same decisions, the same play
    assert ours != other


@pytest.mark.parametrize("name", list(ENGINES))
def test_a_copy_at_the_start_and_at_the_end_of_a_session(name: str):
    game, read, _ = ENGINES[name]()
    start = game.copy()
    play(game, random.Random(4))
    assert game.current_player == -1
    end = game.copy()
    assert read(end) == read(game)
    assert play_out(start, random.Random(4), read)[-1] == read(game)


def test_a_copy_keeps_the_lists_the_original_shares():
    """A list the engine reaches by two names is one list in the copy too (BragGame's dealt
    hands are its hands until a B19 choice or a B22 discard replaces one), so a later change
    through one name shows through the other, as in the original."""
    game = BragGame(BragConfig(num_players=3))
    game.new_session(7)
    assert game._dealt is game.hands
    twin = game.copy()
    assert twin._dealt is twin.hands
    assert twin.hands is not game.hands and twin.hands[0] is not game.hands[0]


def test_a_put_copy_keeps_the_last_hand_on_its_own_lists():
    """At the end of a hand PutGame's ``last_hand`` holds the hand's lists (the cards played,
    the trick results, the seats that folded), which are still the game's own until the next
    deal: the copy's holds the copy's lists, the same one by both names, and a later hand's
    (whose lists no longer change) is shared."""
    game = PutGame(PutConfig(num_players=3, target_points=9), deal_between_hands=False)
    game.new_session(np.random.default_rng(5))
    rnd = random.Random(5)
    while not game.awaiting_deal:
        game.apply(rnd.choice(game.legal_actions()))
    assert game.last_hand is not None and game.last_hand[0] is game.plays
    twin = game.copy()
    assert twin.last_hand == game.last_hand and twin.plays is not game.plays
    for name, i in (("plays", 0), ("trick_results", 1), ("put_folded", 4)):
        assert twin.last_hand[i] is getattr(twin, name), name
    twin.deal_next_hand(list(range(9)))
    twin.apply(twin.legal_actions()[0])
    later = twin.copy()
    assert later.last_hand is twin.last_hand and later.plays is not twin.plays
