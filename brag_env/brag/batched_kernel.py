"""The compiled per-table loops of ``BatchedBrag`` (Numba, B8-B21).

Every function takes the engine's arrays as a ``Tables`` named tuple (the arrays themselves,
shared with the ``BatchedBrag`` object, changed in place) and its rules as a ``Rules`` named
tuple, and loops over the given table rows one at a time: one table's move is a few scalar
updates and the observation values it changes, never a pass over every table. The batched
engine's ``legal_mask``, ``step``, ``new_session``, ``observe`` call them. The rules (antes,
thresholds, prices, the legal mask, the see and the covered pots) are not written here: the
kernels call the functions of ``brag_env.brag.rules``, the ones the scalar engine calls,
compiled from that one source.

The random draws stay in ``BatchedBrag`` (numpy's generator, the same streams as before):
these kernels take the drawn uniforms, dealers and decks as arrays. Compiled code is cached
on disk (``cache=True``), so only a process that finds no cache pays the compile.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import from_dtype, njit, types
from numba.core import cgutils
from numba.experimental import structref
from numba.extending import intrinsic, register_jitable

from brag_env import batched_native
from brag_env.batched_input import kernels_cached, stamp_source_into_caches
from brag_env.batched_native import borrowed as _borrowed
from brag_env.brag import rules
from brag_env.brag.hands import PRIAL, RUNNING_FLUSH
from brag_env.brag.observation import HISTORY_LEN
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
)
from brag_env.cards import NUM_CARDS

HAND = 3
PRIVATE = NUM_CARDS + 6 + 1  # own cards, category (six), strength
RANK_BITS = 10  # ``Rules.ranked``: a hand's strength in the low bits, its category above

# The observation fields the kernels write, as indices into ``Rules.off`` (their offsets).
FIELDS = (
    "seat_status",
    "seat_chips",
    "seat_chips_in",
    "seat_last_action",
    "seat_dealer",
    "seat_to_act",
    "stake",
    "pot",
    "hand_number",
    "choice_pending",
    "shown_cards",
    "prev_by_see",
    "prev_seat_change",
    "prev_seat_see",
    "prev_shown_cards",
    "history_seat",
    "history_action",
    "history_paid",
    "seat_covered",
    "seat_covered_pot",
    "side_pot",
)
(
    F_STATUS,
    F_CHIPS,
    F_CHIPS_IN,
    F_LAST_ACTION,
    F_DEALER,
    F_TO_ACT,
    F_STAKE,
    F_POT,
    F_HAND_NUMBER,
    F_CHOICE,
    F_SHOWN,
    F_PREV_BY_SEE,
    F_PREV_CHANGE,
    F_PREV_SEE,
    F_PREV_SHOWN,
    F_HIST_SEAT,
    F_HIST_ACTION,
    F_HIST_PAID,
    F_COVERED,
    F_COVERED_POT,
    F_SIDE_POT,
) = range(len(FIELDS))


# The arrays and rules the kernels read, declared once: (name, numpy dtype, dimensions). The
# kernels see them through one Numba struct reference each (``Tables``, ``Rules``) holding
# borrowed views (no reference count of their own): a tuple of owned arrays, or an owned array
# read from a struct, costs an atomic reference count at every call or read, which made the
# per-table loops several times slower than numpy (measured). The owner keeps the arrays.
TABLE_ARRAYS: tuple[tuple[str, type, int], ...] = (  # BatchedBrag's attributes of these names
    ("hands", np.int64, 3),
    ("strength", np.int64, 2),
    ("category", np.int64, 2),
    ("percentile", np.float64, 2),
    ("status", np.int8, 2),
    ("chips", np.int64, 2),
    ("chips_before", np.int64, 2),
    ("contributed", np.int64, 2),
    ("last_action", np.int64, 2),
    ("dealer", np.int64, 1),
    ("current", np.int64, 1),
    ("stake", np.int64, 1),
    ("pot", np.int64, 1),
    ("active", np.int64, 1),
    ("events", np.int64, 1),
    ("covered_pot", np.int64, 2),
    ("has_covered", np.bool_, 2),
    ("cover_order", np.int64, 2),
    ("num_covers", np.int64, 1),
    ("last_closed", np.int64, 1),
    ("hands_played", np.int64, 1),
    ("out", np.bool_, 2),
    ("hand_number", np.int64, 1),
    ("order", np.int64, 2),
    ("in_hand", np.int64, 1),
    ("carry_in", np.int64, 1),
    ("hand_winner", np.int64, 1),
    ("hand_carried", np.int64, 1),
    ("opened", np.bool_, 1),
    ("prev_prial", np.bool_, 1),
    ("deck", np.int64, 2),
    ("deck_head", np.int64, 1),
    ("deck_len", np.int64, 1),
    ("dealt_since", np.int64, 1),
    ("keeper", np.int64, 1),
    ("kept", np.int64, 2),
    ("choosing", np.bool_, 1),
    ("prev_delta", np.int64, 2),
    ("prev_see", np.int64, 2),
    ("prev_cards", np.int64, 3),
    ("state", np.float32, 2),
    ("looked", np.bool_, 2),  # B10: the seat has seen its cards this hand
)
_SCALAR = {int: types.int64, bool: types.boolean, float: types.float64}
RULE_FIELDS: tuple[tuple[str, object], ...] = (  # a BragConfig as the kernels read it
    ("num_players", int),
    ("num_actions", int),
    ("cover", int),  # the cover action (B16), -1 without cover_pot
    ("keep_id", int),  # B19: the two choices (used in sessions only)
    ("take_id", int),
    ("mults", (np.int64, 1)),  # B13: the raise ladder
    ("min_stake", int),
    ("max_stake", int),
    ("pot_limit", bool),
    ("blind_may_see_open", bool),
    ("allow_blind", bool),
    ("prial_bonus", int),
    ("sessions", bool),
    ("hands_per_session", int),
    ("ante", int),  # the configured ante (B8)
    ("ante_mode", int),
    ("starting_chips", int),
    ("carry_blind", bool),
    ("carry_unopened", bool),
    ("blind_keep_hand", bool),
    ("deck_size", int),
    ("inv_chips", float),
    ("inv_stake", float),
    ("inv_hands", float),
    # a hand's index among the 22,100 sets of three cards (``hand_index``) -> its strength (B21
    # order when lowball) + its standard category << RANK_BITS: one read of a 44 KB table per
    # seat dealt, where hands.py's tables by ordered cards took two reads of 420 KB
    ("ranked", (np.int16, 1)),
    ("percentile_of", (np.float64, 1)),  # strength -> percentile
    ("off", (np.int64, 1)),  # FIELDS' offsets in the observation
    ("start_state", (np.float32, 1)),  # the state row of a fresh deal
    ("seat_runs", (np.int64, 2)),  # (offset, width per seat) of the layout's seat fields
)


def _numba_type(kind) -> types.Type:
    if isinstance(kind, tuple):
        dtype, ndim = kind
        return types.Array(from_dtype(np.dtype(dtype)), ndim, "C")
    return _SCALAR[kind]


@structref.register
class TablesType(types.StructRef):
    """BatchedBrag's per-table arrays (first axis: the table), shared, changed in place."""


@structref.register
class RulesType(types.StructRef):
    """A BragConfig as numbers, lookup tables and the observation's offsets."""


class _Proxy(structref.StructRefProxy):
    """The Python handle of a struct built by ``tables_of`` / ``rules_of`` (opaque)."""


structref.define_boxing(TablesType, _Proxy)
structref.define_boxing(RulesType, _Proxy)
TABLES = TablesType([(name, _numba_type((dtype, ndim))) for name, dtype, ndim in TABLE_ARRAYS])
RULES = RulesType([(name, _numba_type(kind)) for name, kind in RULE_FIELDS])
TableArrays = namedtuple("TableArrays", [name for name, _, _ in TABLE_ARRAYS])
RuleValues = namedtuple("RuleValues", [name for name, _ in RULE_FIELDS])


def tables_of(owner) -> tuple[_Proxy, tuple]:
    """The kernels' ``Tables`` over ``owner``'s arrays of TABLE_ARRAYS' names (not copied),
    and those arrays: the caller keeps them alive as long as the struct (it borrows them)."""
    arrays = []
    for name, dtype, ndim in TABLE_ARRAYS:
        array = getattr(owner, name)
        if array.dtype != dtype or array.ndim != ndim or not array.flags.c_contiguous:
            raise TypeError(
                f"{name}: {array.dtype} {array.ndim}-d is not {np.dtype(dtype)} {ndim}-d"
            )
        arrays.append(array)
    arrays = TableArrays(*arrays)
    return _new_tables(arrays), arrays


def rules_of(**values) -> tuple[_Proxy, tuple]:
    """The kernels' ``Rules`` from RULE_FIELDS' values, and the values (kept by the caller, as
    ``tables_of``'s arrays)."""
    values = RuleValues(**values)
    return _new_rules(values), values


@njit(cache=True)
def _new_tables(a):
    t = structref.new(TABLES)
    t.hands = _borrowed(a.hands)
    t.strength = _borrowed(a.strength)
    t.category = _borrowed(a.category)
    t.percentile = _borrowed(a.percentile)
    t.status = _borrowed(a.status)
    t.chips = _borrowed(a.chips)
    t.chips_before = _borrowed(a.chips_before)
    t.contributed = _borrowed(a.contributed)
    t.last_action = _borrowed(a.last_action)
    t.dealer = _borrowed(a.dealer)
    t.current = _borrowed(a.current)
    t.stake = _borrowed(a.stake)
    t.pot = _borrowed(a.pot)
    t.active = _borrowed(a.active)
    t.events = _borrowed(a.events)
    t.covered_pot = _borrowed(a.covered_pot)
    t.has_covered = _borrowed(a.has_covered)
    t.cover_order = _borrowed(a.cover_order)
    t.num_covers = _borrowed(a.num_covers)
    t.last_closed = _borrowed(a.last_closed)
    t.hands_played = _borrowed(a.hands_played)
    t.out = _borrowed(a.out)
    t.hand_number = _borrowed(a.hand_number)
    t.order = _borrowed(a.order)
    t.in_hand = _borrowed(a.in_hand)
    t.carry_in = _borrowed(a.carry_in)
    t.hand_winner = _borrowed(a.hand_winner)
    t.hand_carried = _borrowed(a.hand_carried)
    t.opened = _borrowed(a.opened)
    t.prev_prial = _borrowed(a.prev_prial)
    t.deck = _borrowed(a.deck)
    t.deck_head = _borrowed(a.deck_head)
    t.deck_len = _borrowed(a.deck_len)
    t.dealt_since = _borrowed(a.dealt_since)
    t.keeper = _borrowed(a.keeper)
    t.kept = _borrowed(a.kept)
    t.choosing = _borrowed(a.choosing)
    t.prev_delta = _borrowed(a.prev_delta)
    t.prev_see = _borrowed(a.prev_see)
    t.prev_cards = _borrowed(a.prev_cards)
    t.state = _borrowed(a.state)
    t.looked = _borrowed(a.looked)
    return t


@njit(cache=True)
def _new_rules(v):
    t = structref.new(RULES)
    t.num_players = v.num_players
    t.num_actions = v.num_actions
    t.cover = v.cover
    t.keep_id = v.keep_id
    t.take_id = v.take_id
    t.mults = _borrowed(v.mults)
    t.min_stake = v.min_stake
    t.max_stake = v.max_stake
    t.pot_limit = v.pot_limit
    t.blind_may_see_open = v.blind_may_see_open
    t.allow_blind = v.allow_blind
    t.prial_bonus = v.prial_bonus
    t.sessions = v.sessions
    t.hands_per_session = v.hands_per_session
    t.ante = v.ante
    t.ante_mode = v.ante_mode
    t.starting_chips = v.starting_chips
    t.carry_blind = v.carry_blind
    t.carry_unopened = v.carry_unopened
    t.blind_keep_hand = v.blind_keep_hand
    t.deck_size = v.deck_size
    t.inv_chips = v.inv_chips
    t.inv_stake = v.inv_stake
    t.inv_hands = v.inv_hands
    t.ranked = _borrowed(v.ranked)
    t.percentile_of = _borrowed(v.percentile_of)
    t.off = _borrowed(v.off)
    t.start_state = _borrowed(v.start_state)
    t.seat_runs = _borrowed(v.seat_runs)
    return t


# --------------------------------------------------------------------- small rules
@njit(cache=True)
def wrap(x, size):
    """``x % size`` for 0 <= x < 2 * size: seats round the table, slots round a deck's ring
    (a division per index was the slowest part of the loops)."""
    return x - size if x >= size else x


# The game's rules, from their one source in ``brag_env.brag.rules``: the scalar engine and
# replay call those functions as plain Python; registered here, the kernels below (and the
# rule functions calling each other) compile the same source, called as ``rules.<name>``.
for _rule in rules.COMPILED_RULES:
    register_jitable(_rule)


@njit(cache=True, inline="always")
def opponent(status, r, p):
    """The other seat still in at table ``r`` (the lowest; meaningful where two are in)."""
    for s in range(status.shape[1]):
        if s != p and status[r, s] >= BLIND:
            return s
    return 0


# The helpers below that a kernel calls once per table take the arrays it read from ``Tables``
# / ``Rules`` once per call, and are inlined: each read of an array out of the struct counts a
# reference (a call, even for a borrowed view's null count), which cost 12-13% of the batched
# loop read once per table (docs/performance.md). Those called once a hand take the structs.
@njit(cache=True, inline="always")
def hand_index(a, b, c):
    """The index of the three distinct cards ``a, b, c`` (any order) among the C(52, 3) sets
    of three, in colexicographic order: C(hi, 3) + C(mid, 2) + lo."""
    lo, hi = min(a, b, c), max(a, b, c)
    mid = a + b + c - lo - hi
    return hi * (hi - 1) * (hi - 2) // 6 + mid * (mid - 1) // 2 + lo


@njit(cache=True, inline="always")
def rank_seat(hands, strength, category, percentile, ranked, percentile_of, r, s):
    """Strength, category and percentile of seat ``s``'s hand at table ``r`` (the last two
    arrays: R's ranking tables)."""
    entry = np.int64(ranked[hand_index(hands[r, s, 0], hands[r, s, 1], hands[r, s, 2])])
    value = entry & ((1 << RANK_BITS) - 1)
    strength[r, s] = value
    category[r, s] = entry >> RANK_BITS
    percentile[r, s] = percentile_of[value]


@njit(cache=True)
def copy_into(target, source):
    """``target[:] = source`` for two 1-d contiguous arrays of one size and dtype."""
    _copy(target, 0, source, 0, source.size)


@njit(cache=True, inline="always")
def copy_history(target, to, source, start, width, newest, used):
    """One history field from its ring at flat offset ``start`` of ``source`` into ``target``
    at ``to``, most recent first: the ``used`` slots from ``newest`` on (to the end of the ring,
    then from its start), then zeros (a ring's slots past the hand's events are zero)."""
    first = min(used, HISTORY_LEN - newest)
    _copy(target, to, source, start + newest * width, first * width)
    _copy(target, to + first * width, source, start, (used - first) * width)
    _zero(target, to + used * width, (HISTORY_LEN - used) * width)


@njit(cache=True, inline="always")
def clear_hand(
    stake, last_action, events, covered_pot, has_covered, num_covers, last_closed, min_stake, r
):
    """What every new hand starts from: the opening stake (B11), no actions, no covers."""
    stake[r] = min_stake
    last_action[r, :] = -1
    events[r] = 0
    covered_pot[r, :] = 0
    has_covered[r, :] = False
    num_covers[r] = 0
    last_closed[r] = 0


@njit(cache=True)
def to_bottom(T, R, r, card):
    """B18: one card under table ``r``'s deck."""
    T.deck[r, wrap(T.deck_head[r] + T.deck_len[r], R.deck_size)] = card
    T.deck_len[r] += 1


# --------------------------------------------------------------------------- masks
@njit(cache=True, inline="always")
def legal_rows(T, R, rows):
    """The legal actions of each row's seat to act as a bit set (0 where the table is over).
    The arrays are read from the structs once per call, before the loop."""
    current, choosing, active, chips = T.current, T.choosing, T.active, T.chips
    stake, status, pot, mults = T.stake, T.status, T.pot, R.mults
    sessions, choice = R.sessions, (1 << R.keep_id) | (1 << R.take_id)
    max_stake, pot_limit, blind_see, cover = R.max_stake, R.pot_limit, R.blind_may_see_open, R.cover
    bits = np.zeros(rows.size, np.int64)
    for k in range(rows.size):
        r = rows[k]
        p = current[r]
        if p < 0:
            continue
        if sessions and choosing[r]:  # B19: the keeper's choice comes before the betting
            bits[k] = choice
            continue
        in_hand = active[r]
        bits[k] = rules.legal_bits(
            chips[r, p],
            stake[r],
            status[r, p] == BLIND,
            in_hand,
            status[r, opponent(status, r, p)] if in_hand == 2 else -1,  # read only heads-up (B14)
            pot[r],
            mults,
            max_stake,
            pot_limit,
            blind_see,
            cover,
        )
    return bits


@njit(cache=True)
def masks(T, R, rows, out):
    """Each row's legal actions as a 0/1 mask (all zero on finished tables)."""
    bits = legal_rows(T, R, rows)
    for k in range(rows.size):
        for a in range(R.num_actions):
            out[k, a] = bits[k] >> a & 1


@njit(cache=True)
def first_illegal(T, R, rows, actions):
    """The index of the first row whose action is not legal, or -1."""
    bits = legal_rows(T, R, rows)
    num_actions = R.num_actions
    for k in range(rows.size):
        a = actions[k]
        if a < 0 or a >= num_actions or not bits[k] >> a & 1:
            return k
    return -1


# ---------------------------------------------------------------------------- step
def _contiguous(*arrays) -> bool:
    return all(isinstance(a, types.Array) and a.layout == "C" for a in arrays)


@intrinsic
def _copy(typingctx, target, to, source, start, count):
    """``target.flat[to : to + count] = source.flat[start : start + count]`` as one memmove
    (the ranges may overlap) for C-contiguous arrays of one dtype, the offsets counted in
    elements of the flattened arrays (no view of a row is made): an element-wise loop over
    Numba arrays that might alias is not vectorised, and a slice copy allocates a temporary."""
    if not _contiguous(target, source) or target.dtype != source.dtype:
        return None

    def codegen(context, builder, signature, args):
        itemsize = context.get_abi_sizeof(context.get_data_type(target.dtype))
        into = context.make_array(target)(context, builder, args[0]).data
        out_of = context.make_array(source)(context, builder, args[2]).data
        at, start, count = args[1], args[3], args[4]
        cgutils.raw_memmove(
            builder,
            cgutils.gep(builder, into, at),
            cgutils.gep(builder, out_of, start),
            count,
            itemsize,
        )
        return context.get_dummy_value()

    return types.none(target, types.intp, source, types.intp, types.intp), codegen


@intrinsic
def _zero(typingctx, target, at, count):
    """``target.flat[at : at + count] = 0`` as one memset (a C-contiguous float array)."""
    if not _contiguous(target) or not isinstance(target.dtype, types.Float):
        return None

    def codegen(context, builder, signature, args):
        itemsize = context.get_abi_sizeof(context.get_data_type(target.dtype))
        into = context.make_array(target)(context, builder, args[0]).data
        size = builder.mul(args[2], context.get_constant(types.intp, itemsize))
        cgutils.memset(builder, cgutils.gep(builder, into, args[1]), size, 0)
        return context.get_dummy_value()

    return types.none(target, types.intp, types.intp), codegen


@njit(cache=True)
def ring_slot(events):
    """The history ring's slot of the ``events``-th event of a hand (0-based): the ring runs
    downwards, so the last HISTORY_LEN events, most recent first, are the slots from the
    newest one's up to the end, then from the start (``observe`` copies the two runs)."""
    return HISTORY_LEN - 1 - events % HISTORY_LEN


@njit(cache=True, inline="always")
def push_event(state, events, off, n, a_n, inv, r, p, a, paid):
    """A public event into its history ring slot (each history field of table ``r``'s state row
    is a ring: one slot written per event instead of sixteen moved)."""
    slot = ring_slot(events[r])
    seat_at = off[F_HIST_SEAT] + slot * n
    action_at = off[F_HIST_ACTION] + slot * a_n
    if events[r] >= HISTORY_LEN:  # the slot holds an older event (each hand starts them zero)
        for i in range(n):
            state[r, seat_at + i] = 0.0
        for i in range(a_n):
            state[r, action_at + i] = 0.0
    state[r, seat_at + p] = 1.0
    state[r, action_at + a] = 1.0
    state[r, off[F_HIST_PAID] + slot] = paid * inv
    events[r] += 1


@njit(cache=True)
def choose(T, R, r, q, keep):
    """B19: the keeper takes the kept hand or the new one, unseen; the other goes under the
    deck, and the betting starts left of the dealer."""
    for i in range(HAND):
        to_bottom(T, R, r, T.hands[r, q, i] if keep else T.kept[r, i])
    if keep:
        copy_into(T.hands[r, q], T.kept[r])
        rank_seat(
            T.hands,
            T.strength,
            T.category,
            T.percentile,
            R.ranked,
            R.percentile_of,
            r,
            q,
        )
    T.keeper[r] = -1
    T.choosing[r] = False
    first = T.current[r] = T.order[r, 0]
    st, off = T.state[r], R.off
    st[off[F_CHOICE]] = 0.0
    st[off[F_TO_ACT] + q] = 0.0
    st[off[F_TO_ACT] + first] = 1.0


@njit(cache=True)
def carries(T, R, r, lone):
    """B15: the pot rolls over to the next deal (``rules.pot_carries``), never out of the
    session and never to a deal the lone player will not play in (short of the next ante).
    Decided before the pot is paid."""
    blind = T.status[r, lone] == BLIND
    covered = T.num_covers[r] > 0
    if not rules.pot_carries(R.carry_blind, R.carry_unopened, blind, T.opened[r], covered):
        return False
    need = rules.seat_threshold(R.ante_mode, R.ante, False)  # no see, no cover: no prial shown
    left = 0
    for s in range(R.num_players):
        if not T.out[r, s] and T.chips[r, s] >= need:
            left += 1
    goes_on = rules.session_continues(T.hand_number[r], R.hands_per_session, left)
    return goes_on and T.chips[r, lone] >= need


@njit(cache=True)
def carried(T, R, r, lone, seer, pot):
    """B15 in a session: whether the hand's ``pot`` rolls over to the next deal (``carries``;
    never after a see), kept as the next hand's ``carry_in``."""
    carry = seer < 0 and carries(T, R, r, lone)
    T.carry_in[r] = pot if carry else 0
    return carry


@njit(cache=True)
def end_hand(T, R, r, lone, seer, seen, rewards):
    """B16-B19 after a hand of a session: who sits out, the cards under the deck, the kept
    hand; returns the next hand's dealer (the button moved on past those who sit out), or -1
    at the session's end."""
    n = R.num_players
    ncov = T.num_covers[r]
    prial = False  # B8/B18: a prial among the hands shown (B14 see, B16 covers)
    for s in range(n):
        shown = T.has_covered[r, s] or (ncov > 0 and s == lone) or s in (seer, seen)
        prial = prial or (shown and T.category[r, s] == PRIAL)
    T.prev_prial[r] = prial
    need = rules.seat_threshold(R.ante_mode, R.ante, prial)
    playing = rules.sit_out_short(T.out[r], T.chips[r], need, n)  # B16: short of the ante: out
    follows = rules.session_continues(T.hand_number[r], R.hands_per_session, playing)
    keep = rules.keep_offered(  # B19: a blind player left alone may keep the hand
        R.blind_keep_hand,
        follows,
        seer >= 0,
        ncov > 0,
        T.status[r, lone] == BLIND,
        T.out[r, lone],
    )
    keeper = lone if keep else -1
    # B18: the hand's cards under the deck, each round seat by seat from the dealer's left,
    # as dealt (a B19 choice: the chosen hand); a kept hand stays out
    m = T.in_hand[r]
    for i in range(HAND):
        for j in range(m):
            s = T.order[r, j]
            if s != keeper:
                to_bottom(T, R, r, T.hands[r, s, i])
    if keep:
        copy_into(T.kept[r], T.hands[r, lone])
    T.keeper[r] = keeper
    for s in range(n):
        T.prev_delta[r, s] = np.int64(rewards[s])
    T.prev_see[r, 0] = seer
    T.prev_see[r, 1] = seen
    if seer >= 0:
        copy_into(T.prev_cards[r, 0], T.hands[r, seer])
        copy_into(T.prev_cards[r, 1], T.hands[r, seen])
    if not follows:
        T.current[r] = -1
        return -1
    return rules.next_dealer(T.dealer[r], T.out[r], n)  # B7/B16


@njit(cache=True)
def step(T, R, rows, actions, rewards, over, next_dealer, by_see):
    """Apply each row's action ``actions[k]`` (checked legal by ``first_illegal``) of its seat
    to act. Where the hand ends, ``next_dealer[k]`` is the dealer of a session's next hand to
    deal (else -1) and ``over[k]`` whether the table is over; ``by_see[k]``: ended by a see."""
    state, last_action, stake, status = T.state, T.last_action, T.stake, T.status
    chips, contributed, pot, opened = T.chips, T.contributed, T.pot, T.opened
    looked, hands, category = T.looked, T.hands, T.category
    events, active, current, strength = T.events, T.active, T.current, T.strength
    covered_pot, has_covered, last_closed = T.covered_pot, T.has_covered, T.last_closed
    cover_order, num_covers, chips_before = T.cover_order, T.num_covers, T.chips_before
    hand_carried, hand_winner, hands_played = T.hand_carried, T.hand_winner, T.hands_played
    n, a_n, off, mults = R.num_players, R.num_actions, R.off, R.mults
    inv, inv_stake, cover_id, sessions = R.inv_chips, R.inv_stake, R.cover, R.sessions
    keep_id, take_id, bonus, at_shown = R.keep_id, R.take_id, R.prial_bonus, off[F_SHOWN]
    for k in range(rows.size):
        r, a = rows[k], actions[k]
        p = current[r]
        last_at = off[F_LAST_ACTION] + p * a_n  # the seat's last action, one-hot
        old = last_action[r, p]
        if old >= 0:
            state[r, last_at + old] = 0.0
        state[r, last_at + a] = 1.0
        last_action[r, p] = a
        raised = FIRST_RAISE <= a < FIRST_RAISE + mults.size
        bet = a == STAY or raised
        see = a == SEE
        cover = cover_id >= 0 and a == cover_id
        paid = 0
        if bet or see or cover:  # B11/B13/B14/B16: chips into the pot
            if raised:
                stake[r] = rules.raised_stake(stake[r], mults[a - FIRST_RAISE])
            price = stake[r]
            blind = status[r, p] == BLIND
            if cover:
                paid = rules.cover_price(chips[r, p])
            elif see:
                paid = rules.see_price(price, blind)
            else:
                paid = rules.stay_price(price, blind)
            chips[r, p] -= paid
            contributed[r, p] += paid
            pot[r] += paid
            if sessions and paid > 0:  # B15: the pot is opened once someone pays a stake
                opened[r] = True
            state[r, off[F_CHIPS] + p] = chips[r, p] * inv
            state[r, off[F_CHIPS_IN] + p] = contributed[r, p] * inv
            state[r, off[F_STAKE]] = price * inv_stake
            state[r, off[F_POT]] = pot[r] * inv
        if a == LOOK:  # B10: the turn stays with the player, now open
            status[r, p] = OPEN
            state[r, off[F_STATUS] + 4 * p + BLIND] = 0.0
            state[r, off[F_STATUS] + 4 * p + OPEN] = 1.0
            looked[r, p] = True  # its private block is shown from now on (observe)
        push_event(state, events, off, n, a_n, inv, r, p, a, paid)
        if sessions and a in (keep_id, take_id):
            choose(T, R, r, p, a == keep_id)  # B19: once a hand
        leaves = a == FOLD or cover
        if leaves:  # B12/B16: out of the betting (a coverer's hand stays on the pot)
            state[r, off[F_STATUS] + 4 * p + status[r, p]] = 0.0
            state[r, off[F_STATUS] + 4 * p + FOLDED] = 1.0
            status[r, p] = FOLDED
            active[r] -= 1
            if cover:
                closed = pot[r]
                covered_pot[r, p] = closed
                has_covered[r, p] = True
                last_closed[r] = closed
                cover_order[r, num_covers[r]] = p
                num_covers[r] += 1
                state[r, off[F_COVERED] + p] = 1.0
                state[r, off[F_COVERED_POT] + p] = closed * inv
        if cover_id >= 0 and num_covers[r] > 0:  # B16: the side pot beyond the last covered
            state[r, off[F_SIDE_POT]] = (pot[r] - last_closed[r]) * inv
        winner, seer, seen = -1, -1, -1  # the hand's end, if any (B14/B15/B16)
        if leaves and active[r] == 1:  # B15/B16: the last player in wins (and meets coverers)
            winner = 0
            for s in range(n):
                if status[r, s] >= BLIND:
                    winner = s
                    break
        else:
            if bet or leaves:  # B12: the turn passes to the next seat still in
                s = current[r] = rules.next_to_act(p, status[r], n)
                state[r, off[F_TO_ACT] + p] = 0.0
                state[r, off[F_TO_ACT] + s] = 1.0
            if see:  # B14
                opp = opponent(status, r, p)
                winner = rules.see_winner(p, opp, strength[r, p], strength[r, opp])
                seer, seen = p, opp
        if winner >= 0:  # the hand ends (``seer`` >= 0: by a see)
            dealer = -1
            # written out here, not in a helper taking the arrays: binding them to a helper's
            # arguments counted their references at every hand's end (12-13% of the batched
            # loop, docs/performance.md); the sessions' helpers read the structs
            whole = pot[r]
            pot[r] = 0
            ncov = num_covers[r]
            won = whole - last_closed[r]
            carry = sessions and carried(T, R, r, winner, seer, whole)  # B15
            if carry:
                won = 0
            hand_carried[r] = whole if carry else 0
            if ncov > 0:  # B16: the side pot to the betting's winner, each covered pot to its own
                winners = np.empty(ncov, np.int64)
                champion = rules.settle_covers(
                    whole, covered_pot[r], cover_order[r], ncov, winner, strength[r], chips[r],
                    winners,
                )  # fmt: skip
            else:  # the whole pot to the last one in or the see's winner (nothing if it carries)
                chips[r, winner] += won
                champion = winner
            # as game.py's HandResult.winner: a carried pot (B15, even of no chips) has no winner
            hand_winner[r] = -1 if carry else champion
            if seer >= 0:  # B14: both hands are shown
                for i in range(HAND):
                    state[r, at_shown + hands[r, seer, i]] = 1.0
                    state[r, at_shown + hands[r, seen, i]] = 1.0
                cat = category[r, winner]  # B20 (``rules.collect_bonus``)
                if bonus and cat in (PRIAL, RUNNING_FLUSH):
                    dealt_in = status[r] != SITTING_OUT
                    rules.collect_bonus(bonus, winner, dealt_in, chips[r], np.zeros(n, np.int64))
            if ncov > 0:  # B16: hands in a covered-pot comparison are turned face up
                for i in range(HAND):
                    state[r, at_shown + hands[r, winner, i]] = 1.0
                    for j in range(ncov):
                        state[r, at_shown + hands[r, cover_order[r, j], i]] = 1.0
            for s in range(n):
                state[r, off[F_CHIPS] + s] = chips[r, s] * inv
                rewards[k, s] = chips[r, s] - chips_before[r, s]
            state[r, off[F_POT]] = 0.0
            if cover_id >= 0:
                state[r, off[F_SIDE_POT]] = 0.0
            state[r, off[F_TO_ACT] + current[r]] = 0.0
            hands_played[r] += 1
            if sessions:
                dealer = end_hand(T, R, r, winner, seer, seen, rewards[k])
            else:
                current[r] = -1
            next_dealer[k] = dealer
            over[k] = dealer < 0
            by_see[k] = see


# --------------------------------------------------------------------------- deals
@njit(cache=True)
def draw_deals(pack, uniforms):
    """The first ``len(uniforms)`` steps of a Fisher-Yates shuffle of ``pack`` per table, the
    table's uniforms ``uniforms[i, k]``: the top cards of a uniformly shuffled deck (B18)."""
    dealt, k = uniforms.shape
    size = pack.size
    cards = np.empty((k, dealt), np.int64)
    deck = pack.copy()
    spots = np.empty(dealt, np.int64)
    for t in range(k):
        for i in range(dealt):
            there = spots[i] = i + np.int64(uniforms[i, t] * (size - i))
            card = deck[there]
            deck[there] = deck[i]
            deck[i] = card
            cards[t, i] = card
        for i in range(dealt - 1, -1, -1):  # the swaps undone, last first: the pack again
            there = spots[i]
            card = deck[there]
            deck[there] = deck[i]
            deck[i] = card
    return cards


@njit(cache=True, inline="always")
def mark_dealer(state, off, r, dealer, current):
    """The dealer's and the seat to act's one-hots in table ``r``'s state row."""
    state[r, off[F_DEALER] + dealer] = 1.0
    state[r, off[F_TO_ACT] + current] = 1.0


@njit(cache=True, inline="always")
def deal_arrays(T, R):
    """The arrays both deals write (and R's ranking tables), read once per call."""
    return (
        T.hands, T.strength, T.category, T.percentile, T.status, T.chips_before, T.chips,
        T.contributed, T.dealer, T.pot, T.active, T.current, T.stake, T.last_action, T.events,
        T.covered_pot, T.has_covered, T.num_covers, T.last_closed,
        R.ranked, R.percentile_of,
    )  # fmt: skip


@njit(cache=True, inline="always")
def fresh_row(state, start_state, off, n, a_n, events, showed, r):
    """Table ``r``'s state row back to a fresh deal's (``start_state``) in a one-hand session,
    writing only what its last hand of ``events`` events can have changed: the public values,
    the history slots those events took, the shown cards if it ``showed`` any and the B16
    block. The rest (the private columns, the hand number, the B19 choice, the prev_* block,
    the other history slots) no one-hand hand writes: it holds start_state's zeros."""
    size, st = state.shape[1], r * state.shape[1]
    session_at, shown_at = off[F_HAND_NUMBER], off[F_SHOWN]
    seats_at, actions_at, paid_at = off[F_HIST_SEAT], off[F_HIST_ACTION], off[F_HIST_PAID]
    _copy(state, st + PRIVATE, start_state, PRIVATE, session_at - PRIVATE)
    if showed:
        _zero(state, st + shown_at, NUM_CARDS)
    used = min(events, HISTORY_LEN)  # the ring's slots HISTORY_LEN - used .. (ring_slot)
    lo = HISTORY_LEN - used
    _zero(state, st + seats_at + lo * n, used * n)
    _zero(state, st + actions_at + lo * a_n, used * a_n)
    _zero(state, st + paid_at + lo, used)
    tail_at = paid_at + HISTORY_LEN
    _copy(state, st + tail_at, start_state, tail_at, size - tail_at)


@njit(cache=True)
def deal_hands(T, R, rows, dealers, cards):
    """One-hand sessions: B8 antes, the deal ``cards`` (3n per row, one at a time from the
    dealer's left, B9), B12's first player left of the dealer, and the state row."""
    (
        hands, strength, category, percentile, status, chips_before, chips, contributed,
        dealer, pot, active, current, stake, last_action, events, covered_pot,
        has_covered, num_covers, last_closed, ranked, percentile_of,
    ) = deal_arrays(T, R)  # fmt: skip
    state, looked = T.state, T.looked
    n, off, start_state, starting = R.num_players, R.off, R.start_state, R.starting_chips
    a_n = R.num_actions
    ante = rules.ante_due(R.ante_mode, R.ante, True, False)  # a one-hand session's hand is a first
    allow_blind = R.allow_blind
    dealt = BLIND if allow_blind else OPEN  # B10
    for k in range(rows.size):
        r, d = rows[k], dealers[k]
        # the last hand's traces, unset while what locates them is still there: the cards
        # shown at a see (two seats still in, B14) or at covers (B16), or by no hand yet
        showed = active[r] != 1 or num_covers[r] > 0
        fresh_row(state, start_state, off, n, a_n, events[r], showed, r)
        for i in range(HAND):
            for j in range(n):
                hands[r, wrap(d + 1 + j, n), i] = cards[k, i * n + j]
        first = wrap(d + 1, n)
        dealer[r] = d
        for s in range(n):
            rank_seat(
                hands, strength, category, percentile, ranked, percentile_of,
                r, s,
            )  # fmt: skip
            status[r, s] = dealt
            looked[r, s] = not allow_blind  # B10: open play has seen its cards from the start
            chips_before[r, s] = starting
            chips[r, s] = starting - ante
            contributed[r, s] = ante
        pot[r] = ante * n
        active[r] = n
        current[r] = first
        clear_hand(
            stake, last_action, events, covered_pot, has_covered, num_covers, last_closed,
            R.min_stake, r,
        )  # fmt: skip
        mark_dealer(state, off, r, d, first)


@njit(cache=True, inline="always")
def put_previous(st, prev_delta, prev_see, prev_cards, off, inv, n, r):
    """The prev_* block of the state row ``st``: the last hand's chip changes (won, lost) and
    its see."""
    for s in range(n):
        delta = prev_delta[r, s]
        st[off[F_PREV_CHANGE] + 2 * s] = max(delta, 0) * inv
        st[off[F_PREV_CHANGE] + 2 * s + 1] = max(-delta, 0) * inv
    if prev_see[r, 0] >= 0:  # B14: both hands were shown
        st[off[F_PREV_BY_SEE]] = 1.0
        st[off[F_PREV_SEE] + 2 * prev_see[r, 0]] = 1.0
        st[off[F_PREV_SEE] + 2 * prev_see[r, 1] + 1] = 1.0
        for i in range(HAND):
            st[off[F_PREV_SHOWN] + prev_cards[r, 0, i]] = 1.0
            st[off[F_PREV_SHOWN] + NUM_CARDS + prev_cards[r, 1, i]] = 1.0


@njit(cache=True)
def start_hands(T, R, rows, dealers, fresh):
    """The next hand of each session on ``rows`` (its ``hand_number`` already counted, a B18
    shuffle already made; ``fresh``: a new or reshuffled deck, nothing shown from it): the
    antes (B8), the deal (B9) to the seats still playing (B16), and its state row."""
    (
        hands, strength, category, percentile, status, chips_before, chips, contributed,
        dealer, pot, active, current, stake, last_action, events, covered_pot,
        has_covered, num_covers, last_closed, ranked, percentile_of,
    ) = deal_arrays(T, R)  # fmt: skip
    state, looked, out, order, in_hand = T.state, T.looked, T.out, T.order, T.in_hand
    hand_number, prev_prial, dealt_since, carry_in = (
        T.hand_number,
        T.prev_prial,
        T.dealt_since,
        T.carry_in,
    )
    deck, deck_head, deck_len, opened, choosing = (
        T.deck,
        T.deck_head,
        T.deck_len,
        T.opened,
        T.choosing,
    )
    keeper, prev_delta, prev_see, prev_cards = T.keeper, T.prev_delta, T.prev_see, T.prev_cards
    n, off, inv, start_state = R.num_players, R.off, R.inv_chips, R.start_state
    allow_blind = R.allow_blind
    dealt = BLIND if allow_blind else OPEN  # B10
    shown = np.empty(NUM_CARDS, np.float32)
    at_shown = off[F_SHOWN]
    for k in range(rows.size):
        r, d = rows[k], dealers[k]
        number = hand_number[r]
        first = number == 0
        ante = rules.ante_due(R.ante_mode, R.ante, first, prev_prial[r] and not first)
        if fresh[k]:
            dealt_since[r] = 0
            shown[:] = 0.0
        else:
            copy_into(shown, state[r, at_shown : at_shown + NUM_CARDS])
        m = rules.deal_order(d, out[r], n, order[r])  # B9/B16: the seats dealt in
        in_hand[r] = m
        in_pot = carry_in[r]  # B15: a carried pot stays
        for s in range(n):
            chips_before[r, s] = chips[r, s]
            paid = 0 if out[r, s] else ante
            chips[r, s] -= paid
            contributed[r, s] = paid
            in_pot += paid
        head = deck_head[r]
        for i in range(HAND):  # one card at a time, three rounds
            for j in range(m):
                hands[r, order[r, j], i] = deck[r, wrap(head + i * m + j, R.deck_size)]
        deck_head[r] = wrap(head + HAND * m, R.deck_size)
        deck_len[r] -= HAND * m
        dealt_since[r] += HAND * m
        for s in range(n):
            rank_seat(
                hands, strength, category, percentile, ranked, percentile_of,
                r, s,
            )  # fmt: skip
            status[r, s] = SITTING_OUT if out[r, s] else dealt
        pot[r] = in_pot
        dealer[r] = d
        active[r] = m
        clear_hand(
            stake, last_action, events, covered_pot, has_covered, num_covers, last_closed,
            R.min_stake, r,
        )  # fmt: skip
        opened[r] = False
        to_choose = choosing[r] = keeper[r] >= 0  # B19: the choice first
        acting = current[r] = keeper[r] if to_choose else order[r, 0]
        # the state row: a fresh deal's, then what differs in this session
        st = state[r]
        copy_into(st, start_state)
        for s in range(n):
            if out[r, s]:
                st[off[F_STATUS] + 4 * s + dealt] = 0.0
                st[off[F_STATUS] + 4 * s + SITTING_OUT] = 1.0
            st[off[F_CHIPS] + s] = chips[r, s] * inv
            st[off[F_CHIPS_IN] + s] = contributed[r, s] * inv
        st[off[F_POT]] = in_pot * inv
        st[off[F_HAND_NUMBER]] = number * R.inv_hands
        st[off[F_CHOICE]] = 1.0 if to_choose else 0.0
        copy_into(st[at_shown : at_shown + NUM_CARDS], shown)
        mark_dealer(state, off, r, d, acting)
        if not first:
            put_previous(st, prev_delta, prev_see, prev_cards, off, inv, n, r)
        for s in range(n):  # B10: open play has seen its cards from the start
            looked[r, s] = not allow_blind and not out[r, s]


# --------------------------------------------------------------------- observation
@njit(cache=True)
def observe(T, R, rows, seats, out):
    """Each row's observation for its seat, every value of ``out``'s row written once: the
    observer's private block (its cards, category and strength once it has looked, from the
    hand's arrays; zeros before), the public values from the state row, the session block, the
    history most recent first and the B16 block; for a seat other than 0 the seat fields are
    then rewritten rotated to it (each in two runs, seats ``me..n-1`` then ``0..me-1``; one
    value per seat element by element, where a call costs more than the copy), and the
    history's seats rotated as they are read. What is known to be zero is set, not read: the
    history past the hand's events, and in one-hand sessions the session block of a hand
    still on (no cards shown yet, no previous hand), whose seat fields are then not rotated."""
    state, events, current = T.state, T.events, T.current
    looked, hands, category, percentile = T.looked, T.hands, T.category, T.percentile
    seat_runs, off = R.seat_runs, R.off
    n, a_n, sessions = R.num_players, R.num_actions, R.sessions
    size = state.shape[1]
    session_at = off[F_HAND_NUMBER]
    seats_at, actions_at, paid_at = off[F_HIST_SEAT], off[F_HIST_ACTION], off[F_HIST_PAID]
    tail_at = paid_at + HISTORY_LEN  # the B16 block, if any
    for k in range(rows.size):
        r, me = rows[k], seats[k]
        at, st = k * size, r * size  # the flat offsets of the two rows
        _zero(out, at, PRIVATE)
        if looked[r, me]:  # B10: its own cards, category and strength
            for i in range(HAND):
                out[k, hands[r, me, i]] = 1.0
            out[k, NUM_CARDS + category[r, me]] = 1.0
            out[k, PRIVATE - 1] = percentile[r, me]
        _copy(out, at + PRIVATE, state, st + PRIVATE, session_at - PRIVATE)
        zeroed = not sessions and current[r] >= 0
        if zeroed:
            _zero(out, at + session_at, seats_at - session_at)
        else:
            _copy(out, at + session_at, state, st + session_at, seats_at - session_at)
        e = events[r]
        newest, used = ring_slot(e - 1), min(e, HISTORY_LEN)
        copy_history(out, at + actions_at, state, st + actions_at, a_n, newest, used)
        copy_history(out, at + paid_at, state, st + paid_at, 1, newest, used)
        _copy(out, at + tail_at, state, st + tail_at, size - tail_at)
        if me:
            for f in range(seat_runs.shape[0]):
                o, w = seat_runs[f, 0], seat_runs[f, 1]
                if zeroed and session_at <= o < seats_at:
                    continue  # the prev_* seat fields, zero
                if w == 1:
                    for i in range(n):
                        out[k, o + i] = state[r, o + wrap(me + i, n)]
                else:
                    lead = (n - me) * w
                    _copy(out, at + o, state, st + o + me * w, lead)
                    _copy(out, at + o + lead, state, st + o, me * w)
            for j in range(used):
                slot = wrap(newest + j, HISTORY_LEN)
                for i in range(n):
                    out[k, seats_at + j * n + i] = state[r, seats_at + slot * n + wrap(me + i, n)]
            _zero(out, at + seats_at + used * n, (HISTORY_LEN - used) * n)
        else:
            copy_history(out, at + seats_at, state, st + seats_at, n, newest, used)


# --------------------------------------------------------------------------- the disk cache
# The kernels BatchedBrag calls from Python (the rest are compiled into them).
ENTRY_POINTS = (
    _new_tables,
    _new_rules,
    draw_deals,
    deal_hands,
    start_hands,
    first_illegal,
    masks,
    step,
    observe,
)


stamp_source_into_caches(globals(), rules)  # a change to rules.py recompiles the kernels
stamp_source_into_caches(globals(), batched_native)  # ... as one to the shared intrinsics


def cached() -> bool:
    """Whether every entry point is in Numba's disk cache (``kernels_cached``): if not, the
    first use compiles for 20-100 s."""
    return kernels_cached(ENTRY_POINTS)
