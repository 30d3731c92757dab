"""
# Put

| Import             | `from brag_env import put_v1`                                      |
|--------------------|--------------------------------------------------------------------|
| Actions            | Discrete                                                           |
| Parallel API       | No                                                                 |
| Manual Control     | No                                                                 |
| Agents             | `agents= ['player_0', 'player_1']` (default)                       |
| Agents             | 2, 3 or 4 (`num_players`; 4 = two partnerships)                    |
| Action Shape       | Discrete(29); Discrete(30) for 4 players with an optional pass     |
| Action Values      | 0 .. num_actions - 1                                               |
| Observation Shape  | (220,) for 2 players, (316,) for 3, (440,) for 4; float32          |
| Observation Values | [0, max(3, (target_points - 1 + seen_put_points) / target_points)] |

Put is a sixteenth-century English tavern game, an ancestor of poker: three cards each, three
tricks without trumps, and the call "Put!" that dares the opponent to play the hand for double
stakes or give up a point. Cards rank 3 2 A K Q J 10 9 8 7 6 5 4 (the 3 is highest, suits never
count); two cards of equal rank tie a trick, and the same player leads again. Taking more tricks
than the opponent wins the hand, worth 1 point (2 after a seen Put); the first to reach
`target_points` wins the match.
The rules are the project's rules document `seeds/rules/put.md` (rule IDs P1..P9).

One episode is one match. Agents are "player_0" .. "player_{n-1}" in seat order; the seat to
the left of seat k is seat k+1 (wrapping). Dealing, the first lead and (with four players) the
pass start at the dealer's left, and the deal passes to the left after every hand.

### Action Space

| Action ID | Name                 | Meaning                                                      |
|:---------:|----------------------|--------------------------------------------------------------|
| 0 .. 12   | `play_3` .. `play_4` | play a card of that rank: 3 2 A K Q J 10 9 8 7 6 5 4 (P3)    |
| 13        | `put`                | call Put before playing one's card, once per hand (P4)       |
| 14        | `see`                | accept a Put: play on for `seen_put_points` (P4)             |
| 15        | `fold`               | refuse a Put: the caller scores 1 and the hand ends (P4)     |
| 16 .. 28  | `pass_3` .. `pass_4` | four players: pass a card of that rank to one's partner (P8) |
| 29        | `pass_none`          | four players: pass nothing (P8; only if "optional")          |

`env.unwrapped.action_names` lists the names by id. A card is named by rank only: with two
cards of one rank, which of them leaves the hand does not matter in play.

### Observation Space

The observation is a dict: `"observation"` is a float32 vector of what the player knows and
`"action_mask"` an int8 vector with a 1 for each legal action (all zeros for a player whose turn
it is not; the mask array is shared and read-only). Seats are relative to the observer (0 is the
observer, 1 the next seat to its left, ...); n = `num_players`:

| Name                | Size       | Contents                                                |
|---------------------|------------|---------------------------------------------------------|
| `hand`              | 13         | own cards: count per rank, 3 first, 4 last              |
| `played`            | 3 x n x 13 | the rank played by each seat in each trick of this hand |
| `trick_leader`      | 3 x n      | who led each trick so far                               |
| `trick_winner`      | 3 x n      | who took each finished trick                            |
| `trick_tied`        | 3          | each finished trick that tied                           |
| `tricks_won`        | n          | tricks taken this hand                                  |
| `current_trick`     | 3          | the trick in play                                       |
| `acting`            | n          | whose decision it is                                    |
| `phase`             | 3          | pass (4 players) / play / answer a Put                  |
| `put_caller`        | n          | who called Put this hand                                |
| `put_seen`          | 1          | the Put was seen                                        |
| `put_folded`        | n          | who folded to it so far (three players)                 |
| `scores`            | n          | match score / `target_points` (4 players: the side's)   |
| `dealer`            | n          | this hand's dealer                                      |
| `passed`            | 13         | 4 players only: the rank one passed to one's partner    |
| `received`          | 13         | 4 players only: the rank received from one's partner    |
| `exchanged`         | 2          | 4 players, optional pass: own / other side swapped      |
| `last_hand`         | 1          | a hand of this match has finished (`last_*` are set)    |
| `last_played`       | 3 x n x 13 | last hand: rank each seat played in each trick          |
| `last_trick_winner` | 3 x n      | last hand: who took each trick                          |
| `last_trick_tied`   | 3          | last hand: each trick that tied                         |
| `last_put_caller`   | n          | last hand: who called Put                               |
| `last_put_seen`     | 1          | last hand: the Put was seen                             |
| `last_put_folded`   | n          | last hand: who folded to it                             |
| `last_points`       | n          | last hand: points of each seat's side / `target_points` |

A hand's last card is played and the next hand dealt in the same step, so the `last_*` block
is how every player learns how a hand ended (the final trick, a fold, the points). It holds
only cards that were played face up: the cards left in hand when a Put was folded stay hidden.
Scores are divided by `target_points`; a seen Put won one point short of the target can take
a score above 1, hence the upper bound in the table: 3 (card counts, tricks) with the default
options and with `seen_put_points="game"`, more when `seen_put_points` exceeds
`2 * target_points + 1` (`observation_space(agent)["observation"].high` holds the bound).

Three players (P7, `put_answers="simultaneous"`): both opponents answer a Put, the caller's
left first; `put_seen` and `put_folded` (and the render and the record) show neither answer
until both are in, so the second answerer's observation does not depend on the first answer.
Four players (P8, `partner_exchange="optional"`): a player who keeps a chosen card because
the partner passed nothing still has it in `hand` and in `passed`, with `received` clear.

No vector holds another player's unplayed cards. `put_v1.decode_observation(vector, config)`
turns a vector into a readable dict; `brag_env.put.observation` documents the layout.

With `perfect_recall=True` six fields are appended after everything above (every other field
keeps its place): every event of this hand and of the last hand, oldest first, one row each
(L = 8 rows with two players, 12 with three, 18 with four; A = the number of actions):

| Name                 | Size  | Contents                                                    |
|----------------------|-------|-------------------------------------------------------------|
| `recall_seat`        | L x n | this hand's events in order: who acted                      |
| `recall_action`      | L x A | ... the action: each card, the Put where it came, answers   |
| `recall_hidden`      | L     | ... another seat chose its pass card (P8; the card unseen)  |
| `last_recall_*`      |       | the same three for the last finished hand                   |

So the player knows when a Put was called (before which card of which trick), which the
default vector does not say. Sizes: 732 (2 players), 1108 (3), 1700 (4). Answers appear
when they take effect (P7 simultaneous: both at once, as in the rest of the vector).

### Rewards

With `reward="match"` (default) rewards come only at the end of the match:

| Players | Winner(s)       | Others            |
|:-------:|:---------------:|:-----------------:|
| 2       | +1              | -1                |
| 3       | +1              | -1/2 each         |
| 4       | +1 each partner | -1 each           |

With `reward="points"` each hand's points are given when the hand is scored, zero-sum: the
scorer gets +p and the opponent -p (two players); with three players the two others get -p/2
each; with four players both partners get +p and both opponents -p. With `env()`, an illegal
action ends the episode at once with -1 for the offender and 0 for the others; with `raw_env()`
it raises `ValueError`.

### Arguments

`put_v1.env(**options)` and `put_v1.raw_env(**options)` take every field of
`brag_env.put.PutConfig` as a keyword (or `config=PutConfig(...)`), plus the render options:

| Argument               | Default        | Meaning                                                |
|------------------------|----------------|--------------------------------------------------------|
| `num_players`          | 2              | 2 (P2-P6), 3 (P7) or 4 in partnerships (P8)            |
| `target_points`        | 5              | points that win the match (P6); 7 is the longer game   |
| `seen_put_points`      | 2              | a seen Put's value (P4); "game": its winner takes all  |
| `put_draw_to_opponent` | False          | 2 players: drawn after a seen Put, opponent scores 1   |
| `deck_ranks`           | 13             | deal from the k best ranks only, 4 suits each (P1)     |
| `put_answers`          | "simultaneous" | 3 players (P7): both answer unseen; "in_turn"          |
| `partner_exchange`     | "optional"     | 4 players (P8): may pass nothing; "always"             |
| `reward`               | "match"        | "match" (result at the end), "points" (hand by hand)   |
| `perfect_recall`       | False          | observation: every event of this and the last hand     |
| `render_mode`          | None           | "ansi" (returns the table) or "human" (prints it)      |
| `reveal_cards`         | False          | render every hand, not only the public view            |
| `keep_histories`       | None           | hands whose history the match keeps: all, 0, or K      |

A bad value raises `ValueError` naming the field. `reset(seed=..., options=...)` accepts
`options={"deck": "As 2s 3s ...", "dealer": k}`: the cards (text, or a list of card text or
ints 0..51) are stacked on top of the first hand's deck (top card first, dealt one at a time
from the dealer's left, P2) and seat k deals first (else a seeded cut, P2). Every hand is dealt
from a fresh shuffle, so a stacked deck holds only the FIRST hand's cards: at most 3 per player;
the rest of that deck and every later hand are shuffled from the seed. Any other `deck` (a
number, too many cards, a bad or repeated card) is a one-line `ValueError` naming `deck`.
The same seed gives the same match. `env.unwrapped.hand_histories()` returns the JSON hand
histories of the match (with `keep_histories=K` only the last K; `len(game.records)` still
counts them all); `brag_env.put.replay_hand` plays one again.

Importing this module registers the env with PettingZoo's registry (`brag_env.registry`), so
`pettingzoo.make("aec", "brag_env/put_v1", num_players=3)` equals `put_v1.env(num_players=3)`.

### Version History

* v1 (later, no game change): a numpy bool option is accepted as numpy integers already
  were, through the checks Brag shares (`brag_env.config_checks`); nothing that was accepted
  before is refused, so no version change.
* v1: (added option, default off, so no version change) `perfect_recall`: every event of this
  and the last hand appended to the observation.
* v1: the seed's variants as defaults. Three players: both opponents answer a Put without
  knowing the other's answer (`put_answers="simultaneous"`, P7). Four players: a player may
  pass nothing, and partners swap only when both chose a card (`partner_exchange="optional"`,
  P8): with four players a 30th action `pass_none` and the 2-value `exchanged` view (440
  values). A non-card `deck` reset option is a `ValueError` (was a `TypeError`). Two-player
  play is unchanged from v0. Added option `deck_ranks` (default 13, the full pack, which plays
  exactly as before): a short pack of the k best ranks, small enough for the exact solver
  (`docs/solver.md`); `put_v0` takes it too.
* v0: initial release (still unreleased: the observation gained the `last_*` block, so its
  size grew from 125/176/253 to 220/316/438 values). Kept as `brag_env.put_v0`: the v0 rules
  exactly (`put_answers="in_turn"`, `partner_exchange="always"`, 29 actions).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from brag_env.aec_wrappers import FastOrderEnforcingWrapper, classic_wrap
from brag_env.put.game import PutGame
from brag_env.put.observation import PutObserver, observation_high
from brag_env.put.observation import decode_observation as _decode
from brag_env.put.render import render_table
from brag_env.put.rules import ACTION_NAMES, PutConfig, hand_rewards, match_rewards
from brag_env.table_env import CardTableEnv, TableSpec

__all__ = ["decode_observation", "env", "raw_env"]

ILLEGAL_REWARD = -1.0


def env(**kwargs: Any) -> FastOrderEnforcingWrapper:
    """Put wrapped as PettingZoo's classic envs are: an illegal action ends the match with
    -1 for the offender, out-of-bounds actions are asserted, call order is enforced."""
    return classic_wrap(raw_env(**kwargs), illegal_reward=ILLEGAL_REWARD)


def decode_observation(vector: np.ndarray, config: PutConfig | None = None) -> dict:
    """A readable dict of an observation vector of a game with ``config`` (default 2 players)."""
    return _decode(vector, config)


class raw_env(CardTableEnv):
    """Put as a PettingZoo AEC env, without wrappers (see the module docstring).

    The AEC plumbing (spaces, reset options, step order, rewards, render) is
    ``brag_env.table_env.CardTableEnv``; this class connects it to ``PutGame``."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "put_v1",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
    }
    config_class = PutConfig
    put_timing: ClassVar[bool] = False  # put_v2 adds when the Put came to the observation
    episode_word = "match"
    history_lists = (("records", 0),)  # keep_histories bounds the match's hand records

    config: PutConfig
    game: PutGame

    def _make_game(self, config: PutConfig) -> TableSpec:
        self.game = PutGame(config)
        self._make_observers(config)
        self._points_reward = config.reward == "points"
        names = list(ACTION_NAMES[: config.num_actions])
        return TableSpec(names, self.observer.size, observation_high(config))

    def _make_observers(self, config: PutConfig) -> None:
        self.observer = PutObserver(config, self.put_timing)

    def _new_game(
        self, rng: np.random.Generator, deck: str | Sequence[Any] | None, dealer: Any
    ) -> None:
        self.game.new_session(rng, deck=deck, dealer=dealer)

    def _rewards(self, outcome: tuple[int, int]) -> list[float] | None:
        # A hand scored: (scoring unit, points).
        if self._points_reward:
            return self._points(*outcome)
        return self._match_result() if self.game.session_over else None

    def _points(self, unit: int, points: int) -> list[float]:
        """reward="points": the scorer's gain is shared out as a loss by the others."""
        return hand_rewards(self.config, unit, points)

    def _match_result(self) -> list[float]:
        """reward="match": +1 for each winner, -1 for each loser (-1/2 with three players)."""
        return match_rewards(self.config, self.game.winners())

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._observed_seat(agent)
        game = self.game
        observation = self.observer.set_from(game, seat).copy()
        # No legal action for a terminated agent (as in brag_v0): env() ends the match on an
        # illegal move with the engine still mid-hand.
        if seat == game.current_player and not self.terminations.get(agent, True):
            mask = game.legal_mask()
        else:
            mask = self._no_mask
        return {"observation": observation, "action_mask": mask}

    def _render_text(self) -> str:
        return render_table(self.game, self.possible_agents, reveal=self.reveal_cards)

    def hand_histories(self) -> list[dict]:
        """JSON-serialisable histories of the hands finished so far in this match."""
        return self.game.history()
