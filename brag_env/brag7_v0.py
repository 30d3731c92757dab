"""
# Seven-card Brag

| Import             | `from brag_env import brag7_v0`                                     |
|--------------------|---------------------------------------------------------------------|
| Creation           | `pettingzoo.make("aec", "brag_env/brag7_v0")` (see `brag_env.registry`) |
| Actions            | Discrete                                                            |
| Parallel API       | No                                                                  |
| Manual Control     | No                                                                  |
| Agents             | `agents= ['player_0', 'player_1', 'player_2', 'player_3']` (default) |
| Agents             | 2 to 7 (`num_players`, default 4)                                   |
| Action Shape       | Discrete(140)                                                       |
| Action Values      | 0 .. 139: one id per arrangement of the seven cards                |
| Observation Shape  | (554 + 110 (n - 2),) float32: 774 for 4 players                    |
| Observation Values | [0, num_players] for chip amounts, [0, 1] for everything else       |

Seven-card Brag (rule B24 of the project's rules document `seeds/rules/brag.md`) has no
betting. Every player antes, receives seven cards and splits them, face down, into a first
three-card hand, a second three-card hand and one discard. Then all first hands are compared
with the usual Brag ranking (B2-B6; reversed with `lowball`, B21), and all second hands. A
player whose first hand AND second hand are both the best at the table, with nobody equal in
either, wins the pot. Without such a player nobody is paid: the chips wait in the middle and
the next deal's antes join them. The episode runs `hands_per_session` deals (10 unless set); a
pot still standing after the last deal is shared equally, the chips that do not divide going
one each to the seats from the dealer's left onwards.

Agents are "player_0" .. "player_{n-1}" in seat order; the seat to the left of seat k is k+1
(wrapping). The first dealer is drawn by a seeded cut (highest card, B7) and the button moves
one seat left each deal. The dealer's left-hand neighbour arranges first and the dealer last,
one decision each per deal; nobody sees anything of the arrangements made before theirs.

### Action Space

Action `4 f + s` (named `arrange_f_s`) arranges the player's seven cards, SORTED by card id
(rank, then suit: the order of `own_cards`), at positions 0..6:

* `f` (0..34) picks the first hand: the f-th position triple of
  `itertools.combinations(range(7), 3)` (0 = the three lowest cards, 34 = the three highest);
* `s` (0..3) picks the second hand among the four remaining positions in ascending order
  r0 < r1 < r2 < r3: the s-th triple of `combinations((r0, r1, r2, r3), 3)`, so s = 0 discards r3
  and s = 3 discards r0.

`brag_env.brag7.rules.arrangement(action, cards)` gives (first, second, discard) and
`arrangement_id(first, second, cards)` the id back. Every id is legal at every decision: the
mask is all ones for the player to act. Nothing forces the better of the two hands into the
first place: any order is legal.

### Observation Space

A dict: `"observation"` is a float32 vector, `"action_mask"` an int8 vector of 140 (all ones
for the player to act, all zeros for everyone else; shared and read-only). Seats are relative
to the observer (row 0 is the observer, row 1 the seat to its left, ...), n = `num_players`,
chips divided by `starting_chips`:

| Name               | Size    | Contents                                                      |
|--------------------|---------|---------------------------------------------------------------|
| `own_cards`        | 52      | one-hot of the observer's seven cards of this deal            |
| `own_arrangements` | 140 x 2 | per action id: percentile of its first and its second hand    |
| `seat_chips`       | n       | stacks                                                        |
| `seat_dealer`      | n       | the dealer                                                    |
| `seat_to_act`      | n       | the player whose decision it is                               |
| `pot`              | 1       | the pot: this deal's antes and the chips carried into it      |
| `deal_number`      | 1       | deal index in the session / hands_per_session                 |
| `prev_first`       | n x 52  | the previous deal's first hands, as shown at its showdown     |
| `prev_second`      | n x 52  | ... its second hands (a discard is never shown)               |
| `prev_first_best`  | n       | who held the best first hand then (more than one: a tie)      |
| `prev_second_best` | n       | ... the best second hand                                      |
| `prev_winner`      | n       | who won both and took the pot (all zero: no scoop)            |

A percentile is the fraction of the deck's three-card hands strictly weaker (in the lowball
order with `lowball`, among the short deck's hands with `deck_ranks`): it is computed from the
observer's own cards only. No vector holds another player's cards of the current deal or any
arrangement made during it; after the session's last deal every observation shows that
deal's showdown. `brag7_v0.decode_observation(vector, config)` turns a vector into a readable
dict; `brag_env.brag7.observation` documents the layout.

### Rewards

When a deal ends (after the last arrangement), every player receives its chip change for that
deal: minus its ante, plus the pot if it won both hands, plus its share of the pot if the
session ended with the pot standing. A carried pot counts against the deals that left it and
for the deal that wins or shares it, so the rewards of every episode sum to zero. The episode
ends after `hands_per_session` deals; then all agents are terminated. With `env()`, an action
outside 0..139 is an `AssertionError` (`ActionSpaceError`) naming the agent and the value;
with `raw_env()` it is a `ValueError`. Stepping a finished episode asks for `reset()`.

### Arguments

`brag7_v0.env(**options)` and `brag7_v0.raw_env(**options)` take every field of
`brag_env.brag7.rules.Brag7Config` as a keyword (or `config=Brag7Config(...)`), plus:

| Argument             | Default | Meaning                                                    |
|----------------------|---------|------------------------------------------------------------|
| `num_players`        | 4       | 2 to 7 (B24)                                               |
| `ante`               | 1       | chips each player puts in every deal (at least 1)          |
| `hands_per_session`  | 10      | deals per episode (B24)                                    |
| `starting_chips`     | 200     | stacks; must cover `ante * hands_per_session`             |
| `lowball`            | False   | B21: the ranking reversed, for both hands                  |
| `deck_ranks`         | 13      | B1: the k highest ranks only (7 cards per player must fit) |
| `render_mode`        | None    | "ansi" (returns the table) or "human" (prints it)          |
| `reveal_cards`       | False   | render every player's seven cards, not only the public view |
| `keep_histories`     | None    | deals whose results the session keeps: all, or the last K  |

A bad value raises `ValueError` naming the field. `reset(seed=..., options=...)` accepts
`options={"deck": ..., "dealer": k}`: `deck` stacks the first deal (card text or card ints,
top card first, dealt one at a time from the dealer's left) or, as a list of such decks, one
deal each from the first; what is not stacked is shuffled by the seed (every deal is freshly
shuffled, B24). Seat k deals first (else the seeded cut). The same seed gives the same game.

`env.unwrapped.hand_histories()` returns the session's finished deals as JSON-serialisable
records (every seat's seven cards and arrangement id, its two hands and discard, who was
best, the pot, carry, shares, chip changes), each with its rules config;
`brag_env.brag7.game.showdown(dealt, arrangements, lowball)` recomputes a showdown from one.
`keep_histories=K` keeps only the last K deals' records (the count of deals stays whole).

### Version History

* v0: initial release (issue 29)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from brag_env.aec_wrappers import FastOrderEnforcingWrapper, classic_wrap
from brag_env.brag7.game import Brag7Game, DealResult
from brag_env.brag7.observation import (
    Brag7Observer,
    decode_observation,
    observation_high,
    observation_size,
)
from brag_env.brag7.render import render_table
from brag_env.brag7.rules import Brag7Config
from brag_env.table_env import CardTableEnv, TableSpec, frozen

__all__ = ["decode_observation", "env", "raw_env"]


def env(**kwargs: Any) -> FastOrderEnforcingWrapper:
    """The Seven-card Brag env wrapped as PettingZoo's classic envs are (an illegal action ends
    the game with a penalty of ``-starting_chips``; out-of-bounds actions asserted; call order
    enforced)."""
    raw = raw_env(**kwargs)
    return classic_wrap(raw, illegal_reward=-float(raw.config.starting_chips))


class raw_env(CardTableEnv):
    """Seven-card Brag as a PettingZoo AEC env, without wrappers (see the module docstring).

    The AEC plumbing is ``brag_env.table_env.CardTableEnv``; this class connects it to
    ``Brag7Game``."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "brag7_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
    }
    config_class = Brag7Config
    episode_word = "game"
    history_lists = (("hand_results", 1),)  # the observer reads the last result

    config: Brag7Config
    game: Brag7Game

    _observer_attributes = ("observer", "_mask")

    def _make_game(self, config: Brag7Config) -> TableSpec:
        self.game = Brag7Game(config)
        self._make_observers(config)
        return TableSpec(config.action_names, observation_size(config), observation_high(config))

    def _make_observers(self, config: Brag7Config) -> None:
        self.observer = Brag7Observer(config)
        self._mask = frozen(np.ones(config.num_actions, dtype=np.int8))

    def _new_game(
        self, rng: np.random.Generator, deck: str | Sequence[Any] | None, dealer: Any
    ) -> None:
        self.game.new_session(rng, deck=deck, dealer=dealer)

    def _rewards(self, outcome: DealResult) -> list[float]:
        return [float(delta) for delta in outcome.deltas]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._observed_seat(agent)
        game = self.game
        observation = self.observer.observation(game, seat)
        acting = seat == game.current_player and not self.terminations.get(agent, True)
        return {"observation": observation, "action_mask": self._mask if acting else self._no_mask}

    def _render_text(self) -> str:
        return render_table(self.game, self.possible_agents, reveal=self.reveal_cards)

    def hand_histories(self) -> list[dict[str, Any]]:
        """JSON-serialisable records of the deals finished so far, each with its ``config``."""
        return self.game.history()
