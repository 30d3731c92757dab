"""
# Put

| Import             | `from brag_env import put_v0`                                      |
|--------------------|--------------------------------------------------------------------|
| Actions            | Discrete                                                           |
| Parallel API       | No                                                                 |
| Manual Control     | No                                                                 |
| Agents             | `agents= ['player_0', 'player_1']` (default)                       |
| Agents             | 2, 3 or 4 (`num_players`; 4 = two partnerships)                    |
| Action Shape       | Discrete(29)                                                       |
| Action Values      | Discrete(29)                                                       |
| Observation Shape  | (220,) for 2 players, (316,) for 3, (438,) for 4; float32          |
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

No vector holds another player's unplayed cards. `put_v0.decode_observation(vector, config)`
turns a vector into a readable dict; `brag_env.put.observation` documents the layout.

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

`put_v0.env(**options)` and `put_v0.raw_env(**options)` take every field of
`brag_env.put.PutConfig` as a keyword (or `config=PutConfig(...)`), plus the render options:

| Argument               | Default | Meaning                                                |
|------------------------|---------|--------------------------------------------------------|
| `num_players`          | 2       | 2 (P2-P6), 3 (P7) or 4 in partnerships (P8)            |
| `target_points`        | 5       | points that win the match (P6); 7 is the longer game   |
| `seen_put_points`      | 2       | a seen Put's value (P4); "game": its winner takes all  |
| `put_draw_to_opponent` | False   | 2 players: drawn after a seen Put, opponent scores 1   |
| `reward`               | "match" | "match" (result at the end), "points" (hand by hand)   |
| `render_mode`          | None    | "ansi" (returns the table) or "human" (prints it)      |
| `reveal_cards`         | False   | render every hand, not only the public view            |

A bad value raises `ValueError` naming the field. `reset(seed=..., options=...)` accepts
`options={"deck": "As 2s 3s ...", "dealer": k}`: the cards are stacked on top of the first
hand's deck (top card first, dealt one at a time from the dealer's left, P2; the rest of that
deck and every later hand are shuffled from the seed) and seat k deals first (else a seeded cut,
P2). The same seed gives the same match. `env.unwrapped.hand_histories()` returns the JSON hand
histories of the match; `brag_env.put.replay_hand` plays one again.

Importing this module registers the env with PettingZoo's registry (`brag_env.registry`), so
`pettingzoo.make("aec", "brag_env/put_v0", num_players=3)` equals `put_v0.env(num_players=3)`.

### Version History

* v0: initial release (still unreleased: the observation gained the `last_*` block, so its
  size grew from 125/176/253 to 220/316/438 values)
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from brag_env.aec_wrappers import FastOrderEnforcingWrapper, classic_wrap
from brag_env.cards import make_rng
from brag_env.put.game import PutGame
from brag_env.put.observation import PutObserver, observation_high
from brag_env.put.observation import decode_observation as _decode
from brag_env.put.render import render_table
from brag_env.put.rules import ACTION_NAMES, NUM_ACTIONS, PutConfig
from brag_env.registry import register_envs

__all__ = ["decode_observation", "env", "raw_env"]

register_envs()  # pettingzoo.make("aec", "brag_env/put_v0") once this module is imported

_RESET_OPTIONS = ("deck", "dealer")
ILLEGAL_REWARD = -1.0


def env(**kwargs: Any) -> FastOrderEnforcingWrapper:
    """Put wrapped as PettingZoo's classic envs are: an illegal action ends the match with
    -1 for the offender, out-of-bounds actions are asserted, call order is enforced."""
    return classic_wrap(raw_env(**kwargs), illegal_reward=ILLEGAL_REWARD)


def decode_observation(vector: np.ndarray, config: PutConfig | None = None) -> dict:
    """A readable dict of an observation vector of a game with ``config`` (default 2 players)."""
    return _decode(vector, config)


def _make_config(config: PutConfig | None, options: dict[str, Any]) -> PutConfig:
    if config is None:
        return PutConfig.from_dict(options)
    if not isinstance(config, PutConfig):
        raise ValueError(f"config must be a PutConfig, got {type(config).__name__}")
    return PutConfig.from_dict({**config.to_dict(), **options}) if options else config


def _as_action(action: Any) -> int:
    if type(action) is int:
        return action
    if isinstance(action, np.integer) or (
        isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu"
    ):
        return int(action)
    raise ValueError(f"an action must be an integer action id, got {action!r}")


class raw_env(AECEnv, EzPickle):
    """Put as a PettingZoo AEC env, without wrappers (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "put_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        config: PutConfig | None = None,
        render_mode: str | None = None,
        reveal_cards: bool = False,
        **options: Any,
    ) -> None:
        EzPickle.__init__(self, config, render_mode, reveal_cards, **options)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None, 'human' or 'ansi', got {render_mode!r}")
        if not isinstance(reveal_cards, bool):
            raise ValueError(f"reveal_cards must be true or false, got {reveal_cards!r}")
        cfg = _make_config(config, options)
        self.config = cfg
        self.render_mode = render_mode
        self.reveal_cards = reveal_cards
        self.game = PutGame(cfg)
        self.observer = PutObserver(cfg)
        self.action_names: list[str] = list(ACTION_NAMES)
        n = cfg.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        self._seat = {name: i for i, name in enumerate(self.possible_agents)}
        high = observation_high(cfg)
        self.observation_spaces = {
            name: spaces.Dict(
                {
                    "observation": spaces.Box(
                        low=0.0, high=high, shape=(self.observer.size,), dtype=np.float32
                    ),
                    "action_mask": spaces.Box(0, 1, shape=(NUM_ACTIONS,), dtype=np.int8),
                }
            )
            for name in self.possible_agents
        }
        self.action_spaces = {name: spaces.Discrete(NUM_ACTIONS) for name in self.possible_agents}
        self._no_mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self._no_mask.flags.writeable = False
        self._points_reward = cfg.reward == "points"
        self._rng: np.random.Generator | None = None
        self._rewarded = False
        self._has_reset = False

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if options is None:
            options = {}
        elif not isinstance(options, Mapping):
            raise ValueError(
                f"put_v0.reset: options must be a dict such as {{'deck': ..., 'dealer': k}}, "
                f"got {options!r}"
            )
        if seed is not None:
            self._rng = make_rng(seed)
        elif self._rng is None:
            self._rng = make_rng(None)
        unknown = sorted(str(k) for k in options if k not in _RESET_OPTIONS)
        if unknown:
            warnings.warn(
                f"put_v0.reset ignores unknown option(s) {', '.join(unknown)}; "
                f"it knows {', '.join(_RESET_OPTIONS)}",
                stacklevel=2,
            )
        self.game.reset(self._rng, deck=options.get("deck"), dealer=options.get("dealer"))
        agents = self.possible_agents[:]
        self.agents = agents
        self.rewards = dict.fromkeys(agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(agents, 0.0)
        self.terminations = dict.fromkeys(agents, False)
        self.truncations = dict.fromkeys(agents, False)
        self.infos = {a: {} for a in agents}
        self._skip_agent_selection = None
        self._rewarded = False
        self._has_reset = True
        self.agent_selection = agents[self.game.current]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._has_reset:
            raise RuntimeError("put_v0: call reset() before observe()")
        game = self.game
        seat = self._seat[agent]
        observation = self.observer.set_from(game, seat).copy()
        mask = game.mask if seat == game.current else self._no_mask
        return {"observation": observation, "action_mask": mask}

    def step(self, action: Any) -> None:
        if not self._has_reset:
            raise RuntimeError("put_v0: call reset() before step()")
        if not self.agents:
            raise RuntimeError("put_v0: the match is over and every agent is done; call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError(
                    f"put_v0: the match is over for {agent}; its only valid step is "
                    "step(None), until every agent is done (then call reset())"
                )
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"put_v0: {agent} must act; step(None) is only for done agents")
        game = self.game
        try:
            scored = game.apply(_as_action(action))  # both raise without the prefix added here
        except ValueError as exc:
            raise ValueError(f"put_v0: {agent}: {exc}") from None
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        if self._rewarded:
            for a in rewards:
                rewards[a] = 0.0
            self._rewarded = False
        if scored is not None and self._points_reward:
            self._give_points(*scored)
        if game.over:
            if not self._points_reward:
                self._give_match_result()
            terminations = self.terminations
            for a in terminations:
                terminations[a] = True
            self._deads_step_first()
        else:
            self.agent_selection = self.possible_agents[game.current]
        if self.render_mode == "human":
            self.render()

    def _give_points(self, unit: int, points: int) -> None:
        """reward="points": the scorer's gain is shared out as a loss by the others."""
        n = self.game.n
        unit_of = self.game.unit_of
        loss = -points / 2 if n == 3 else -float(points)
        for seat, name in enumerate(self.possible_agents):
            self.rewards[name] = float(points) if unit_of[seat] == unit else loss
        self._rewarded = True
        self._accumulate_rewards()

    def _give_match_result(self) -> None:
        winners = self.game.winners()
        loss = -0.5 if self.game.n == 3 else -1.0
        for seat, name in enumerate(self.possible_agents):
            self.rewards[name] = 1.0 if seat in winners else loss
        self._rewarded = True
        self._accumulate_rewards()

    def hand_histories(self) -> list[dict]:
        """JSON-serialisable histories of the hands finished so far in this match."""
        return self.game.hand_histories()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("put_v0.render() called without a render_mode")
            return None
        if not self._has_reset:
            raise RuntimeError("put_v0: call reset() before render()")
        text = render_table(self.game, self.possible_agents, reveal=self.reveal_cards)
        if self.render_mode == "human":
            print(text, end="")
            return None
        return text

    def close(self) -> None:
        pass
