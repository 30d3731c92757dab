"""
# Three-Card Brag

| Import             | `from brag_env import brag_v0`                                     |
|--------------------|--------------------------------------------------------------------|
| Creation           | `pettingzoo.make("aec", "brag_env/brag_v0")` (see `brag_env.registry`) |
| Actions            | Discrete                                                           |
| Parallel API       | No                                                                 |
| Manual Control     | No                                                                 |
| Agents             | `agents= ['player_0', 'player_1', 'player_2', 'player_3']` (default) |
| Agents             | 2 to 8 (`num_players`, default 4)                                  |
| Action Shape       | Discrete(6 + len(raise_sizes)): Discrete(7) by default             |
| Action Values      | 0 .. 5 + len(raise_sizes)                                          |
| Observation Shape  | (size,) float32: 488 for 4 players with the default options        |
| Observation Values | [0, num_players] for chip amounts, [0, 1] for everything else      |

Three-Card Brag is the old British ancestor of poker: everyone antes, gets three cards and
bets on them, possibly without looking at them ("blind", for half price), until one player is
left or the last two see each other's hands. The rules are the project's rules document
`seeds/rules/brag.md` (rule IDs B1..B21). This environment plays a session of
`hands_per_session` hands (default: one hand per episode) with stacks carried from hand to hand.

Agents are "player_0" .. "player_{n-1}" in seat order (clockwise); the player to the left of
seat k is seat k+1 (wrapping), so betting after a dealer k starts at seat k+1.

### Action Space

| Action ID | Name             | Meaning                                                        |
|:---------:|------------------|----------------------------------------------------------------|
| 0         | `fold`           | give up the hand (B12)                                         |
| 1         | `stay`           | pay the stake S (open) or S/2 (blind) (B11)                   |
| 2         | `look`           | a blind player looks at its cards, then acts again (B10)       |
| 3         | `see`            | with two players left: pay to compare hands (B14)             |
| 4 ..      | `raise_{m}x`     | raise the stake to m*S, one per multiplier in `raise_sizes` (B13) |
| 4 + R     | `keep_old_hand`  | B19: keep the unseen hand that won by folds                    |
| 5 + R     | `take_new_hand`  | B19: take the newly dealt hand instead                         |

`env.unwrapped.action_names` lists the names by id (R = `len(raise_sizes)`).

### Observation Space

The observation is a dict: `"observation"` is a float32 vector of what the acting player knows,
`"action_mask"` an int8 vector with a 1 for each legal action (all zeros for a player whose turn
it is not; the mask array is shared and read-only). The vector, with seats relative to the
observer (row 0 is the observer, row 1 the seat to its left, ...), n = `num_players`,
A = number of actions, K = 16:

| Name               | Size  | Contents                                                       |
|--------------------|-------|----------------------------------------------------------------|
| `own_cards`        | 52    | one-hot of the observer's cards, only once it has looked       |
| `own_category`     | 6     | its hand category (high card .. prial), only once looked       |
| `own_strength`     | 1     | fraction of all hands strictly weaker, only once looked        |
| `seat_status`      | n x 4 | sitting out / folded / blind / open                            |
| `seat_chips`       | n     | stack / starting_chips                                         |
| `seat_chips_in`    | n     | chips put in this hand (ante included) / starting_chips        |
| `seat_last_action` | n x A | last action this hand (all zero: none)                         |
| `seat_dealer`      | n     | the dealer                                                     |
| `seat_to_act`      | n     | the player whose decision it is                                |
| `stake`            | 1     | stake S / max_stake                                            |
| `pot`              | 1     | pot / starting_chips                                           |
| `hand_number`      | 1     | hand index in the session / hands_per_session                  |
| `choice_pending`   | 1     | a B19 keep-or-take choice is due                               |
| `shown_cards`      | 52    | cards shown at sees since the last shuffle                     |
| `prev_by_see`      | 1     | the previous hand of the session ended at a see                |
| `prev_seat_change` | n x 2 | each seat's chip change in it / starting_chips: (won, lost)    |
| `prev_seat_see`    | n x 2 | who paid to see and who was seen at its see                    |
| `prev_shown_cards` | 2 x 52| the seer's and the seen player's hands shown at its see        |
| `history_seat`     | K x n | this hand's public events, most recent first: relative seat   |
| `history_action`   | K x A | ... action                                                     |
| `history_paid`     | K     | ... chips paid / starting_chips                                |

Chip amounts are divided by `starting_chips` (1.0 = one starting stack). A blind player's
vector holds nothing derived from its own cards, and no vector ever holds another player's
unrevealed cards. The `prev_*` fields keep what the table saw at the end of the previous hand
(also after a shown prial, whose shuffle empties `shown_cards`). `brag_v0.decode_observation(vector,
config)` turns a vector into a readable dict; `brag_env.brag.observation` documents the layout.

### Rewards

When a hand ends, every player receives its chip change for that hand (antes, bets, pot and
any prial bonus), whoever acts next; the rewards sum to zero. The episode ends with the session
(after `hands_per_session` hands, or earlier when fewer than two players can still ante); then
all agents are terminated. With `env()`, an illegal action ends the episode at once: the
offender receives `-starting_chips` (as bad as losing a whole starting stack) and the others 0.
With `raw_env()`, an illegal action raises `ValueError`.

### Arguments

`brag_v0.env(**options)` and `brag_v0.raw_env(**options)` take every field of
`brag_env.brag.rules.BragConfig` as a keyword (or `config=BragConfig(...)`), plus:

| Argument             | Default         | Meaning                                              |
|----------------------|-----------------|------------------------------------------------------|
| `num_players`        | 4               | 2 to 8 (B7)                                          |
| `ante`, `ante_mode`  | 1, "every_hand" | B8 ("every_hand", "after_prial", "none")             |
| `allow_blind`        | True            | B10                                                  |
| `min_stake`          | 2               | opening stake, even (B11)                            |
| `raise_sizes`        | (2,)            | raise multipliers (B13)                              |
| `max_stake`          | 32              | stake cap (B13)                                      |
| `pot_limit`          | False           | B13                                                  |
| `blind_may_see_open` | True            | B14                                                  |
| `hands_per_session`  | 1               | hands per episode (B17)                              |
| `starting_chips`     | 200             | B17                                                  |
| `shuffle`            | "after_prial"   | B18 ("after_prial", "every_hand")                    |
| `blind_keep_hand`    | True            | B19                                                  |
| `prial_bonus`        | 0               | B20                                                  |
| `lowball`            | False           | B21                                                  |
| `render_mode`        | None            | "ansi" (returns the table) or "human" (prints it)    |
| `reveal_cards`       | False           | render every hand, not only the public view          |

A bad value raises `ValueError` naming the field. `reset(seed=..., options=...)` accepts
`options={"deck": "As 2s 3s ...", "dealer": k}`: the cards are stacked on top of the deck for
the first deal (top card first, dealt one at a time from the left of the dealer, B9; the rest
is shuffled by the seed) and seat k deals the first hand (else a seeded cut, B7). The same seed
gives the same game.

`env.unwrapped.hand_histories()` returns the JSON-serialisable histories of the session's finished
hands, each with its rules config (format: `brag_env.brag.history`);
`brag_env.brag.replay.replay_session(histories)` plays them again and checks every amount.

The render is a spectator's table: stacks, statuses, stake, pot, recent betting, and the cards
shown at a see; hidden hands appear as `▮ ▮ ▮` unless `reveal_cards=True`.

### Version History

* v0: initial release
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from brag_env.aec_wrappers import FastOrderEnforcingWrapper, classic_wrap
from brag_env.brag.game import BragGame
from brag_env.brag.incremental_observation import IncrementalObserver
from brag_env.brag.observation import BragObserver, decode_observation, observation_layout
from brag_env.brag.render import render_table
from brag_env.brag.rules import BragConfig
from brag_env.cards import make_rng
from brag_env.registry import register_envs

__all__ = ["decode_observation", "env", "raw_env"]

register_envs()  # pettingzoo.make("aec", "brag_env/brag_v0") once this module is imported

_RESET_OPTIONS = ("deck", "dealer")


def env(**kwargs: Any) -> FastOrderEnforcingWrapper:
    """The Brag env wrapped as PettingZoo's classic envs are (illegal action: game over with a
    penalty of ``-starting_chips``; out-of-bounds actions asserted; call order enforced)."""
    raw = raw_env(**kwargs)
    return classic_wrap(raw, illegal_reward=-float(raw.config.starting_chips))


def _make_config(config: BragConfig | None, options: dict[str, Any]) -> BragConfig:
    if config is None:
        return BragConfig.from_dict(options)
    if not isinstance(config, BragConfig):
        raise ValueError(f"config must be a BragConfig, got {type(config).__name__}")
    return BragConfig.from_dict({**config.to_dict(), **options}) if options else config


class raw_env(AECEnv, EzPickle):
    """Three-Card Brag as a PettingZoo AEC env, without wrappers (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "brag_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        config: BragConfig | None = None,
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
        self.game = BragGame(cfg)
        self.observer = BragObserver(cfg)
        # The same vectors as observer.fill(...).copy(), updated event by event (hot path).
        self._fast_observer = IncrementalObserver(cfg)
        self.action_names: list[str] = cfg.action_names
        n, num_actions = cfg.num_players, cfg.num_actions
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        self._seat = {name: i for i, name in enumerate(self.possible_agents)}
        layout = observation_layout(cfg)
        self.observation_spaces = {
            name: spaces.Dict(
                {
                    "observation": spaces.Box(
                        low=0.0, high=layout.high, shape=(layout.size,), dtype=np.float32
                    ),
                    "action_mask": spaces.Box(0, 1, shape=(num_actions,), dtype=np.int8),
                }
            )
            for name in self.possible_agents
        }
        self.action_spaces = {name: spaces.Discrete(num_actions) for name in self.possible_agents}
        # Masks are shared read-only arrays, one per legal set (the engine's bit set).
        self._masks: dict[int, np.ndarray] = {}
        self._no_mask = self._frozen(np.zeros(num_actions, dtype=np.int8))
        self._rng: np.random.Generator | None = None
        self._rewarded = False
        self._has_reset = False

    @staticmethod
    def _frozen(array: np.ndarray) -> np.ndarray:
        array.flags.writeable = False
        return array

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = make_rng(seed)
        elif self._rng is None:
            self._rng = make_rng(None)
        if options:
            unknown = sorted(str(k) for k in options if k not in _RESET_OPTIONS)
            if unknown:
                warnings.warn(
                    f"brag_v0.reset ignores unknown option(s) {', '.join(unknown)}; "
                    f"it knows {', '.join(_RESET_OPTIONS)}",
                    stacklevel=2,
                )
            deck, dealer = options.get("deck"), options.get("dealer")
        else:
            deck = dealer = None
        self.game.new_session(self._rng, deck=deck, dealer=dealer)
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
        self.agent_selection = agents[self.game.current_player]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if not self._has_reset:
            raise RuntimeError("brag_v0: call reset() before observe()")
        game = self.game
        seat = self._seat[agent]
        observation = self._fast_observer.observation(game, seat)
        if seat == game.current_player and not self.terminations.get(agent, True):
            bits = game.legal_bits
            mask = self._masks.get(bits)
            if mask is None:
                mask = self._frozen(np.array(game.legal_mask(), dtype=np.int8))
                self._masks[bits] = mask
        else:
            mask = self._no_mask
        return {"observation": observation, "action_mask": mask}

    def step(self, action: Any) -> None:
        if not self._has_reset:
            raise RuntimeError("brag_v0: call reset() before step()")
        if not self.agents:
            raise RuntimeError("brag_v0: the game is over and every agent is done; call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError(
                    f"brag_v0: the game is over for {agent}; its only valid step is "
                    f"step(None), until every agent is done (then call reset())"
                )
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"brag_v0: {agent} must act; step(None) is only for done agents")
        game = self.game
        hands_done = len(game.hand_results)
        try:
            result = game.apply(action)
        except ValueError as exc:
            raise ValueError(f"brag_v0: {agent}: {exc}") from None
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        if self._rewarded:
            for a in rewards:
                rewards[a] = 0.0
            self._rewarded = False
        if result is not None:
            names = self.possible_agents
            for res in game.hand_results[hands_done:]:
                for seat, delta in enumerate(res.deltas):
                    rewards[names[seat]] += float(delta)
            self._rewarded = True
            self._accumulate_rewards()
        if game.session_over:
            terminations = self.terminations
            for a in terminations:
                terminations[a] = True
            self._deads_step_first()
        else:
            self.agent_selection = self.possible_agents[game.current_player]
        if self.render_mode == "human":
            self.render()

    def hand_histories(self) -> list[dict[str, Any]]:
        """JSON-serialisable histories of the hands finished so far in this session, each with
        its rules ``config``; ``brag_env.brag.replay.replay_session`` replays them."""
        return self.game.history()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("brag_v0.render() called without a render_mode")
            return None
        if not self._has_reset:
            raise RuntimeError("brag_v0: call reset() before render()")
        text = render_table(
            self.game, self.possible_agents, self.action_names, reveal=self.reveal_cards
        )
        if self.render_mode == "human":
            print(text, end="")
            return None
        return text

    def close(self) -> None:
        pass
