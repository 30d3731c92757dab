"""Brag configuration and action ids: every option of the rules in one validated dataclass.

Rule IDs (B1..B25) refer to the project's rules document ``seeds/rules/brag.md``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import IntEnum
from itertools import combinations
from typing import Any, Literal

from brag_env.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS, format_cards
from brag_env.config_checks import check_bool as _check_bool
from brag_env.config_checks import check_choice as _check_choice
from brag_env.config_checks import check_int as _check_int
from brag_env.config_checks import int_tuple, is_int, known_options

AnteMode = Literal["every_hand", "after_prial", "none"]
ShuffleMode = Literal["after_prial", "every_hand", "after_prial_or_cycle"]
CarryMode = Literal["wins", "carries"]
WildMode = Literal["none", "braggers", "nines", "aces"]

ANTE_MODES = ("every_hand", "after_prial", "none")
SHUFFLE_MODES = ("after_prial", "every_hand", "after_prial_or_cycle")
# The modes as the ints the rule functions below take (the index in the tuples above), so the
# same functions run in Python and compiled in the batched kernel.
ANTE_EVERY_HAND, ANTE_AFTER_PRIAL, ANTE_NONE = range(len(ANTE_MODES))  # B8
SHUFFLE_AFTER_PRIAL, SHUFFLE_EVERY_HAND, SHUFFLE_OR_CYCLE = range(len(SHUFFLE_MODES))  # B18
CARRY_MODES = ("wins", "carries")
WILD_MODES = ("none", "braggers", "nines", "aces")  # B25
MIN_PLAYERS, MAX_PLAYERS = 2, 8

# Fixed action ids. The raise ladder (B13) follows SEE, then the two B19 choices, then (only
# with cover_pot) COVER: without it the layout is exactly the one of the original rules.
FOLD, STAY, LOOK, SEE = 0, 1, 2, 3
FIRST_RAISE = 4
CARDS_DEALT = (3, 4, 5)  # B22
HAND_SIZE = 3  # the cards a hand is ranked on (B2-B6)


class SeatStatus(IntEnum):
    """Where a seat stands in the hand (B10, B16); the value is also the seat's column in the
    observation's ``seat_status`` one-hot. A coverer is FOLDED: out of the betting, its hand
    still on the pot."""

    SITTING_OUT = 0  # B16, B17: dealt no cards this hand
    FOLDED = 1
    BLIND = 2  # B10: has not looked at its cards
    OPEN = 3


STATUS_NAMES: tuple[str, ...] = tuple(status.name.lower() for status in SeatStatus)
# SeatStatus as plain ints: the engines' state holds these (and compiled code reads them).
SITTING_OUT, FOLDED, BLIND, OPEN = (int(status) for status in SeatStatus)


# --------------------------------------------------------------------- the rules as functions
# Each rule below is written once and called by every engine: the scalar ``BragGame`` and the
# history checks of ``replay`` call them as plain Python, the batched kernel
# (``batched_kernel``) compiles these same functions with Numba. So they take and return ints,
# bools and int sequences only (a tuple, list, dict or numpy row), with no Python-only feature
# that Numba's nopython mode refuses. Modes are the int ids above (``BragConfig.ante_mode_id``).


def ante_due(ante_mode: int, ante: int, first: bool, prial_before: bool) -> int:
    """B8: the ante each seat dealt in pays on the next hand. ``first``: the session's first
    hand (under ``after_prial`` it always pays); ``prial_before``: the hand before showed a
    prial (at a see or a B16 comparison)."""
    if ante_mode == ANTE_EVERY_HAND:
        return ante
    if ante_mode == ANTE_AFTER_PRIAL and (first or prial_before):
        return ante
    return 0


def seat_threshold(ante_mode: int, ante: int, prial_shown: bool) -> int:
    """B8/B16: the chips a seat needs to be dealt the next hand of the session: the ante when
    one is due after a hand that did (not) show a prial, and at least one chip."""
    return max(ante_due(ante_mode, ante, False, prial_shown), 1)


def shuffle_due(shuffle_mode: int, prial_before: Any, dealt_since: Any, deck_size: int) -> Any:
    """B18: whether the deck is shuffled before a hand after the session's first (the first is
    always shuffled, unless stacked): always under ``every_hand``, after a hand that showed a
    prial, and under ``after_prial_or_cycle`` also once ``dealt_since`` (cards dealt since the
    last shuffle) reaches the deck's size. Bitwise operators only, so that ``prial_before`` and
    ``dealt_since`` may be numpy arrays (one entry per table) as well as a bool and an int."""
    return (
        (shuffle_mode == SHUFFLE_EVERY_HAND)
        | prial_before
        | ((shuffle_mode == SHUFFLE_OR_CYCLE) & (dealt_since >= deck_size))
    )


def next_dealer(dealer: int, out: Any, num_players: int) -> int:
    """B7/B16: the next hand's dealer, the button moved from ``dealer`` to the next seat up,
    wrapping, past the seats that sit out for the session (``out[s]`` true); -1 when none is
    left."""
    for j in range(1, num_players + 1):
        seat = dealer + j
        if seat >= num_players:
            seat -= num_players
        if not out[seat]:
            return seat
    return -1


def deal_order(dealer: int, out: Any, num_players: int, order: Any) -> int:
    """B9/B16: the seats dealt in this hand, from the dealer's left round to the dealer (last),
    past the seats that sit out (``out[s]`` true). Writes them into ``order[:k]``, ``-1`` into
    the rest of ``order`` (``num_players`` entries: a list or an array row), and returns
    ``k``. The seat to act first (B12) is ``order[0]``."""
    k = 0
    for j in range(1, num_players + 1):
        seat = dealer + j
        if seat >= num_players:
            seat -= num_players
        if not out[seat]:
            order[k] = seat
            k += 1
    for j in range(k, num_players):
        order[j] = -1
    return k


def next_to_act(seat: int, status: Any, num_players: int) -> int:
    """B12: the seat to act after ``seat``: the next one up, wrapping, still in the betting
    (``status[s]`` BLIND or OPEN: not folded, covered or sitting out, B16). Called once the
    betting has at least two seats in, so one is always found."""
    for j in range(1, num_players + 1):
        nxt = seat + j
        if nxt >= num_players:
            nxt -= num_players
        if status[nxt] >= BLIND:
            return nxt
    return -1


def sit_out_short(out: Any, chips: Any, threshold: int, num_players: int) -> int:
    """B16: every seat with fewer than ``threshold`` chips (``seat_threshold``) sits out the
    rest of the session: ``out[s]`` is set, never cleared. Returns the seats still playing."""
    playing = 0
    for seat in range(num_players):
        if chips[seat] < threshold:
            out[seat] = True
        if not out[seat]:
            playing += 1
    return playing


def session_continues(hand_number: int, hands_per_session: int, seats_left: int) -> bool:
    """B17: whether another hand follows hand ``hand_number`` (0-based): the session has hands
    left and at least two seats can still play (``seats_left``: those not sitting out, B16)."""
    return hand_number + 1 < hands_per_session and seats_left >= 2


def keep_offered(
    blind_keep_hand: bool,
    follows: bool,
    seen: bool,
    covered: bool,
    lone_blind: bool,
    lone_out: bool,
) -> bool:
    """B19: whether the lone player of a hand won without a see may keep its unseen hand for
    the next deal: the option is on, another hand follows (B17), nobody saw (``seen``) nor
    covered (B16: a comparison shows the hands), the lone player is still blind, and it does
    not sit the next deal out (``lone_out``, B16)."""
    return blind_keep_hand and follows and not seen and not covered and lone_blind and not lone_out


def pot_carries(
    carry_blind: bool, carry_unopened: bool, lone_blind: bool, opened: bool, covered: bool
) -> bool:
    """B15: whether a pot won without a see is one that rolls over to the next deal: its lone
    player is blind under ``blind_alone="carries"`` (``carry_blind``), or nobody paid a stake
    into it (not ``opened``) under ``unopened_pot="carries"``; never once a seat covered it
    (B16: the hands are compared). Whether the session goes on (B17) and the lone player can
    play the next deal (``seat_threshold``) the engines check besides."""
    if covered:
        return False
    return (carry_blind and lone_blind) or (carry_unopened and not opened)


def stay_price(stake: int, blind: bool) -> int:
    """B11: a stay costs the stake open and half of it blind (the stake is even)."""
    return stake >> 1 if blind else stake


def raised_stake(stake: int, multiplier: int) -> int:
    """B13: the stake after a raise by ``multiplier``; the raiser then pays its stay price."""
    return multiplier * stake


def see_price(stake: int, blind: bool) -> int:
    """B14: a see costs twice the stay: 2S open, S blind."""
    return stake if blind else 2 * stake


def cover_price(chips: int) -> int:
    """B16: a cover puts in every chip the seat has left."""
    return chips


def legal_bits(
    chips: int,
    stake: int,
    blind: bool,
    active: int,
    opponent_status: int,
    pot: int,
    multipliers: Any,
    max_stake: int,
    pot_limit: bool,
    blind_may_see_open: bool,
    cover_action: int,
) -> int:
    """The legal betting actions of the seat to act, as a bit set (bit ``a``: action ``a``).

    ``chips``: the seat's stack; ``stake``: S; ``blind``: the seat has not looked (B10);
    ``active``: the seats still in the betting; ``opponent_status``: the other seat's status
    when two are in (read only then); ``pot``: the pot before a raise (B13's pot limit);
    ``multipliers``: the raise ladder (``raise_sizes``); ``cover_action``: COVER's id, -1
    without ``cover_pot``. The B19 keep/take choice and the B22 discards are phases of their
    own, not covered here.

    - B16: a seat short of its stay price may only fold, or cover (with ``cover_pot``); a blind
      one may also look first.
    - B10/B11: otherwise FOLD and STAY, and LOOK while blind.
    - B14: a see only heads-up: open sees open for 2S; blind sees blind, or open when
      ``blind_may_see_open``, for S; nobody sees a blind seat from open.
    - B13: a raise to m*S only up to ``max_stake``, with ``pot_limit`` only up to the pot, and
      only if the seat can pay its stay price at the new stake.
    """
    if chips < stay_price(stake, blind):
        bits = 1 << FOLD
        if cover_action >= 0:
            bits |= 1 << cover_action
            if blind:
                bits |= 1 << LOOK
        return bits
    bits = (1 << FOLD) | (1 << STAY)
    if blind:
        bits |= 1 << LOOK
    if active == 2 and chips >= see_price(stake, blind):
        if blind:
            may_see = blind_may_see_open or opponent_status == BLIND
        else:
            may_see = opponent_status == OPEN
        if may_see:
            bits |= 1 << SEE
    for i in range(len(multipliers)):
        new = raised_stake(stake, multipliers[i])
        if new <= max_stake and (not pot_limit or new <= pot) and stay_price(new, blind) <= chips:
            bits |= 1 << (FIRST_RAISE + i)
    return bits


def see_winner(seer: int, seen: int, seer_key: Any, seen_key: Any) -> int:
    """B14: the seat that wins a see; ``*_key`` rank the two hands (higher wins), and the seen
    player wins ties."""
    return seer if seer_key > seen_key else seen


def collect_bonus(bonus: int, winner: int, dealt_in: Any, chips: Any, paid: Any) -> None:
    """B20: the see's ``winner`` (holding a prial or running flush) collects ``bonus`` from every
    other seat dealt into the hand (``dealt_in[s]`` true), never more than that seat holds.
    Moves the chips in ``chips`` and adds each seat's change to ``paid`` (the winner's
    positive, the payers' negative)."""
    for seat in range(len(chips)):
        if seat != winner and dealt_in[seat]:
            pay = min(bonus, chips[seat])
            chips[seat] -= pay
            chips[winner] += pay
            paid[seat] -= pay
            paid[winner] += pay


def settle_covers(
    pot: int,
    closed: Any,
    coverers: Any,
    count: int,
    lone: int,
    keys: Any,
    chips: Any,
    winners: Any,
) -> int:
    """B16: share a pot that ``count`` seats covered. ``coverers`` are the coverers in the order
    they covered, ``closed[s]`` the pot as coverer ``s`` closed it, ``lone`` the betting's
    winner, ``keys[s]`` seat ``s``'s hand rank (higher wins). The side pot beyond the last
    closed pot goes to ``lone``; then each covered pot, from the last closed outwards, to the
    better of its coverer and the winner of everything after it (the coverer loses ties).
    Adds the shares to ``chips``, writes each covered pot's winner to ``winners[k]`` (``k``:
    the cover's place in ``coverers``) and returns the winner of the first covered pot."""
    chips[lone] += pot - closed[coverers[count - 1]]
    champion = lone
    for k in range(count - 1, -1, -1):
        coverer = coverers[k]
        if keys[coverer] > keys[champion]:
            champion = coverer
        chips[champion] += closed[coverer] - (closed[coverers[k - 1]] if k else 0)
        winners[k] = champion
    return champion


def best_seats(values: Any) -> tuple[int, ...]:
    """The seats holding the highest of ``values`` (one per seat; several on a tie): B17's
    session winners by chips, and B24's best first and second hands by strength."""
    top = max(values)
    return tuple(s for s, v in enumerate(values) if v == top)


def deal_hands(cards: Any, order: Any, per: int, num_players: int) -> list[list[int]]:
    """B9 (B22's four or five cards, and B24's seven, deal the same way): ``per`` cards to each
    seat of ``order`` (the seats dealt in, the dealer's left first), one card at a time round
    the table: seat ``order[j]`` of ``k`` gets ``cards[j]``, ``cards[j + k]``, ... from the
    top of ``cards``. A seat outside ``order`` (B16: it sits out) gets an empty hand."""
    k = len(order)
    # With every seat dealt in, each entry is replaced below: no list to build per seat.
    hands: list[list[int]] = (
        [[]] * num_players if k == num_players else [[] for _ in range(num_players)]
    )
    if per == 3:  # the common deal, written out: the scalar engine deals one every hand
        for j, s in enumerate(order):
            hands[s] = [cards[j], cards[j + k], cards[j + 2 * k]]
    else:
        for j, s in enumerate(order):
            hands[s] = cards[j : per * k : k]
    return hands


def deck_cards(deck_ranks: int) -> tuple[int, ...]:
    """B1: the card ids of a deck of the ``deck_ranks`` highest ranks (A K Q ... down), every
    suit of each; ``NUM_RANKS`` is the whole pack. Seven-card Brag (B24) deals from the same."""
    return tuple(range((NUM_RANKS - deck_ranks) * NUM_SUITS, NUM_CARDS))


def check_in_deck(cards: Any, deck_ranks: int, where: str) -> None:
    """B1: a one-line ``ValueError`` (``where``: what it is about) naming the first three of
    ``cards`` that a deck of the ``deck_ranks`` highest ranks does not hold."""
    low = (NUM_RANKS - deck_ranks) * NUM_SUITS
    outside = [c for c in cards if c < low]
    if outside:
        raise ValueError(
            f"{where}: {format_cards(outside[:3], symbols=False)} not in the "
            f"{deck_ranks}-rank deck (deck_ranks)"
        )


# The rules the batched kernel compiles (``shuffle_due`` is decided in Python, per batch).
COMPILED_RULES = (
    ante_due,
    seat_threshold,
    next_dealer,
    deal_order,
    next_to_act,
    sit_out_short,
    session_continues,
    keep_offered,
    pot_carries,
    stay_price,
    raised_stake,
    see_price,
    cover_price,
    legal_bits,
    see_winner,
    collect_bonus,
    settle_covers,
)


def discard_choices(cards_dealt: int) -> tuple[tuple[int, ...], ...]:
    """B22: the positions a player may discard, one tuple per discard action, in action order.

    Positions count the player's dealt cards in ascending card id (rank, then suit; see
    ``brag_env.cards``): ``(0,)`` discards the lowest card of a four-card deal, ``(3, 4)`` the
    two highest of a five-card one. Empty for the three-card game.
    """
    return (
        tuple(combinations(range(cards_dealt), cards_dealt - HAND_SIZE)) if cards_dealt > 3 else ()
    )


@dataclass(frozen=True)
class BragConfig:
    """Every option of the Brag rules. Defaults are the spec's defaults."""

    num_players: int = 4  # B7
    ante: int = 1  # B8
    ante_mode: AnteMode = "every_hand"  # B8
    allow_blind: bool = True  # B10
    min_stake: int = 2  # B11: the opening stake S, in open units; even
    raise_sizes: tuple[int, ...] = (2,)  # B13: raise to m * S for each multiplier m
    max_stake: int = 32  # B13: S may never exceed this
    pot_limit: bool = False  # B13
    blind_may_see_open: bool = True  # B14
    blind_alone: CarryMode = "wins"  # B15: a blind player left alone wins, or the pot carries
    unopened_pot: CarryMode = "wins"  # B15: a pot nobody paid a stake into wins, or carries
    cover_pot: bool = True  # B16: a short player may cover the pot (False: must fold)
    hands_per_session: int = 1  # B17
    starting_chips: int = 200  # B17
    shuffle: ShuffleMode = "after_prial"  # B18
    blind_keep_hand: bool = True  # B19
    prial_bonus: int = 0  # B20
    lowball: bool = False  # B21
    cards_dealt: int = 3  # B22: 4 or 5 = Four-/Five-card Brag (discard 1 or 2, no blind play)
    deck_ranks: int = NUM_RANKS  # B1: only the k highest ranks (A K Q ... down), 4 suits each
    # B25 (American Brag): which cards are wild (``brag_env.brag.wild``); "none" is today's game.
    wild_cards: WildMode = "none"
    # Read by the observation only: append every public event of the hand, oldest first
    # (``brag_env.brag.observation``); no rule changes.
    perfect_recall: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "raise_sizes", int_tuple(self.raise_sizes, "raise_sizes"))
        _check_int(self, "num_players", MIN_PLAYERS, MAX_PLAYERS)
        _check_int(self, "ante", 0)
        _check_choice(self, "ante_mode", ANTE_MODES)
        _check_bool(self, "allow_blind")
        _check_int(self, "min_stake", 2)
        if self.min_stake % 2:
            raise ValueError(
                f"min_stake must be even (blind players pay half the stake), got {self.min_stake}"
            )
        if not self.raise_sizes:
            raise ValueError("raise_sizes must hold at least one multiplier")
        for m in self.raise_sizes:
            if m < 2:
                raise ValueError(f"raise_sizes multipliers must be integers >= 2, got {m}")
        if len(set(self.raise_sizes)) != len(self.raise_sizes):
            raise ValueError(f"raise_sizes must not repeat a multiplier, got {self.raise_sizes}")
        _check_int(self, "max_stake", self.min_stake)
        if self.max_stake % 2:
            raise ValueError(f"max_stake must be even, got {self.max_stake}")
        _check_bool(self, "pot_limit")
        _check_bool(self, "blind_may_see_open")
        _check_choice(self, "blind_alone", CARRY_MODES)
        _check_choice(self, "unopened_pot", CARRY_MODES)
        _check_bool(self, "cover_pot")
        _check_int(self, "hands_per_session", 1)
        _check_int(self, "starting_chips", 1)
        if self.ante_mode != "none" and self.starting_chips < self.ante:
            raise ValueError(
                f"starting_chips must be at least the ante (B16: a seat short of the ante sits "
                f"out), got starting_chips={self.starting_chips} < ante={self.ante}"
            )
        _check_choice(self, "shuffle", SHUFFLE_MODES)
        _check_bool(self, "blind_keep_hand")
        _check_int(self, "prial_bonus", 0)
        _check_bool(self, "lowball")
        if not is_int(self.cards_dealt) or self.cards_dealt not in CARDS_DEALT:
            raise ValueError(f"cards_dealt must be 3, 4 or 5, got {self.cards_dealt!r}")
        object.__setattr__(self, "cards_dealt", int(self.cards_dealt))
        _check_bool(self, "perfect_recall")
        if self.cards_dealt > HAND_SIZE and self.allow_blind:
            raise ValueError(
                f"cards_dealt={self.cards_dealt} needs allow_blind=false (B22: every player "
                "looks to discard, so nobody plays blind)"
            )
        _check_int(self, "deck_ranks", 1, NUM_RANKS)
        _check_choice(self, "wild_cards", WILD_MODES)
        if self.wild_cards != "none" and self.deck_ranks != NUM_RANKS:
            raise ValueError(
                f"wild_cards={self.wild_cards!r} needs the full deck (deck_ranks={NUM_RANKS}), "
                f"got deck_ranks={self.deck_ranks}"
            )
        need, why = self.cards_dealt * self.num_players, "to deal"
        if self.hands_per_session > 1 and self.blind_keep_hand and self.allow_blind:
            need, why = need + 3, "to deal, with a B19 kept hand out of the deck,"
        if self.deck_ranks * NUM_SUITS < need:
            raise ValueError(
                f"deck_ranks={self.deck_ranks} leaves {self.deck_ranks * NUM_SUITS} cards, too "
                f"few {why} {self.cards_dealt} each to {self.num_players} players (B9)"
            )

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None = None) -> BragConfig:
        """Build from keyword options; unknown keys raise ``ValueError`` naming them."""
        return cls(**known_options(cls, options, "Brag"))

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["raise_sizes"] = list(self.raise_sizes)
        return d

    def deck_cards(self) -> tuple[int, ...]:
        """B1: the card ids in the deck, every suit of the ``deck_ranks`` highest ranks."""
        return deck_cards(self.deck_ranks)

    @property
    def deck_size(self) -> int:
        return self.deck_ranks * NUM_SUITS

    # --- the action layout (fixed for a config) ---
    @property
    def action_names(self) -> list[str]:
        names = ["fold", "stay", "look", "see"]
        names += [f"raise_{m}x" for m in self.raise_sizes]
        names += ["keep_old_hand", "take_new_hand"]
        if self.cover_pot:
            names.append("cover")
        for positions in discard_choices(self.cards_dealt):  # B22, after every other action
            names.append("discard_" + "_".join(str(i + 1) for i in positions))
        return names

    @property
    def num_actions(self) -> int:
        return self.first_discard_action + len(discard_choices(self.cards_dealt))

    @property
    def first_discard_action(self) -> int:
        """B22: the id of the first discard action (== the count of the other actions)."""
        return FIRST_RAISE + len(self.raise_sizes) + 2 + self.cover_pot

    @property
    def discards(self) -> int:
        """B22: cards each player discards (0 in Three-card Brag)."""
        return self.cards_dealt - HAND_SIZE

    @property
    def cover_action(self) -> int:
        """B16: the COVER action id, or -1 when ``cover_pot`` is off (no such action)."""
        return FIRST_RAISE + len(self.raise_sizes) + 2 if self.cover_pot else -1

    @property
    def ante_mode_id(self) -> int:
        """B8: ``ante_mode`` as the int the rule functions take (``ANTE_EVERY_HAND`` ...)."""
        return ANTE_MODES.index(self.ante_mode)

    @property
    def shuffle_id(self) -> int:
        """B18: ``shuffle`` as the int the rule functions take (``SHUFFLE_AFTER_PRIAL`` ...)."""
        return SHUFFLE_MODES.index(self.shuffle)

    @property
    def carries(self) -> bool:
        """B15: whether some pot may be carried to the next deal under these options."""
        return self.blind_alone == "carries" or self.unopened_pot == "carries"

    @property
    def keep_old_hand_action(self) -> int:
        return FIRST_RAISE + len(self.raise_sizes)

    @property
    def take_new_hand_action(self) -> int:
        return FIRST_RAISE + len(self.raise_sizes) + 1
