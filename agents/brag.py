"""Rule-based Brag baselines, each a documented style with parameters (``brag:<style>[:k=v,...]``).

Every style reads only its own observation and the action mask (``BragView`` decodes the few
fields it needs straight from the vector's named offsets). Hand strength is the observation's
``own_strength``: the fraction of all 22,100 hands strictly weaker than the agent's hand
(0 until it looks). Styles do not assume a table size: they compare thresholds with an
*equity* estimate ``p ** k``, the chance that a hand of percentile ``p`` beats ``k`` independent
random hands, where ``k`` is the number of opponents still in. A threshold of 0.5 therefore means
a hand better than the median hand heads-up (p >= 0.5) but about a pair at a table of four
(p >= 0.79).

Styles (parameters and defaults in ``DEFAULTS``):

- ``random``: random legal play.
- ``caller`` (calling station): looks at once, then stays every turn whatever it holds, never
  raises, and sees whenever a see is legal. Folds only when it cannot pay (B16).
- ``tight``: looks at once; folds unless equity >= ``play``; raises (highest legal multiplier)
  when equity >= ``raise_at``; heads-up it sees when its percentile >= ``see_at`` or once it has
  bet ``patience`` times this hand.
- ``bluffer`` (aggressive bluffer): looks at once; plays like a looser tight player
  (``play``, ``raise_at``, ``see_at``) but with a hand below ``play`` it bluffs with probability
  ``bluff``: it then raises whenever it can (else stays) for up to ``bluff_bets`` bets, never sees,
  and folds after that. The decision to bluff is made once per hand.
- ``blind`` (blind specialist): stays blind while the stake is below ``look_stake`` times the
  minimum stake (raising blind with probability ``blind_raise``), looks once it gets there; open,
  it plays with ``play``/``raise_at``/``see_at``. It never sees blind: against an open opponent,
  who cannot see a blind player (B14), staying blind costs it half what the opponent pays.
- ``tips`` (the seed documents' advice as a whole): plays blind at the start of a session (its
  first ``blind_hands`` hands, by the observation's hand number; later hands it looks at once),
  and stays blind only while the stake is low (``look_stake``) and the pot small (``look_pot``
  minimum stakes), raising blind now and then (``blind_raise``) for pressure; open, it folds a
  mere high card (heads-up it keeps one better than the median hand), plays pairs but folds them
  facing ``fear_raises`` raises since its last move or when a stay would cost more than
  ``max_share`` of its stack (unless the hand already took more of its chips than it has left:
  the pot is then committed, and it stays or covers, B16), raises rather than
  min-bets with a flush or better, slow-plays prials (stays until the pot holds ``slowplay_pot``
  minimum stakes, then raises, and sees heads-up once it cannot raise) and otherwise sees
  heads-up when it thinks it is ahead (percentile >= ``see_at``). Not modelled, because the
  player keeps no memory of the others across hands: tracking which opponents have been
  aggressive or have bluffed (and calling them more readily), and choosing to see an apparent
  bluffer rather than a cautious player; reading strong early bets is limited to the raises of
  the current hand (``fear_raises``).
- ``never_look`` (the exploit probe of issue 11): never looks at its cards, stays blind every
  turn, raising blind with probability ``raise`` (``brag:never_look:raise=0.3``), never sees, and
  covers the pot when it cannot pay to stay. Under the original B16 ruling (``cover_pot=False``)
  it cannot be beaten by players who must look to see it; covering the pot is what makes
  blindness a risk again.

Covering the pot (B16): when ``cover`` is legal the player cannot afford to stay. Every style
then covers with the hands it would stay, raise or see with, and folds the others (a blind
style that would look first still looks). Players who covered count as opponents in the equity
estimate: the side pot's winner must also beat each coverer's hand to take its pot.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, ClassVar

import numpy as np

from agents.base import RandomAgent, StyleAgent, TableInfo, legal_actions
from agents.brag_batch import (
    BLIND,
    BLUFFER,
    CALLER,
    NEVER_LOOK,
    NO_ACTION,
    TIGHT,
    TIPS,
    BragBatchView,
    BragRows,
    _equity_table,
    first_legal,
)
from agents.registry import register
from brag_env.brag.hands import FLUSH, PAIR, PRIAL
from brag_env.brag.observation import HISTORY_LEN, observation_layout
from brag_env.brag.rules import FIRST_RAISE, FOLD, LOOK, SEE, STAY, SeatStatus, discard_choices
from brag_env.brag.wild import config_ranking

# The seat_status column of a blind seat in the observation, as a plain int for indexing.
_BLIND = int(SeatStatus.BLIND)  # blind and open (the next column): still in the hand


class BragView:
    """Reads the fields a baseline needs from one observation vector (no copies, no dicts)."""

    def __init__(self, table: TableInfo) -> None:
        config = table.config
        layout = observation_layout(config)
        n, a = config.num_players, config.num_actions
        self.n, self.num_actions = n, a
        self.min_stake = config.min_stake
        self.max_stake = config.max_stake
        self.chips_scale = float(config.starting_chips)
        self.hands_per_session = config.hands_per_session
        # Where the categories start among the deck's hands: pairs at 16,440 / 22,100 in the
        # full pack (B6); a short deck (deck_ranks, B1) has its own counts, and so has each
        # set of wild cards (B25: the categories of the readings).
        order = config_ranking(config)
        self.pair_at = order.category_percentile(PAIR)
        self.flush_at = order.category_percentile(FLUSH)
        self.prial_at = order.category_percentile(PRIAL)
        off = layout.offset
        self._cat = slice(off("own_category"), off("own_category") + 6)
        self._strength = off("own_strength")
        self._status = slice(off("seat_status"), off("seat_status") + 4 * n)
        self._chips = off("seat_chips")
        self._chips_in = off("seat_chips_in")
        # B16: rows of the seats that covered (the block exists only with cover_pot).
        self._covered = (
            slice(off("seat_covered"), off("seat_covered") + n) if config.cover_pot else None
        )
        self._stake = off("stake")
        self._pot = off("pot")
        self._hand = off("hand_number")
        self._hseat = slice(off("history_seat"), off("history_seat") + HISTORY_LEN * n)
        self._haction = slice(off("history_action"), off("history_action") + HISTORY_LEN * a)
        self.raise_ids = list(range(FIRST_RAISE, FIRST_RAISE + len(config.raise_sizes)))
        self._is_raise = np.zeros(a, dtype=bool)
        self._is_raise[self.raise_ids] = True
        self.is_bet = self._is_raise.copy()
        self.is_bet[STAY] = True

    def load(self, obs: np.ndarray) -> None:
        """Decode ``obs`` into attributes (called once per decision; keep it cheap)."""
        self._obs = obs
        category = obs[self._cat]
        self.looked = bool(category.any())
        self.category = int(category.argmax()) if self.looked else -1
        self.strength = float(obs[self._strength])
        status = obs[self._status].reshape(self.n, 4)
        self.blind = bool(status[0, _BLIND] > 0.5)
        live = status[1:, _BLIND:].sum(axis=0)  # opponents still in: blind, open
        self.opponents_blind = int(live[0])
        self.opponents = int(live[0] + live[1])
        covered = self._covered
        self.coverers = int(obs[covered].sum()) if covered is not None else 0
        self.stake = round(float(obs[self._stake]) * self.max_stake)
        self.pot = round(float(obs[self._pot]) * self.chips_scale)
        self.chips = round(float(obs[self._chips]) * self.chips_scale)
        self.chips_in = round(float(obs[self._chips_in]) * self.chips_scale)
        self.hand_number = round(float(obs[self._hand]) * self.hands_per_session)
        self._raises: int | None = None

    @property
    def raises_since_mine(self) -> int:
        """Raises by the others since my own last move (not a look) this hand.

        Read from the observation's last ``HISTORY_LEN`` events: between two of my moves the
        others make at most two events each (a look and a bet), which fits for up to 8 players.
        """
        if self._raises is None:
            obs = self._obs
            actions = obs[self._haction].reshape(HISTORY_LEN, self.num_actions)
            present = actions.max(axis=1) > 0.5
            acted = actions.argmax(axis=1)
            # My moves: my events other than a look (a look does not end the turn, B10).
            mine = (obs[self._hseat].reshape(HISTORY_LEN, self.n)[:, 0] > 0.5) & (acted != LOOK)
            # The history is most recent first: count raises before my latest move.
            last_mine = int(mine.argmax()) if mine.any() else HISTORY_LEN
            raises = present[:last_mine] & self._is_raise[acted[:last_mine]]
            self._raises = int(raises.sum())
        return self._raises

    def equity(self) -> float:
        """Chance the hand beats every opponent still in and every coverer (B16), as if their
        hands were random."""
        return self.strength ** max(self.opponents + self.coverers, 1)

    @property
    def stay_cost(self) -> int:
        return self.stake // 2 if self.blind else self.stake


def _first_legal(mask: np.ndarray, preferences: list[int]) -> int | None:
    for action in preferences:
        if 0 <= action < mask.size and mask[action]:
            return action
    return None


class BragBaseline(StyleAgent):
    """Shared plumbing: the view, the B19 choice, legal fallbacks, a per-hand bet counter.

    ``bets`` counts the stays and raises this agent made in the current hand. The agent keeps it
    itself: the observation's history holds only the last ``HISTORY_LEN`` events of the table, too
    few to count one's own bets at six or more players. A new hand starts at ``reset()``, when the
    observation's hand number changes, or when the chips this seat has put in the hand go down.
    """

    game: ClassVar[str | None] = "brag"

    def bind(self, table: TableInfo) -> None:
        super().bind(table)
        self.view = BragView(table)
        config = table.config
        self.keep_id = config.keep_old_hand_action
        self.take_id = config.take_new_hand_action
        # B22: the discard actions (none in Three-card Brag) and where the own cards are.
        self.discard_choices = discard_choices(config.cards_dealt)
        self.discard_first = config.first_discard_action
        self._lowball = config.lowball
        self._strength = config_ranking(config).strength  # B21, B25: the game's own order
        start = observation_layout(config).offset("own_cards")
        self._own_cards = slice(start, start + 52)
        self.cover_id = config.cover_action  # -1 without cover_pot
        self._state = BragRows()  # act_batch: the per-hand state of every table id
        self._batch_view = BragBatchView(table)
        self.reset()

    def reset(self) -> None:
        self.bets = 0
        self._hand: tuple[int, int] | None = None  # (hand number, chips put in) last seen

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, rows: np.ndarray
    ) -> np.ndarray:
        """One action per row, each exactly as ``act`` decides it, with the per-hand state of
        the row's table (``rows``: the table ids) and this agent's one generator, drawn row
        after row. Styles with ``preferences_batch`` decide big batches with arrays; small
        ones, the other styles and B22 go through ``act`` in a loop over rows."""
        vector = self.vector_rules and not self.discard_choices
        if vector and len(rows) >= self.vector_min_rows:
            return self._act_vector(
                np.asarray(observations), np.asarray(masks).astype(bool, copy=False), rows
            )
        return self._act_rows(observations, masks, rows)

    #: Whether the style has ``preferences_batch`` (its rules as arrays).
    vector_rules: ClassVar[bool] = False
    #: Fewer rows than this go row by row (both paths decide the same and share the per-table
    #: state). 16: the heads-up self-play VecEnv at 1,024 tables ran 15-20% faster than with
    #: 48, its many small batches (the last moves of a few tables) going through the arrays.
    vector_min_rows = 16

    def preferences_batch(self, b: BragBatchView, masks: np.ndarray, bets: np.ndarray, rows):
        """``preferences`` for every row at once: a (k, L) array, ``NO_ACTION`` padded."""
        raise NotImplementedError

    def _act_vector(self, obs: np.ndarray, masks: np.ndarray, rows) -> np.ndarray:
        rows = np.asarray(rows, np.int64)
        out = np.full(len(masks), NO_ACTION, np.int64)
        # B19: both hands unseen, nothing to go on: take the new one
        due = masks[:, self.take_id] | masks[:, self.keep_id]
        out[due] = np.where(masks[due, self.take_id], self.take_id, self.keep_id)
        todo = np.flatnonzero(~due)
        if not todo.size:
            return out
        masks, rows = masks[todo], rows[todo]
        state = self._state
        state.grow(int(rows.max()) + 1)
        b = self._batch_view
        b.load(obs[todo])
        new = (
            (state.hand[rows] < 0)
            | (b.hand_number != state.hand[rows])
            | (b.chips_in < state.chips_in[rows])
        )
        state.bets[rows[new]] = 0  # new_hand()
        state.bluff[rows[new]] = -1
        state.hand[rows] = b.hand_number
        state.chips_in[rows] = b.chips_in
        preferences = self.preferences_batch(b, masks, state.bets[rows], rows)
        if self.cover_id >= 0:  # B16: short of the stay: cover with what it would bet or see
            short = masks[:, self.cover_id]
            betting = self.view.is_bet[np.maximum(preferences, 0)] & (preferences >= 0)
            betting |= (preferences == SEE) | (preferences == self.cover_id)
            preferences = np.where(short[:, None] & betting, self.cover_id, preferences)
        choice = first_legal(masks, preferences)
        none = choice == NO_ACTION  # e.g. B16 leaves only fold
        choice[none] = np.where(masks[none, FOLD], FOLD, masks[none].argmax(axis=1))
        state.bets[rows] += self.view.is_bet[choice]
        out[todo] = choice
        return out

    def _act_rows(
        self, observations: np.ndarray, masks: np.ndarray, rows: np.ndarray
    ) -> np.ndarray:
        """``act`` row after row, each with its table's state from ``self._state``."""
        rows = np.asarray(rows, np.int64)
        out = np.empty(len(rows), np.int64)
        if not rows.size:
            return out
        state = self._state
        state.grow(int(rows.max()) + 1)
        for j, row in enumerate(rows.tolist()):
            self.bets = int(state.bets[row])
            hand = int(state.hand[row])
            self._hand = None if hand < 0 else (hand, int(state.chips_in[row]))
            bluff = int(state.bluff[row])
            self._bluffing = None if bluff < 0 else bool(bluff)  # read by the bluffer only
            out[j] = self.act(observations[j], masks[j])
            state.bets[row] = self.bets
            if self._hand is not None:
                state.hand[row], state.chips_in[row] = self._hand
            state.bluff[row] = -1 if self._bluffing is None else int(self._bluffing)
        return out

    def reset_rows(self, rows: np.ndarray) -> None:
        """Forget the per-hand state of these tables (``reset`` of one table)."""
        self._state.reset(np.asarray(rows, np.int64))

    def new_hand(self) -> None:
        """Forget the last hand (subclasses extend it; called before the hand's first choice)."""
        self.bets = 0

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask).astype(bool)
        if mask[self.take_id] or mask[self.keep_id]:  # B19: both hands unseen, nothing to go on
            return self.take_id if mask[self.take_id] else self.keep_id
        if self.discard_choices and mask[self.discard_first]:  # B22: every discard is legal
            return self.best_discard(observation)
        v = self.view
        v.load(observation)
        last = self._hand
        if last is None or v.hand_number != last[0] or v.chips_in < last[1]:
            self.new_hand()
        self._hand = (v.hand_number, v.chips_in)
        preferences = self.preferences(v, mask)
        if self.cover_id >= 0 and mask[self.cover_id]:
            # B16: short of the stay; a hand worth a stay, raise or see is worth covering with.
            preferences = [
                self.cover_id if v.is_bet[a] or a == SEE or a == self.cover_id else a
                for a in preferences
            ]
        choice = _first_legal(mask, preferences)
        if choice is None:  # e.g. B16 leaves only fold
            legal = legal_actions(mask)
            return int(FOLD if mask[FOLD] else legal[0])
        if v.is_bet[choice]:
            self.bets += 1
        return choice

    def best_discard(self, observation: np.ndarray) -> int:
        """B22, every style: keep the best three cards; between equal threes, discard the
        higher cards (the discards break ties, highest first; lower ones under lowball)."""
        cards = np.flatnonzero(np.asarray(observation)[self._own_cards] > 0.5).tolist()
        best, choice = None, self.discard_first
        for i, positions in enumerate(self.discard_choices):
            kept = [c for j, c in enumerate(cards) if j not in positions]
            thrown = sorted((cards[j] >> 2 for j in positions), reverse=True)
            key = (
                self._strength(kept),
                [-r for r in thrown] if self._lowball else thrown,
            )
            if best is None or key > best:
                best, choice = key, self.discard_first + i
        return choice

    @abstractmethod
    def preferences(self, v: BragView, mask: np.ndarray) -> list[int]:
        """Actions in order of preference; the first legal one is played."""

    # Building blocks shared by the styles.
    def biggest_raise(self, mask: np.ndarray) -> list[int]:
        return [r for r in reversed(self.view.raise_ids) if mask[r]][:1]

    def smallest_raise(self, mask: np.ndarray) -> list[int]:
        return [r for r in self.view.raise_ids if mask[r]][:1]

    def open_play(
        self,
        v: BragView,
        mask: np.ndarray,
        play: float,
        raise_at: float,
        see_at: float,
        patience: int,
    ) -> list[int]:
        """Threshold play for an open player (shared by tight, bluffer and blind)."""
        equity = v.equity()
        heads_up = v.opponents == 1
        # Heads-up, see a good hand, or a playable one once patience has run out.
        if (
            heads_up
            and mask[SEE]
            and (v.strength >= see_at or (self.bets >= patience and equity >= play))
        ):
            return [SEE]
        if equity >= raise_at:
            return [*self.biggest_raise(mask), STAY]
        if equity >= play:
            return [STAY]
        return [FOLD]


class CompiledStyle(BragBaseline):
    """A style whose ``act_batch`` is one compiled call (``agents.brag_kernel.decide``) for
    every batch: the kernel holds the style's rules for many tables, ``preferences`` for one.
    A subclass that changes any of ``DECISION_METHODS`` must say how the kernel plays it."""

    #: the style's code in ``agents.brag_kernel``
    compiled_style: ClassVar[int]
    #: The kernel for batches of any size (tests raise it to mix in the row path).
    vector_min_rows = 1

    #: What ``act`` decides with: a subclass that changes any of them plays otherwise than
    #: the kernel, so it must say how the kernel plays it (``compiled_style``).
    DECISION_METHODS: ClassVar[tuple[str, ...]] = (
        "act", "preferences", "open_play", "biggest_raise", "smallest_raise", "new_hand",
    )  # fmt: skip

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        changed = [name for name in cls.DECISION_METHODS if name in cls.__dict__]
        if changed and "compiled_style" not in cls.__dict__:
            raise TypeError(
                f"{cls.__name__} changes {', '.join(changed)}: give it compiled_style and "
                "kernel_params, or derive it from BragBaseline"
            )

    def bind(self, table: TableInfo) -> None:
        super().bind(table)
        config = table.config
        off = observation_layout(config).offset
        fields = ("own_category", "own_strength", "seat_status", "seat_chips", "seat_chips_in")
        covered = off("seat_covered") if config.cover_pot else -1  # B16: the block, if any
        tail = [off(f) for f in ("stake", "pot", "hand_number", "history_seat", "history_action")]
        self._layout = np.array([*map(off, fields), covered, *tail], np.int64)
        scales = [config.max_stake, config.starting_chips, config.hands_per_session]
        self._scales = np.array([*scales, config.min_stake], np.float64)
        self._percentiles, self._equities = _equity_table(config.deck_ranks, config.wild_cards)
        self._raise_ids = np.array(self.view.raise_ids, np.int64)

    def kernel_params(self) -> list[float]:
        """The style's parameters in ``agents.brag_kernel``'s order."""
        return []

    def act_batch(
        self, observations: np.ndarray, masks: np.ndarray, rows: np.ndarray
    ) -> np.ndarray:
        """One action per row, each exactly as ``act`` decides it, with the per-hand state of
        the row's table (``rows``: the table ids) and this agent's one generator, drawn row
        after row; B22's discards go through ``act``."""
        if self.discard_choices or len(rows) < self.vector_min_rows:
            return self._act_rows(observations, masks, rows)
        from agents.brag_kernel import NUM_PARAMS, decide

        rows = np.asarray(rows, np.int64)
        state = self._state
        if rows.size:
            state.grow(int(rows.max()) + 1)
        params = np.zeros(NUM_PARAMS)
        values = self.kernel_params()
        params[: len(values)] = values
        v = self.view
        return decide(
            np.asarray(observations), np.asarray(masks).astype(bool, copy=False), rows, state.bets,
            state.hand, state.chips_in, state.bluff, self.compiled_style, params, self._layout,
            self._scales, v.n, self._raise_ids, v.is_bet, v._is_raise, self._percentiles,
            self._equities, self.take_id, self.keep_id,
            self.cover_id, self.rng,
        )  # fmt: skip


@register("brag", "random")
class BragRandom(RandomAgent):
    """Random legal play (the same as the spec ``random``)."""

    game: ClassVar[str | None] = "brag"
    DEFAULTS: ClassVar[dict[str, Any]] = {}


@register("brag", "caller")
class CallingStation(CompiledStyle):
    """Looks at once, stays to the end, never raises, sees whenever it can (module docstring)."""

    def preferences(self, v: BragView, mask: np.ndarray) -> list[int]:
        if v.blind:
            return [LOOK, STAY]
        return [SEE, STAY]

    compiled_style: ClassVar[int] = CALLER


@register("brag", "tight")
class Tight(CompiledStyle):
    """Looks at once and plays only strong hands (module docstring)."""

    DEFAULTS: ClassVar[dict[str, Any]] = {
        "play": 0.45,
        "raise_at": 0.75,
        "see_at": 0.85,
        "patience": 3,
    }

    def preferences(self, v: BragView, mask: np.ndarray) -> list[int]:
        if v.blind:
            return [LOOK]
        return self.open_play(v, mask, self.play, self.raise_at, self.see_at, self.patience)

    compiled_style: ClassVar[int] = TIGHT
    #: planted_fold_to_raise's extra rule (a fold to any raise since its last move)
    fold_to_raise: ClassVar[bool] = False

    def kernel_params(self) -> list[float]:
        return [self.play, self.raise_at, self.see_at, self.patience, self.fold_to_raise]


@register("brag", "bluffer")
class Bluffer(CompiledStyle):
    """Raises weak hands with probability ``bluff``, committing for the hand (module docstring)."""

    DEFAULTS: ClassVar[dict[str, Any]] = {
        "bluff": 0.3,
        "bluff_bets": 3,
        "play": 0.35,
        "raise_at": 0.6,
        "see_at": 0.75,
        "patience": 3,
    }

    def reset(self) -> None:
        super().reset()
        self._bluffing: bool | None = None

    def new_hand(self) -> None:
        super().new_hand()
        self._bluffing = None  # decided at the hand's first open decision

    def preferences(self, v: BragView, mask: np.ndarray) -> list[int]:
        if v.blind:
            return [LOOK]
        if self._bluffing is None:  # decide once per hand whether this one is a bluff
            weak = v.equity() < self.play
            self._bluffing = bool(weak and self.rng.random() < self.bluff)
        if self._bluffing:
            if self.bets >= self.bluff_bets:
                return [FOLD]
            return [*self.biggest_raise(mask), STAY]
        return self.open_play(v, mask, self.play, self.raise_at, self.see_at, self.patience)

    compiled_style: ClassVar[int] = BLUFFER

    def kernel_params(self) -> list[float]:
        open_ = [self.play, self.raise_at, self.see_at, self.patience]
        return [*open_, self.bluff, self.bluff_bets]


@register("brag", "blind")
class BlindSpecialist(CompiledStyle):
    """Plays blind while the stake is low, looks when it grows (module docstring)."""

    DEFAULTS: ClassVar[dict[str, Any]] = {
        "look_stake": 4,
        "blind_raise": 0.25,
        "play": 0.4,
        "raise_at": 0.7,
        "see_at": 0.7,
        "patience": 3,
    }

    def preferences(self, v: BragView, mask: np.ndarray) -> list[int]:
        if v.blind:
            if v.stake >= self.look_stake * v.min_stake:
                return [LOOK, STAY]
            if self.rng.random() < self.blind_raise:
                return [*self.smallest_raise(mask), STAY]
            return [STAY, LOOK]
        return self.open_play(v, mask, self.play, self.raise_at, self.see_at, self.patience)

    compiled_style: ClassVar[int] = BLIND

    def kernel_params(self) -> list[float]:
        open_ = [self.play, self.raise_at, self.see_at, self.patience]
        return [*open_, self.look_stake, self.blind_raise]


@register("brag", "tips")
class SeedTips(CompiledStyle):
    """Follows the seed documents' strategy advice as a whole (module docstring)."""

    DEFAULTS: ClassVar[dict[str, Any]] = {
        "blind_hands": 1,
        "look_stake": 4,
        "look_pot": 8,
        "blind_raise": 0.2,
        "fear_raises": 2,
        "max_share": 0.25,
        "see_at": 0.6,
        "slowplay_pot": 12,
    }

    def preferences(self, v: BragView, mask: np.ndarray) -> list[int]:
        if v.blind:
            # Blind play is cheap and unsettles the others: early in a session, and only while
            # the stake is low and the pot small (the seeds' advice: blind only as
            # long as the pot is worth the risk): with covering the pot (B16) a blind stack can
            # be called down to the end.
            if (
                v.hand_number >= self.blind_hands
                or v.stake >= self.look_stake * v.min_stake
                or v.pot >= self.look_pot * v.min_stake
            ):
                return [LOOK, STAY]
            if self.rng.random() < self.blind_raise:
                return [*self.smallest_raise(mask), STAY]
            return [STAY, LOOK]
        p, heads_up = v.strength, v.opponents == 1
        if p >= v.prial_at:
            # Slow-play a prial, heads-up too: small bets until the pot is big, then raise (and
            # see once the stake is capped).
            if v.pot >= self.slowplay_pot * v.min_stake:
                return [*self.biggest_raise(mask), SEE, STAY]
            return [STAY]
        if heads_up and mask[SEE] and p >= self.see_at:
            return [SEE, STAY]  # see when you believe you are ahead; it costs double
        if p >= v.flush_at:
            return [*self.smallest_raise(mask), STAY]  # do not sit at the table minimum
        if p >= v.pair_at:
            # Pairs are decent with many players, but not worth the stack, nor strong early bets;
            # once more is in the pot from this hand than is left in the stack, the pot is
            # committed: stay (and, short, cover the pot, B16) rather than give it all up.
            scared = v.raises_since_mine >= self.fear_raises
            committed = v.chips_in >= v.chips
            too_dear = v.stay_cost > self.max_share * max(v.chips, 1) and not committed
            return [FOLD] if scared or too_dear else [STAY]
        # A high card only: fold; heads-up, play one better than the median hand.
        return [STAY] if heads_up and p >= 0.5 else [FOLD]

    compiled_style: ClassVar[int] = TIPS

    def kernel_params(self) -> list[float]:
        v = self.view
        blind = [self.blind_hands, self.look_stake, self.look_pot, self.blind_raise]
        open_ = [self.fear_raises, self.max_share, self.see_at, self.slowplay_pot]
        return [*blind, *open_, v.pair_at, v.flush_at, v.prial_at]


@register("brag", "never_look")
class NeverLook(CompiledStyle):
    """Never looks; stays blind (raising with probability ``raise``) and covers when short."""

    DEFAULTS: ClassVar[dict[str, Any]] = {"raise": 0.0}

    def preferences(self, v: BragView, mask: np.ndarray) -> list[int]:
        chance = self.params["raise"]  # a Python keyword: no attribute access
        if chance > 0 and self.rng.random() < chance:
            return [*self.smallest_raise(mask), STAY]
        return [STAY]

    compiled_style: ClassVar[int] = NEVER_LOOK

    def kernel_params(self) -> list[float]:
        return [self.params["raise"]]
