"""The Three-Card Brag state machine: one hand and a session of hands (rules B7-B21).

Rule IDs refer to the project's rules document (``seeds/rules/brag.md``). The engine is pure
Python (numpy only for the seeded generator): no RL imports.

Seats and turns
    Seats are ``0..num_players-1`` in clockwise order; "left of" a seat is the next seat up
    (wrapping). The first bet of a hand belongs to the seat after the dealer; turns then pass up
    the seat numbers, wrapping, past seats that folded or sit out (B12, B16). ``current_player``
    is the seat to act, ``-1`` once the session is over.

Decisions
    Every call to :meth:`BragGame.apply` is one decision. The legal actions are computed once per
    decision and cached as a bit set (``legal_mask`` / ``legal_actions`` read it). LOOK (B10) does
    not pass the turn: the same seat then decides again as an open player. Three decisions are
    free: FOLD, LOOK (at most once per seat and hand) and the B19 keep/take choice (once, before
    the betting). STAY, a raise and SEE all cost chips (at least one, as S >= 2), so every hand
    ends: with 3+ players in only folds end it, and B16 leaves a seat nothing but FOLD once its
    stack is below its lowest price for staying.

Money (B11-B14)
    ``stake`` (S) is in open units and always even; a hand opens at ``min_stake``. Staying costs S
    open or S/2 blind. ``raise_{m}x`` takes S to m*S (an open player pays m*S, a blind one m*S/2);
    it is legal only if m*S <= ``max_stake``, with ``pot_limit`` only if m*S <= the pot before the
    raise, and only if the player can pay it. SEE needs exactly two players left: open sees open
    for 2S, blind sees blind for S, blind sees open for S when ``blind_may_see_open``; nobody sees a
    blind player from open. The seen player wins ties.

Dealing and the deck (B7, B9, B18, B19)
    The first dealer comes from a seeded cut: every seat draws one card from a fresh permutation
    of the deck and the highest rank deals; suits do not rank (B6), so the seats tied for the
    highest rank cut again, until one is highest. The button then moves to the next seat that
    still plays. Cards are dealt one at a time, three rounds, starting left of the dealer.

    A finished hand is returned under the remaining cards (B18), in dealing order: first cards
    first, each round seat by seat from the dealer's left (a hand kept under B19 takes the place
    of its holder's cards). The deck is shuffled before the first hand (the part below a stacked
    top, see :meth:`BragGame.new_session`), before every hand with ``shuffle="every_hand"``, and
    otherwise only when the hand before ended in a see that revealed a prial. Under B19 the kept
    hand stays out of the deck; when its holder chooses, the hand not chosen goes under the deck
    at once.

Four- and Five-card Brag (B22, ``cards_dealt`` 4 or 5)
    Each seat is dealt ``cards_dealt`` cards (one at a time, as B9) and, before the betting,
    every seat in turn from the dealer's left discards 1 or 2 of them face down: ONE decision
    per seat, an action naming the whole set of discarded positions (``discard_choices``). One
    joint choice, rather than one per card, because the worth of a discard depends on the cards
    kept together (a pair, a run): two single-card steps would split that into two decisions
    with a half-discarded state in between that nobody needs. The discard actions are private:
    they are not in ``betting`` (and so in no observation but the discarder's own). The three
    kept cards are the hand; a tie between kept hands is broken by the discards, the highest
    discarded card first (ace high; under lowball the lower discards win, the order reversed as
    B21 reverses the hands), and hands still equal go to the seen player (B14) or, against a
    coverer, to the winner of the rest (B16). Nobody plays blind (``allow_blind`` is false), so
    no B19 choice arises, and a finished hand's cards, discards included, go under the deck in
    dealing order (B18).

Sitting out and sessions (B16, B17)
    Between hands a seat with no chips, or (unless ``ante_mode="none"``) fewer chips than the
    ante, sits out for the rest of the session. The session ends after ``hands_per_session``
    hands, or earlier when fewer than two seats can still play. When a hand ends and the session
    goes on, the next hand is dealt at once (``apply`` returns the finished hand's result);
    ``previous_result`` then holds that result while the new hand is on the table (``None``
    during the first hand), so observations can show what the last hand revealed.

Interpretations of the rules where the text is open
    - B8 ``after_prial``: an ante is due on the session's first hand and after a hand whose see
      showed a prial (either hand).
    - B16: a seat whose stack is below its lowest price for staying (S/2 blind, S open) has only
      FOLD left (a blind seat with at least S/2 but under S chips may stay blind or look; once open
      it must fold).
    - B19: the keep/take choice is public (it appears in ``betting`` at no cost).
    - B20: the bonus is due when the see's winner holds a prial or running flush by the standard
      categories (also under lowball); every other seat dealt into the hand pays it, but never more
      than it holds (no debts).
    - B17: several seats may share the most chips; ``session_winners`` lists them all.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from brag_env.brag.history import HandRecord, record_to_dict
from brag_env.brag.rules import (
    BLIND,
    FIRST_RAISE,
    FOLD,
    FOLDED,
    LOOK,
    OPEN,
    SEE,
    SITTING_OUT,
    STAY,
    BragConfig,
    ante_due,
    best_seats,
    check_in_deck,
    collect_bonus,
    cover_price,
    deal_hands,
    deal_order,
    discard_choices,
    keep_offered,
    legal_bits,
    next_dealer,
    next_to_act,
    pot_carries,
    raised_stake,
    seat_threshold,
    see_price,
    see_winner,
    session_continues,
    settle_covers,
    shuffle_due,
    sit_out_short,
    stay_price,
)
from brag_env.brag.wild import config_ranking
from brag_env.cards import Deck, format_cards, make_rng, parse_cards, stacked_cards
from brag_env.clone import StateCopier

_BONUS_CATEGORIES = ("prial", "running_flush")  # B20


@dataclass
class HandResult:
    """What one finished hand did. ``deltas`` include antes and the B20 bonus; they sum to 0."""

    hand_number: int
    dealer: int
    winner: int
    by_see: bool
    deltas: list[int]
    pot: int  # the pot the winner took (the B20 bonus comes on top)
    chips: list[int]  # stacks after the hand
    shown: dict[int, list[int]] = field(default_factory=dict)  # seat -> cards, only at a see
    seer: int = -1
    seen: int = -1
    bonus: list[int] = field(default_factory=list)  # B20 chips per seat (+ winner, - others)
    keep_offer: bool = False  # B19: the winner chooses keep/take at the next deal
    # B16: (seat, pot closed by its cover) in the order the covers came; empty without covers.
    covers: list[tuple[int, int]] = field(default_factory=list)
    # B16: how the pot was shared, settled from the last cover outwards: (chips, winner,
    # coverer) per pot, the side pot first (coverer -1). Empty without covers.
    pots: list[tuple[int, int, int]] = field(default_factory=list)
    carried_in: int = 0  # B15: chips this hand's pot started with, carried from the last one
    carried: int = 0  # B15: chips rolled over into the next deal (``winner`` is then -1)
    keeper: int = -1  # B19: the seat offered the keep/take choice next deal (-1: none)

    def to_dict(self) -> dict[str, Any]:
        return {
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "winner": self.winner,
            "by_see": self.by_see,
            "deltas": list(self.deltas),
            "pot": self.pot,
            "chips": list(self.chips),
            "shown": {str(s): format_cards(c, symbols=False) for s, c in self.shown.items()},
            "seer": self.seer,
            "seen": self.seen,
            "bonus": list(self.bonus),
            "keep_offer": self.keep_offer,
            "covers": [list(c) for c in self.covers],
            "pots": [list(p) for p in self.pots],
            "carried_in": self.carried_in,
            "carried": self.carried,
            "keeper": self.keeper,
        }


class _MaskTable(dict):
    """Legal bit set -> (mask tuple, legal action tuple), built on first use."""

    def __init__(self, num_actions: int) -> None:
        super().__init__()
        self.num_actions = num_actions

    def __missing__(self, bits: int) -> tuple[tuple[bool, ...], tuple[int, ...]]:
        mask = tuple(bool(bits >> a & 1) for a in range(self.num_actions))
        entry = (mask, tuple(a for a in range(self.num_actions) if mask[a]))
        self[bits] = entry
        return entry


_MASK_TABLES: dict[int, _MaskTable] = {}


class _LegalMemo:
    """``rules.legal_bits`` with one config's options bound, its results remembered (``call``):
    the same stacks, stakes and statuses recur all session long, and a lookup is several times
    cheaper than the call. One per config, shared by its games; bounded in size. Pickles as
    the config (the memo is rebuilt, or found, on loading)."""

    __slots__ = ("call", "config")

    def __init__(self, config: BragConfig) -> None:
        self.config = config
        mults, cap, limit = config.raise_sizes, config.max_stake, config.pot_limit
        see_open, cover = config.blind_may_see_open, config.cover_action

        @lru_cache(maxsize=1 << 15)
        def call(chips: int, stake: int, blind: bool, active: int, opp: int, pot: int) -> int:
            return legal_bits(
                chips, stake, blind, active, opp, pot, mults, cap, limit, see_open, cover
            )

        self.call = call

    def __reduce__(self) -> tuple[Any, tuple[BragConfig]]:
        return _legal_for, (self.config,)


_LEGAL: dict[BragConfig, _LegalMemo] = {}


def _legal_for(config: BragConfig) -> _LegalMemo:
    legal = _LEGAL.get(config)
    if legal is None:
        legal = _LEGAL[config] = _LegalMemo(config)
    return legal


class BragGame:
    """A Brag session: deal, bet, see, settle, and deal again until the session ends."""

    __slots__ = (
        "_active",
        "_ante_due",
        "_antes",
        "_bits",
        "_blind_keep_hand",
        "_blind_sees_open",
        "_carry_blind",
        "_carry_in",
        "_carry_unopened",
        "_chips_before",
        "_choice_bits",
        "_chooser",
        "_cover_action",
        "_deal_cards",
        "_dealt",
        "_dealt_since",
        "_deck",
        "_discard_bits",
        "_discard_choices",
        "_discard_first",
        "_first_dealer",
        "_hands_per_session",
        "_keep_action",
        "_keep_choice",
        "_keep_old",
        "_keeper",
        "_legal",
        "_mask_table",
        "_max_stake",
        "_mults",
        "_order",
        "_out",
        "_pack",
        "_per",
        "_pot_limit",
        "_prev_prial",
        "_records",
        "_replaying",
        "_rng",
        "_see",
        "_shuffle_mode",
        "_shuffled",
        "_stacked",
        "_thresholds",
        "betting",
        "chips",
        "choosing",
        "config",
        "contributed",
        "covered",
        "covers",
        "current_player",
        "dealer",
        "discard_log",
        "discarding",
        "discards",
        "hand_number",
        "hand_results",
        "hands",
        "kept_hand",
        "last_action",
        "num_players",
        "pot",
        "previous_result",
        "ranking",
        "session_over",
        "shown_cards",
        "stake",
        "status",
    )

    def __init__(self, config: BragConfig | None = None) -> None:
        if config is None:
            config = BragConfig()
        if not isinstance(config, BragConfig):
            raise ValueError(f"config must be a BragConfig, got {type(config).__name__}")
        self.config = config
        n = self.num_players = config.num_players
        self._mults = config.raise_sizes
        self._keep_action = config.keep_old_hand_action
        self._choice_bits = (1 << config.keep_old_hand_action) | (1 << config.take_new_hand_action)
        self._max_stake = config.max_stake
        self._pot_limit = config.pot_limit
        self._blind_sees_open = config.blind_may_see_open
        self._blind_keep_hand = config.blind_keep_hand
        self._hands_per_session = config.hands_per_session
        self._cover_action = config.cover_action  # B16: -1 without cover_pot
        self.ranking = config_ranking(config)  # B2-B6, B21 and B25's wild cards
        # B8/B16 for this config, from the rule functions once (called once or twice a hand):
        # the ante due by [first hand][prial before], the chips to be dealt in by [prial shown].
        mode = config.ante_mode_id
        self._ante_due = tuple(
            tuple(ante_due(mode, config.ante, first, prial) for prial in (False, True))
            for first in (False, True)
        )
        self._thresholds = tuple(seat_threshold(mode, config.ante, p) for p in (False, True))
        # B15: the carry options; a covered pot in the hand switches them off (B16).
        self._carry_blind = config.blind_alone == "carries"
        self._carry_unopened = config.unopened_pot == "carries"
        self._shuffle_mode = config.shuffle_id  # B18, as rules.shuffle_due takes it
        # B1: the pack in order (the k highest ranks under deck_ranks); copied for each
        # shuffle (cheaper than a new range list).
        self._pack = list(config.deck_cards())
        # B22: cards per seat, and the discard actions (none in Three-card Brag).
        self._per = config.cards_dealt
        self._discard_choices = discard_choices(config.cards_dealt)
        self._discard_first = config.first_discard_action if self._discard_choices else -1
        self._discard_bits = sum(
            1 << (config.first_discard_action + i) for i in range(len(self._discard_choices))
        )
        self.discarding = False
        self.discards: list[list[int]] = [[] for _ in range(n)]
        self.discard_log: list[tuple[int, int]] = []  # (seat, discard action) in order
        table = _MASK_TABLES.get(config.num_actions)
        if table is None:
            table = _MASK_TABLES[config.num_actions] = _MaskTable(config.num_actions)
        self._mask_table = table
        self._legal = _legal_for(config)
        # No session yet: nobody to act.
        self.session_over = True
        self.current_player = -1
        self._bits = 0
        self.hand_number = -1
        self.dealer = -1
        self.stake = config.min_stake
        self.pot = 0
        self.chips = [config.starting_chips] * n
        self.contributed = [0] * n
        self.status = [SITTING_OUT] * n
        self.last_action = [-1] * n
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.kept_hand: list[int] | None = None
        self.choosing = False
        self.betting: list[tuple[int, int, int]] = []
        self.shown_cards: list[int] = []
        self.hand_results: list[HandResult] = []
        # The session's hand before the one on the table (public: observations show it).
        self.previous_result: HandResult | None = None
        self._records: list[HandRecord] = []
        self._replaying = False
        self._rng: np.random.Generator | None = None
        self._deck = Deck([])
        self._out = [False] * n
        self._keeper = -1
        self._keep_old: list[int] | None = None
        self._keep_choice = -1
        self._chooser = -1
        self._prev_prial = False
        self._stacked = False
        self._shuffled = False
        self._first_dealer = -1
        self._order: list[int] = []
        self._dealt: list[list[int]] = self.hands
        self._antes = [0] * n
        self._deal_cards: list[int] = []
        self._chips_before = list(self.chips)
        self._active = 0
        self._see: tuple[int, int, int] | None = None
        self.covered = [False] * n  # B16: seats that covered the pot this hand
        self.covers: list[tuple[int, int]] = []  # B16: (coverer, pot closed), in order
        self._carry_in = 0  # B15: chips carried into the hand on the table
        self._dealt_since = 0  # B18: cards dealt since the last shuffle (for the cycle)

    def copy(self) -> BragGame:
        """An independent copy of the game in its current state, for tree walks (a deep copy
        is ~10x slower): :class:`brag_env.clone.StateCopier` copies the lists (keeping the
        aliasing between them: ``_dealt`` may be ``hands``), the deck, the generator and the
        ``keep_histories`` lists; everything else (ints, tuples, the config, the shared mask
        table, finished results) is immutable and shared."""
        other = BragGame.__new__(BragGame)
        twin = StateCopier()
        for name in BragGame.__slots__:
            setattr(other, name, twin(getattr(self, name)))
        return other

    # ------------------------------------------------------------------ session
    def new_session(
        self,
        rng: np.random.Generator | int | None = None,
        deck: Sequence[int] | str | None = None,
        dealer: int | None = None,
    ) -> None:
        """Start a session and deal its first hand.

        ``rng`` drives every random choice (the cut, the shuffles); an int seeds a new generator.
        ``deck`` stacks cards on top for the first deal (top card first, dealt per B9); the rest
        of the deck is shuffled by ``rng``. ``dealer`` fixes the first dealer (else the B7 cut).
        """
        n = self.num_players
        if dealer is not None:
            dealer = _seat_number(dealer, n)
        top = None if deck is None else _deck_cards(deck)
        if top is not None:
            check_in_deck(top, self.config.deck_ranks, "deck")
        rng = make_rng(rng)
        self._rng = rng
        if dealer is None:
            dealer = self._cut(rng)
        if top is None:
            self._deck = self._shuffled_deck(self._pack[:])  # B18: before hand 1
            self._stacked = False
        else:  # the rest of the deck (B1: of deck_ranks ranks), shuffled
            self._deck = Deck(stacked_cards(top, self._pack, rng))
            self._stacked = True
        cfg = self.config
        self._first_dealer = dealer
        self.chips = [cfg.starting_chips] * n
        self._out = [False] * n
        self.hand_number = -1
        self.hand_results = []
        self._records = []
        self.shown_cards = []
        self.kept_hand = None
        self._keeper = -1
        self._prev_prial = False
        self._carry_in = 0
        self._dealt_since = 0
        self._replaying = False
        self.session_over = False
        self._start_hand()

    def _cut(self, rng: np.random.Generator) -> int:
        return seeded_cut(rng, self._pack, self.num_players)

    def _shuffled_deck(self, cards: list[int]) -> Deck:
        """B18: the given cards in an order drawn from the session's generator."""
        assert self._rng is not None
        self._rng.shuffle(cards)  # in place on a list: much cheaper than a permutation array
        deck = Deck([])  # the cards are ints already: skip Deck()'s per-card conversion
        deck.put_bottom(cards)
        return deck

    def _deal_order(self, dealer: int) -> list[int]:
        """Seats that play this hand, starting left of the dealer (B9, B12), dealer last."""
        order = [-1] * self.num_players
        return order[: deal_order(dealer, self._out, self.num_players, order)]

    def _start_hand(self) -> None:
        n, out = self.num_players, self._out
        self.hand_number += 1
        first = self.hand_number == 0
        self.previous_result = None if first else self.hand_results[-1]
        ante = self._ante_due[first][self._prev_prial]  # B8
        # B7/B16: the button moves one seat, skipping seats that sit out.
        dealer = self._first_dealer if first else next_dealer(self.dealer, out, n)
        # B18: shuffle before the first hand (done in new_session), after a shown prial, or always;
        # with the cycle option also once the whole pack has gone out since the previous shuffle.
        shuffled = first and not self._stacked
        if not first and shuffle_due(
            self._shuffle_mode, self._prev_prial, self._dealt_since, len(self._pack)
        ):
            self._deck = self._shuffled_deck(self._deck.cards())
            shuffled = True
        if first or shuffled:
            self._dealt_since = 0
        if first or shuffled:
            self.shown_cards = []
        order = self._deal_order(dealer)
        chips = self.chips
        before = chips[:]
        antes = [0] * n
        for s in order:
            chips[s] -= ante
            antes[s] = ante
        # B9: one card at a time, three rounds (B22: four or five), from the left of the dealer.
        k = len(order)
        per = self._per
        self._dealt_since += per * k
        cards = self._deal_cards = self._deck.deal_many(per * k)
        hands = deal_hands(cards, order, per, n)  # B16: a seat that sits out gets []
        self._open_hand(dealer, order, hands, antes, before, shuffled)

    def _open_hand(
        self,
        dealer: int,
        order: list[int],
        hands: list[list[int]],
        antes: list[int],
        before: list[int],
        shuffled: bool,
    ) -> None:
        """Set the per-hand state after the antes and the deal."""
        cfg = self.config
        n = self.num_players
        self.dealer = dealer
        self._order = order
        self.hands = hands
        # The dealt hands stay as dealt when a B19 choice or a B22 discard replaces one.
        self._dealt = list(hands) if self._keeper >= 0 or self._discard_first >= 0 else hands
        start = BLIND if cfg.allow_blind else OPEN  # B10
        status = [SITTING_OUT] * n
        for s in order:
            status[s] = start
        self.status = status
        self._antes = antes
        self.contributed = antes[:]
        self.pot = sum(antes) + self._carry_in  # B15: a carried pot stays on the table
        self.stake = cfg.min_stake  # B11: the opening stake
        self.last_action = [-1] * n
        self.betting = []
        self._active = len(order)
        self._chips_before = before
        self._shuffled = shuffled
        self._see = None
        if self.covers:
            self.covered = [False] * n
            self.covers = []
        self._keep_choice = -1
        if self._keeper >= 0:
            # B19: the keeper's first decision, before the betting.
            self._keep_old = self.kept_hand
            self._chooser = self._keeper
            self.choosing = True
            self.current_player = self._keeper
            self._bits = self._choice_bits
        else:
            self._keep_old = None
            self.choosing = False
            self.current_player = order[0]
            if self._discard_first >= 0:  # B22: everyone discards before the betting
                self.discarding = True
                self.discards = [[] for _ in range(n)]
                self.discard_log = []
                self._bits = self._discard_bits
            else:
                self._update_mask()

    def _setup_replay(
        self,
        hand_number: int,
        dealer: int,
        sitting_out: Sequence[int],
        chips_before: Sequence[int],
        antes: Sequence[int],
        dealt: Sequence[Sequence[int]],
        keep: tuple[int, list[int]] | None,
        previous: HandResult | None = None,
        carried_in: int = 0,
    ) -> None:
        """Put the game at the start of a recorded hand (used by ``replay.replay_hand``).

        The hand then plays as usual, but the session stops when it ends. ``previous`` is the
        result of the session's hand before it, if known (observations show it).
        """
        n = self.num_players
        self._out = [s in sitting_out for s in range(n)]
        order = self._deal_order(dealer)
        self.hand_number = hand_number
        self.chips = list(chips_before)
        for s in order:
            self.chips[s] -= antes[s]
        self._replaying = True
        self.session_over = False
        self._deck = Deck([])
        self._stacked = False
        self.shown_cards = []
        self.hand_results = []
        self.previous_result = previous
        self._records = []
        self._carry_in = carried_in
        if keep is not None:
            self._keeper, self.kept_hand = keep[0], list(keep[1])
        else:
            self._keeper, self.kept_hand = -1, None
        hands = [list(h) for h in dealt]
        self._open_hand(dealer, order, hands, list(antes), list(chips_before), False)

    # ------------------------------------------------------------------ decisions
    def legal_mask(self) -> tuple[bool, ...]:
        """One bool per action id for the seat to act (cached per decision)."""
        return self._mask_table[self._bits][0]

    def legal_actions(self) -> list[int]:
        """The legal action ids for the seat to act, ascending."""
        return list(self._mask_table[self._bits][1])

    @property
    def legal_bits(self) -> int:
        """The legal actions as a bit set (bit ``a`` set when action ``a`` is legal)."""
        return self._bits

    def _update_mask(self) -> None:
        p = self.current_player
        status = self.status
        active = self._active
        self._bits = self._legal.call(
            self.chips[p],
            self.stake,
            status[p] == BLIND,
            active,
            status[self._opponent(p)] if active == 2 else -1,  # read only heads-up (B14)
            # B13: the pot is read only under the pot limit, and never above max_stake (no
            # raise goes past it): the same answer for fewer distinct arguments to remember
            min(self.pot, self._max_stake) if self._pot_limit else 0,
        )

    def _opponent(self, p: int) -> int:
        status = self.status
        for q in self._order:
            if q != p and status[q] >= BLIND:
                return q
        raise AssertionError("no opponent left")  # unreachable: called with two players in

    def apply(self, action: int) -> HandResult | None:
        """Play one decision for ``current_player``.

        Returns the :class:`HandResult` when this action ended a hand (the next hand, if the
        session goes on, is then already dealt), else ``None``. Raises ``ValueError`` for an
        illegal action or when the session is over.
        """
        if action.__class__ is not int:
            action = self._as_action(action)
        if action < 0 or not (self._bits >> action) & 1:
            raise ValueError(self._illegal_message(action))
        p = self.current_player
        status = self.status
        if action == STAY or FIRST_RAISE <= action < self._keep_action:
            if action != STAY:  # B13: raise to m * S
                self.stake = raised_stake(self.stake, self._mults[action - FIRST_RAISE])
            cost = stay_price(self.stake, status[p] == BLIND)  # B11: a fresh bet each turn
            self.chips[p] -= cost
            self.contributed[p] += cost
            self.pot += cost
            self.last_action[p] = action
            self.betting.append((p, action, cost))
        elif action == FOLD:
            status[p] = FOLDED
            self.last_action[p] = FOLD
            self.betting.append((p, FOLD, 0))
            self._active -= 1
            if self._active == 1:  # B15: the last player in wins (B16: goes on to compare)
                return self._finish(self._opponent(p), -1)
        elif action == LOOK:  # B10: does not end the turn
            status[p] = OPEN
            self.last_action[p] = LOOK
            self.betting.append((p, LOOK, 0))
            self._update_mask()
            return None
        elif action == SEE:
            return self._see_now(p)
        elif action == self._cover_action:
            if self._cover(p):  # B16: one player left: compare at once
                return self._finish(self._opponent(p), -1)
        elif self.discarding:
            self._discard(p, action)
            return None
        else:
            self._choose(p, action)
            return None
        self.current_player = next_to_act(p, status, self.num_players)  # B12
        self._update_mask()
        return None

    def _see_now(self, p: int) -> HandResult:
        """B14: pay for the see, show both hands; ties go to the seen player."""
        opp = self._opponent(p)
        cost = see_price(self.stake, self.status[p] == BLIND)
        self.chips[p] -= cost
        self.contributed[p] += cost
        self.pot += cost
        self.last_action[p] = SEE
        self.betting.append((p, SEE, cost))
        self._see = (p, opp, cost)
        return self._finish(see_winner(p, opp, self._hand_key(p), self._hand_key(opp)), p)

    def _hand_key(self, s: int) -> Any:
        """Seat ``s``'s hand as a value that compares as the hands do (higher wins): its
        strength (B2-B6, B21; B25: the best readings, then fewer wild cards), then under B22
        its discarded ranks, highest first, which break a tie (the lower ones under lowball,
        hence negated)."""
        strength = self.ranking.strength(self.hands[s])
        if self._discard_first < 0:
            return strength
        ranks = sorted((c >> 2 for c in self.discards[s]), reverse=True)
        return strength, tuple(-r for r in ranks) if self.config.lowball else tuple(ranks)

    def _discard(self, p: int, action: int) -> None:
        """B22: ``p`` puts the chosen cards aside face down; after the last seat, the betting
        starts at the dealer's left."""
        hand = self.hands[p]
        by_id = sorted(hand)
        out = [by_id[i] for i in self._discard_choices[action - self._discard_first]]
        self.hands[p] = [c for c in hand if c not in out]
        self.discards[p] = out
        self.discard_log.append((p, action))
        order = self._order
        i = order.index(p) + 1
        if i < len(order):
            self.current_player = order[i]
            return
        self.discarding = False
        self.current_player = order[0]
        self._update_mask()

    def _cover(self, p: int) -> bool:
        """B16: ``p`` puts in all its chips and closes the pot as it stands; True when that
        leaves one player in the betting (the hand then ends)."""
        cost = cover_price(self.chips[p])
        self.chips[p] -= cost
        self.contributed[p] += cost
        self.pot += cost
        # Out of the betting like a folded seat (turns skip it), but its hand stays on the pot.
        self.status[p] = FOLDED
        if not self.covers:
            self.covered = [False] * self.num_players
        self.covered[p] = True
        self.covers.append((p, self.pot))
        self.last_action[p] = self._cover_action
        self.betting.append((p, self._cover_action, cost))
        self._active -= 1
        return self._active == 1

    def _settle_covers(self, winner: int, pot: int) -> tuple[int, list[tuple[int, int, int]]]:
        """B16 (``rules.settle_covers``): pay the side pot to ``winner`` and each covered pot to
        its winner. Returns the last pot's winner and the shares, the side pot first."""
        covers = self.covers
        count = len(covers)
        closed = dict(covers)
        coverers = [c for c, _ in covers]
        keys = {s: self._hand_key(s) for s in (winner, *coverers)}
        winners = [-1] * count
        champion = settle_covers(pot, closed, coverers, count, winner, keys, self.chips, winners)
        pots = [(pot - covers[-1][1], winner, -1)]
        for k in range(count - 1, -1, -1):
            amount = covers[k][1] - (covers[k - 1][1] if k else 0)
            pots.append((amount, winners[k], coverers[k]))
        return champion, pots

    def _choose(self, p: int, action: int) -> None:
        """B19: keep the old blind hand or take the new one; the other three go under the deck."""
        old = self.kept_hand
        assert old is not None
        if action == self._keep_action:
            self._deck.put_bottom(self.hands[p])
            self.hands[p] = old
        else:
            self._deck.put_bottom(old)
        self.kept_hand = None
        self._keeper = -1
        self._keep_choice = action
        self.choosing = False
        self.last_action[p] = action
        self.betting.append((p, action, 0))
        self.current_player = self._order[0]  # now the first bet: the seat after the dealer
        self._update_mask()

    def _as_action(self, action: Any) -> int:
        # A bool is an int to Python, but True as "action 1" (stay) is almost surely a bug.
        if isinstance(action, (bool, np.bool_)):
            raise ValueError(f"action must be an integer action id, got the bool {action!r}")
        try:
            return operator.index(action)
        except TypeError:
            raise ValueError(f"action must be an integer action id, got {action!r}") from None

    def _illegal_message(self, action: int) -> str:
        if self.session_over:
            return "the session is over: call new_session() to play again"
        names = self.config.action_names
        legal = ", ".join(names[a] for a in self._mask_table[self._bits][1])
        if not 0 <= action < len(names):
            return f"action {action} is out of range 0..{len(names) - 1} (legal now: {legal})"
        return (
            f"action {names[action]!r} ({action}) is illegal for seat {self.current_player} "
            f"now (legal: {legal})"
        )

    # ------------------------------------------------------------------ end of a hand
    def _finish(self, winner: int, seer: int) -> HandResult:
        """End the hand: ``winner`` won the betting (a see with ``seer``, or the last one in)."""
        chips = self.chips
        pot = self.pot
        self.pot = 0
        order = self._order
        covers = self.covers
        lone = winner  # the betting's winner: B16 compares its hand with every coverer
        carried_in = self._carry_in
        pots: list[tuple[int, int, int]] = []
        carried = 0
        if covers:
            winner, pots = self._settle_covers(lone, pot)
        elif seer < 0 and (self._carry_blind or self._carry_unopened) and self._may_carry(lone):
            # B15: the pot rolls over to the next deal, but never carries out of the session, nor
            # to a deal its lone player will not play in (short of the next ante it sits out,
            # B16): then it wins the pot, as on the last hand.
            threshold = self._thresholds[False]
            if self._another_hand(threshold, False) and chips[lone] >= threshold:
                carried, winner = pot, -1
            else:
                chips[lone] += pot
        else:
            chips[winner] += pot
        if seer >= 0:
            shown, bonus, prial_shown = self._show(lone, seer)
        else:
            shown, bonus, prial_shown = {}, [], False
        if covers:  # B16: hands in a covered-pot comparison are turned face up
            for s in (lone, *(c for c, _ in covers)):
                if s not in shown:
                    cards = shown[s] = list(self.hands[s])
                    self.shown_cards.extend(cards)
                    prial_shown = prial_shown or self.ranking.category(cards) == "prial"
        self._prev_prial = prial_shown
        self._carry_in = carried
        deltas = list(map(operator.sub, chips, self._chips_before))

        # B16/B17: who can still play, and whether another hand follows.
        follows = self._another_hand(self._thresholds[prial_shown], True)
        # B19: a blind player left alone (winning, or under B15 carrying) may keep the unseen
        # hand (sessions only; never after a B16 comparison, which shows it).
        keep_offer = keep_offered(
            self._blind_keep_hand,
            follows,
            seer >= 0,
            bool(covers),
            self.status[lone] == BLIND,
            self._out[lone],
        )
        keeper = lone if keep_offer else -1

        # B18: the hand's cards to the bottom in deal order; a kept hand stays out.
        hands = self.hands
        if keep_offer or self._keep_old is not None:
            bottom = [hands[s][r] for r in (0, 1, 2) for s in order if s != keeper]
        else:
            bottom = self._deal_cards  # nothing was swapped: exactly the cards as dealt
        self._deck.put_bottom(bottom)
        if keep_offer:
            self.kept_hand = hands[keeper]
            self._keeper = keeper

        result = HandResult(
            self.hand_number,
            self.dealer,
            winner,
            seer >= 0,
            deltas,
            pot,
            chips[:],
            shown,
            seer,
            self._see[1] if seer >= 0 else -1,  # type: ignore[index]
            bonus,
            keep_offer,
            list(covers),
            pots,
            carried_in,
            carried,
            keeper,
        )
        self.hand_results.append(result)
        keep = (
            None if self._keep_old is None else (self._chooser, self._keep_old, self._keep_choice)
        )
        # The record keeps references to per-hand lists that are never changed again; the
        # history module formats it on demand.
        self._records.append(
            HandRecord(
                order,
                self._shuffled,
                self._stacked and self.hand_number == 0,
                self._chips_before,
                self._antes,
                self._dealt,
                hands,
                keep,
                self.betting,
                self._see,
                result,
                (self.discards, self.discard_log) if self._discard_first >= 0 else None,
            )
        )
        if follows and not self._replaying:
            self._start_hand()
        else:
            self.session_over = True
            self.current_player = -1
            self.choosing = False
            self._bits = 0
        return result

    def _may_carry(self, lone: int) -> bool:
        """B15 (``rules.pot_carries``) for a hand without covers; a pot is opened once someone
        paid a stake into it (every stay, raise and see costs chips)."""
        opened = any(cost for _, _, cost in self.betting)
        blind = self.status[lone] == BLIND
        return pot_carries(self._carry_blind, self._carry_unopened, blind, opened, False)

    def _another_hand(self, threshold: int, commit: bool) -> bool:
        """B16/B17: whether a next hand follows, seats under ``threshold`` sitting out from now
        on (marked only when ``commit``)."""
        out = self._out if commit else self._out[:]
        left = sit_out_short(out, self.chips, threshold, self.num_players)
        return session_continues(self.hand_number, self._hands_per_session, left)

    def _show(self, winner: int, seer: int) -> tuple[dict[int, list[int]], list[int], bool]:
        """After a see (B14): the shown hands, the B20 bonus and whether a prial was shown."""
        assert self._see is not None
        hands, chips = self.hands, self.chips
        shown = {s: list(hands[s]) for s in (seer, self._see[1])}
        for cards in shown.values():
            self.shown_cards.extend(cards)
        cats = {s: self.ranking.category(cards) for s, cards in shown.items()}  # B25: readings
        bonus: list[int] = []
        due = self.config.prial_bonus
        if due and cats[winner] in _BONUS_CATEGORIES:  # B20
            bonus = [0] * self.num_players
            dealt_in = [status != SITTING_OUT for status in self.status]
            collect_bonus(due, winner, dealt_in, chips, bonus)
        return shown, bonus, "prial" in cats.values()

    # ------------------------------------------------------------------ read-only views
    def history(self) -> list[dict[str, Any]]:
        """JSON-serialisable histories of the finished hands of this session, in order.

        Each one can be replayed with :func:`brag_env.brag.replay.replay_hand`.
        """
        return [record_to_dict(rec, self.config) for rec in self._records]

    @property
    def session_winners(self) -> list[int]:
        """B17: the seats with the most chips (more than one on a tie)."""
        return list(best_seats(self.chips))

    @property
    def sitting_out(self) -> list[int]:
        """Seats that sit out for the rest of the session (B16)."""
        return [s for s in range(self.num_players) if self._out[s]]

    @property
    def deck_cards(self) -> list[int]:
        """The undealt cards, top first (for tests and tools; players never see them)."""
        return self._deck.cards()

    def __repr__(self) -> str:
        return (
            f"BragGame(hand={self.hand_number}, dealer={self.dealer}, to_act="
            f"{self.current_player}, stake={self.stake}, pot={self.pot}, chips={self.chips})"
        )


def seeded_cut(rng: np.random.Generator, pack: Sequence[int], num_players: int) -> int:
    """B7: the first dealer, by a cut: every seat draws a card, the highest card deals. Suits
    never rank (B6), so the seats tied on the highest rank cut again, from a fresh pack, until
    one is highest. (Seven-card Brag, B24, draws its first dealer the same way.)"""
    contenders: Sequence[int] = range(num_players)
    while True:
        cards = list(pack)
        rng.shuffle(cards)
        cards = cards[: len(contenders)]
        best = max(cards)
        low = best & ~3  # the lowest card of the highest rank cut (rank r: cards 4r..4r+3)
        if sorted(cards)[-2] < low:  # nobody else cut that rank
            return contenders[cards.index(best)]
        contenders = [s for s, c in zip(contenders, cards, strict=True) if c >= low]


def _seat_number(dealer: Any, n: int) -> int:
    """The ``dealer`` argument as a seat, or a ValueError naming it (bools are refused)."""
    if isinstance(dealer, (bool, np.bool_)):
        raise ValueError(f"dealer must be a seat number, got the bool {dealer!r}")
    try:
        seat = operator.index(dealer)
    except TypeError:
        raise ValueError(f"dealer must be a seat number, got {dealer!r}") from None
    if not 0 <= seat < n:
        raise ValueError(f"dealer must be a seat in 0..{n - 1}, got {seat}")
    return seat


def _deck_cards(deck: Any) -> list[int]:
    """The ``deck`` argument (card text or card ints, top first) as distinct card ids."""
    if isinstance(deck, (bytes, bytearray, memoryview)):
        raise ValueError(f"deck must be card text or a list of card ints, got {deck!r}")
    if not isinstance(deck, str):
        try:
            deck = list(deck)
        except TypeError:
            raise ValueError(
                f"deck must be card text or a list of card ints, got {deck!r}"
            ) from None
    try:
        return parse_cards(deck)
    except ValueError as err:
        raise ValueError(f"deck: {err}") from None
