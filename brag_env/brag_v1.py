"""
# Three-Card Brag

| Import             | `from brag_env import brag_v1`                                     |
|--------------------|--------------------------------------------------------------------|
| Creation           | `pettingzoo.make("aec", "brag_env/brag_v1")` (see `brag_env.registry`) |
| Actions            | Discrete                                                           |
| Parallel API       | No                                                                 |
| Manual Control     | No                                                                 |
| Agents             | `agents= ['player_0', 'player_1', 'player_2', 'player_3']` (default) |
| Agents             | 2 to 8 (`num_players`, default 4)                                  |
| Action Shape       | Discrete(7 + len(raise_sizes)): Discrete(8) by default (-1 without cover) |
| Action Values      | 0 .. num_actions - 1                                               |
| Observation Shape  | (size,) float32: 517 for 4 players by default (488 without cover) |
| Observation Values | [0, num_players] for chip amounts, [0, 1] for everything else      |

Three-Card Brag is the old British ancestor of poker: everyone antes, gets three cards and
bets on them, possibly without looking at them ("blind", for half price), until one player is
left or the last two see each other's hands. A player who runs short of chips COVERS THE POT:
it puts in what it has, its hand waits face down on the pot as it stands, and the others bet on
into a side pot; their winner must then beat the coverer's hand to take the covered pot (B16).
The rules are the project's rules document `seeds/rules/brag.md` (rule IDs B1..B25). This
environment plays a session of `hands_per_session` hands (default: one hand per episode) with
stacks carried from hand to hand.

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
| 4 + R     | `keep_old_hand`  | B19: keep the unseen hand that was left alone                  |
| 5 + R     | `take_new_hand`  | B19: take the newly dealt hand instead                         |
| 6 + R     | `cover`          | B16, only with `cover_pot`: all chips in, the pot closed       |
| then      | `discard_i[_j]`  | B22, only with `cards_dealt` 4 or 5: discard those positions   |

`env.unwrapped.action_names` lists the names by id (R = `len(raise_sizes)`). `cover` is legal
only for a player to act who is short of the lowest price of staying in (S open, S/2 blind), even
with 0 chips; such a player may also fold, and a blind one may look first. A cover that leaves
one player in ends the betting: the two hands are compared at once.

Four- and Five-card Brag (B22, `cards_dealt=4` or `5`, which need `allow_blind=False`): before
the betting every player, going left from the dealer, makes ONE discard decision, an action
per set of cards to put aside: `discard_1` .. `discard_4` (4 cards: discard one) or
`discard_1_2` .. `discard_4_5` (5 cards: discard two, 10 actions), positions counted in the
player's dealt cards sorted by card id (rank, then suit: the order of `own_cards`). One joint
action per combination, rather than one per card, because a discard's worth depends on which
cards stay together (a pair, a run): two one-card steps would split that choice and leave a
half-discarded state that nothing needs. Discards are face down: not in the public history.
The three kept cards are the hand; a tie between kept hands is broken by the discards, taken from
the highest one down (ace high; the lower wins under `lowball`), and a tie that survives
that goes to the seen player (B14; a coverer still loses ties, B16).

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
| `seat_status`      | n x 4 | sitting out / folded / blind / open (a coverer shows folded)   |
| `seat_chips`       | n     | stack / starting_chips                                         |
| `seat_chips_in`    | n     | chips put in this hand (ante included) / starting_chips        |
| `seat_last_action` | n x A | last action this hand (all zero: none)                         |
| `seat_dealer`      | n     | the dealer                                                     |
| `seat_to_act`      | n     | the player whose decision it is                                |
| `stake`            | 1     | stake S / max_stake                                            |
| `pot`              | 1     | every chip in the middle (a carried pot included) / starting_chips |
| `hand_number`      | 1     | hand index in the session / hands_per_session                  |
| `choice_pending`   | 1     | a B19 keep-or-take choice is due                               |
| `shown_cards`      | 52    | cards shown at sees and cover comparisons since the last shuffle |
| `prev_by_see`      | 1     | the previous hand of the session ended at a see                |
| `prev_seat_change` | n x 2 | each seat's chip change in it / starting_chips: (won, lost)    |
| `prev_seat_see`    | n x 2 | who paid to see and who was seen at its see                    |
| `prev_shown_cards` | 2 x 52| the seer's and the seen player's hands shown at its see        |
| `history_seat`     | K x n | this hand's public events, most recent first: relative seat   |
| `history_action`   | K x A | ... action (a cover too)                                       |
| `history_paid`     | K     | ... chips paid / starting_chips                                |
| `seat_covered`     | n     | B16, only with `cover_pot`: the seat covered this hand         |
| `seat_covered_pot` | n     | ... the pot its cover closed / starting_chips                  |
| `side_pot`         | 1     | ... chips beyond the last covered pot / starting_chips         |
| `own_discards`     | 52    | B22, only with `cards_dealt` 4 or 5: the cards one discarded   |
| `discard_pending`  | 1     | ... 1 while the players are still discarding                   |
| `own_wild`         | 52    | B25, only with `wild_cards` set: which own cards are wild      |
| `prev_shown_reading` | 2 x 52 | ... the previous see's two hands as read: each wild card |
|                    |       | replaced by the card it stood for                              |
| `recall_seat`      | L x n | only with `perfect_recall`: EVERY public event of this hand,   |
|                    |       | oldest first: relative seat                                    |
| `recall_action`    | L x A | ... action (looks, the B19 choice and covers included)         |
| `recall_paid`      | L     | ... chips paid / starting_chips                                |

Chip amounts are divided by `starting_chips` (1.0 = one starting stack). A blind player's
vector holds nothing derived from its own cards, and no vector ever holds another player's
unrevealed cards. With B22, `own_cards` holds the whole deal until one discards, then the
kept three (`own_category` and `own_strength` are zero before: four or five cards are no
hand). The `prev_*` fields keep what the table saw at the end of the previous hand (also after
a shown prial, whose shuffle empties `shown_cards`); every hand shown there (see or
cover comparison) is also in `shown_cards` until the next shuffle. A carried pot (B15) shows as
a `pot` larger than the sum of `seat_chips_in`. `brag_v1.decode_observation(vector, config)`
turns a vector into a readable dict; `brag_env.brag.observation` documents the layout.

With `perfect_recall=True` the observation keeps the whole public history of the hand, not
only the K = 16 most recent events: the `recall_*` block is appended after everything else (so
every other field keeps its place) with room for L events,
`L = brag_env.brag.observation.recall_length(config)`: every stay, raise and see costs at least
`min_stake / 2` chips and a hand cannot take more than the `num_players * starting_chips` chips
at the table, plus one fold, one look and one cover per seat and one B19 choice. With the
default options L = 813 and the vector has 11,086 values (4,918 heads-up).
It holds only public events: no cards, so nothing about hidden hands.

### Rewards

When a hand ends, every player receives its chip change for that hand (antes, bets, pots and
any prial bonus), whoever acts next. Rewards of one hand sum to zero unless a pot carried
(B15): the chips left on the table count against the hand that left them and for the hand that
wins them, and since the last hand of a session cannot roll its pot over, the rewards of every
episode sum to zero. The episode ends with the session (after `hands_per_session` hands, or
earlier when fewer than two players can still play); then all agents are terminated. With
`env()`, an illegal action ends the episode at once: the offender receives `-starting_chips`
(as bad as losing a whole starting stack) and the others 0. With `raw_env()`, an illegal action
(a `cover` when the player can afford to stay, for instance) raises `ValueError`.

### Arguments

`brag_v1.env(**options)` and `brag_v1.raw_env(**options)` take every field of
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
| `blind_alone`        | "wins"          | B15: "carries" = a lone blind player's pot rolls over |
| `unopened_pot`       | "wins"          | B15: "carries" = a pot nobody paid a stake into stays |
| `cover_pot`          | True            | B16: a short player may cover; False: must fold (v0) |
| `hands_per_session`  | 1               | hands per episode (B17)                              |
| `starting_chips`     | 200             | B17                                                  |
| `shuffle`            | "after_prial"   | B18 (also "every_hand", "after_prial_or_cycle")     |
| `blind_keep_hand`    | True            | B19 (also for a blind player left with a carry)     |
| `prial_bonus`        | 0               | B20                                                  |
| `lowball`            | False           | B21                                                  |
| `cards_dealt`        | 3               | B22: 4 or 5 = Four-/Five-card Brag (no blind play)   |
| `deck_ranks`         | 13              | B1: a short deck of the k highest ranks, 4 suits each |
| `perfect_recall`     | False           | observation: every public event of the hand (above)  |
| `wild_cards`         | "none"          | B25: "braggers" (A♦ J♣ 9♦), "nines" or "aces" are wild |
| `render_mode`        | None            | "ansi" (returns the table) or "human" (prints it)    |
| `reveal_cards`       | False           | render every hand, not only the public view          |
| `keep_histories`     | None            | hands whose history the session keeps: all, 0, or K  |

A short deck (`deck_ranks` k < 13) holds the k highest ranks of B1 (A, K, Q, ... down) and
ranks its hands by the unchanged B2-B5 order: with k = 3 (A K Q) A-K-Q is the only run and
A-A-A the best prial; A-2-3 and 3-3-3 need the 2s and 3s. The observation keeps the 52-card
layout (the cards outside the deck are never set), and `own_strength` is the percentile among
the short deck's own hands. The deck must hold `cards_dealt` cards per player, and 3 more for a
B19 kept hand when sessions last more than one hand with blind play; else `ValueError`.

American Brag (B25, `wild_cards` other than "none", full deck only): a wild card counts as
whichever card makes its hand best under the game's own order (with `lowball`, the best lowball
hand, so a wild card then lowers the hand); when two readings are equal the hand holding fewer
wild cards ranks higher, and if that is level too the discards (B22), then the seen player
(B14), decide as usual.
`own_category` and `own_strength` are those of the reading on that order; `own_wild` (52) and
`prev_shown_reading` (2 x 52) are appended after the B22 fields and before the recall block,
so every layout without wild cards keeps its offsets. Histories gain `stood_for` (each shown
wild card -> the card it stood for) and the screens print "9♠ as K♠". The batched engines,
LBR and the exact tree refuse the option (`vec_env: dummy` trains it); `brag_env.brag.wild`
documents the ranking.

Carried pots (B15) never leave a session: on its last hand (always, with `hands_per_session=1`)
and when the session would end after the hand, the lone player wins the pot. A covered pot in
the hand switches the carry options off (B16): the last player in the side pot takes it and
then meets the coverer's hand. A prial shown in a cover comparison counts as one shown at a see
(B18's shuffle, `ante_mode="after_prial"`).

A bad value raises `ValueError` naming the field. `reset(seed=..., options=...)` accepts
`options={"deck": "As 2s 3s ...", "dealer": k}`: the cards are stacked on top of the deck for
the first deal (top card first, dealt one at a time from the left of the dealer, B9; the rest
is shuffled by the seed) and seat k deals the first hand (else a seeded cut, B7). The same seed
gives the same game.

`env.unwrapped.hand_histories()` returns the JSON-serialisable histories of the session's finished
hands, each with its rules config (format: `brag_env.brag.history`; covers, pots and carried
chips included); `brag_env.brag.replay.replay_session(histories)` plays them again and checks
every amount. For long sessions, `keep_histories=K` keeps only the last K hands' histories and
results (`keep_histories=0`: none), so memory stays flat (`bench/memory.py`); counts of finished
hands (`len(env.unwrapped.game.hand_results)`) still count them all.

The render is a spectator's table: stacks, statuses (who covered), stake, pot and side pot,
recent betting, and the cards shown at a see or a cover comparison; hidden hands appear as
`▮ ▮ ▮` unless `reveal_cards=True`.

### Version History

* v1 (later, no game change): options given as numpy integers or bools are accepted and
  stored as plain Python values (`brag_env.config_checks`, shared with Put); nothing that was
  accepted before is refused, so no version change.
* v1 (later, no default change): option `wild_cards` (B25, American Brag; default "none", the
  game and the observation layout unchanged; the `own_wild` and `prev_shown_reading` fields
  only with wild cards), so no version change.
* v1 (later, no default change): option `deck_ranks` (default 13, the full pack).
* v1: (added option, default off, so no version change) `perfect_recall`: the whole public
  history of the hand appended to the observation.
* v1: covering the pot (B16, `cover_pot`, default on: a `cover` action and the `seat_covered`,
  `seat_covered_pot`, `side_pot` observation fields), carried pots (B15 `blind_alone`,
  `unopened_pot`), `shuffle="after_prial_or_cycle"` (B18), and with `ante_mode="after_prial"`, a
  player short of the ante sits out only when an ante is due (B8/B16). With `cover_pot=False`
  the action ids and the observation layout are those of v0. Added option (the default,
  3, changes nothing): `cards_dealt` 4 or 5 for Four- and Five-card Brag (B22: a discard phase,
  discard actions appended to the action list, `own_discards` and `discard_pending` appended to
  the observation, ties broken by the discards, histories with `discards`).
* v0: initial release; kept as `brag_v0`, the original rules with the v0 spaces, so that its
  figures can be reproduced
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from brag_env.aec_wrappers import FastOrderEnforcingWrapper, classic_wrap
from brag_env.brag.game import BragGame, HandResult
from brag_env.brag.incremental_observation import IncrementalObserver
from brag_env.brag.observation import BragObserver, decode_observation, observation_layout
from brag_env.brag.render import render_table
from brag_env.brag.rules import BragConfig
from brag_env.table_env import CardTableEnv, TableSpec, frozen

__all__ = ["decode_observation", "env", "raw_env"]


def env(**kwargs: Any) -> FastOrderEnforcingWrapper:
    """The Brag env wrapped as PettingZoo's classic envs are (illegal action: game over with a
    penalty of ``-starting_chips``; out-of-bounds actions asserted; call order enforced)."""
    raw = raw_env(**kwargs)
    return classic_wrap(raw, illegal_reward=-float(raw.config.starting_chips))


class _FillObserver:
    """``IncrementalObserver``'s interface on ``BragObserver.set_from`` (a copy per call)."""

    def __init__(self, observer: BragObserver) -> None:
        self._observer = observer

    def observation(self, game: BragGame, player: int) -> np.ndarray:
        return self._observer.set_from(game, player).copy()


class raw_env(CardTableEnv):
    """Three-Card Brag as a PettingZoo AEC env, without wrappers (see the module docstring).

    The AEC plumbing (spaces, reset options, step order, rewards, render) is
    ``brag_env.table_env.CardTableEnv``; this class connects it to ``BragGame``."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "brag_v1",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
        "render_fps": 1,
    }
    config_class = BragConfig
    episode_word = "game"
    # keep_histories: the hand histories, and the results (the render and observers read the
    # last one, the stats count them with len()).
    history_lists = (("_records", 0), ("hand_results", 1))

    config: BragConfig
    game: BragGame

    _observer_attributes = ("observer", "_fast_observer", "_masks")

    def _make_game(self, config: BragConfig) -> TableSpec:
        self.game = BragGame(config)
        self._make_observers(config)
        layout = observation_layout(config)
        return TableSpec(config.action_names, layout.size, layout.high)

    def _make_observers(self, config: BragConfig) -> None:
        self.observer = BragObserver(config)
        # The same vectors as observer.set_from(...).copy(), updated event by event (hot path).
        # B22 discards are private events outside ``betting``, which the incremental observer
        # follows: those tables use the reference fill, as do perfect-recall tables (the
        # incremental observer keeps no recall block). A new one syncs from the game.
        incremental = config.cards_dealt == 3 and not config.perfect_recall
        self._fast_observer = (
            IncrementalObserver(config) if incremental else _FillObserver(self.observer)
        )
        # Masks are shared read-only arrays, one per legal set (the engine's bit set).
        self._masks: dict[int, np.ndarray] = {}

    def _new_game(
        self, rng: np.random.Generator, deck: str | Sequence[Any] | None, dealer: Any
    ) -> None:
        self.game.new_session(rng, deck=deck, dealer=dealer)

    def _rewards(self, outcome: HandResult) -> list[float]:
        # A hand ended: every seat's chip change (the next hand, if any, is already dealt).
        return [float(delta) for delta in outcome.deltas]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._observed_seat(agent)
        game = self.game
        observation = self._fast_observer.observation(game, seat)
        # No legal action for a terminated agent: env() ends the game on an illegal move with
        # the engine still mid-hand.
        if seat == game.current_player and not self.terminations.get(agent, True):
            bits = game.legal_bits
            mask = self._masks.get(bits)
            if mask is None:
                mask = self._masks[bits] = frozen(np.array(game.legal_mask(), dtype=np.int8))
        else:
            mask = self._no_mask
        return {"observation": observation, "action_mask": mask}

    def _render_text(self) -> str:
        return render_table(
            self.game, self.possible_agents, self.action_names, reveal=self.reveal_cards
        )

    def hand_histories(self) -> list[dict[str, Any]]:
        """JSON-serialisable histories of the hands finished so far in this session, each with
        its rules ``config``; ``brag_env.brag.replay.replay_session`` replays them."""
        return self.game.history()
