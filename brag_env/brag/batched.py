"""N one-hand Three-Card Brag sessions held as numpy arrays and stepped together (B1-B16).

``BatchedBrag`` is the game ``brag_v1`` plays with ``hands_per_session=1``, one table per row:
deal, legal masks, ``step``, observations bit-equal to ``brag_v1``'s ``observe()``, the
per-seat chip changes as rewards, and ``reset`` of finished tables. ``BragGame`` stays the
reference: ``tests/test_brag_batched.py`` plays both move for move on the same deals (the
batched deal stacked on the scalar deck) and the same actions. Python loops run over the few
fixed positions (seats, history slots, covers), never over tables.

Covered: 2-8 players, blind and open betting (B10-B13, ``pot_limit``), looks, folds, sees and
ties (B14), covering the pot with its side pots at any table size (B16), lowball (B21), the
prial bonus (B20), and every ante mode (one hand: the ante is due whenever there is one). The
carry options (B15), the shuffle modes (B18) and B19 change nothing in a one-hand session
(a pot never carries out of a session), so they are accepted.

Not covered, each a one-line ``ValueError`` naming the option: multi-hand sessions
(``hands_per_session`` > 1: carried stacks and pots, the deck kept between hands, B19) and
Four-/Five-card Brag (``cards_dealt`` 4 or 5, B22).

Differences from ``BragGame`` that do not change the game: the first dealer is drawn
uniformly (the B7 cut makes every seat the dealer with probability 1/n) and the three cards
each come from a fresh uniform shuffle (B18: the deck is shuffled before a session's first
hand); the random streams are not ``brag_v1``'s. No hand histories are kept.
"""

from __future__ import annotations

import numpy as np

from brag_env.brag.hands import (
    CATEGORY_OF_STRENGTH,
    LOWBALL_STRENGTH_TABLE,
    PRIAL,
    RUNNING_FLUSH,
    STRENGTH_TABLE,
    strength_percentile,
)
from brag_env.brag.observation import HISTORY_LEN, observation_layout
from brag_env.brag.rules import FIRST_RAISE, FOLD, LOOK, SEE, STAY, BragConfig
from brag_env.cards import NUM_CARDS

SITTING_OUT, FOLDED, BLIND, OPEN = 0, 1, 2, 3  # as brag_env.brag.game
_HAND = 3
_STRIDE_A, _STRIDE_B = NUM_CARDS * NUM_CARDS, NUM_CARDS  # hands.py's flat hand index


def _unsupported(config: BragConfig) -> str | None:
    if config.hands_per_session != 1:
        return (
            f"BatchedBrag does not support hands_per_session={config.hands_per_session} "
            "(one-hand sessions only); use vec_env: dummy"
        )
    if config.cards_dealt != _HAND:
        return (
            f"BatchedBrag does not support cards_dealt={config.cards_dealt} "
            "(Three-card Brag only); use vec_env: dummy"
        )
    return None


def check_batched_brag(config: BragConfig) -> None:
    """Raise the one-line ``ValueError`` for an option ``BatchedBrag`` does not cover."""
    message = _unsupported(config)
    if message:
        raise ValueError(message)


class BatchedBrag:
    """``num_tables`` one-hand Brag sessions; every array's first axis is the table."""

    def __init__(self, num_tables: int, config: BragConfig | None = None, seed=None) -> None:
        config = config if config is not None else BragConfig()
        check_batched_brag(config)
        if not isinstance(num_tables, int) or isinstance(num_tables, bool) or num_tables < 1:
            raise ValueError(f"num_tables must be an integer >= 1, got {num_tables!r}")
        self.config = config
        self.n = num_tables
        n = self.num_players = config.num_players
        self.num_actions = config.num_actions
        self.rng = np.random.default_rng(seed)
        self._mults = np.array(config.raise_sizes, np.int64)
        self._cover = config.cover_action  # -1 without cover_pot
        self._ante = config.ante if config.ante_mode != "none" else 0
        self._strengths = LOWBALL_STRENGTH_TABLE if config.lowball else STRENGTH_TABLE
        self._inv_chips = 1.0 / config.starting_chips
        self._inv_stake = 1.0 / config.max_stake
        layout = observation_layout(config)
        self.obs_size = layout.size
        self._off = {name: f.offset for name, f in layout.fields.items()}
        self._seat_ids = np.arange(n)
        self._slots = np.arange(HISTORY_LEN)
        t = num_tables
        self.hands = np.zeros((t, n, _HAND), np.int64)  # cards in deal order (B9)
        self.strength = np.zeros((t, n), np.int64)  # B21 order when lowball
        self.category = np.zeros((t, n), np.int64)  # standard category (B20 uses it too)
        self.percentile = np.zeros((t, n), np.float64)
        self.status = np.zeros((t, n), np.int8)
        self.looked = np.zeros((t, n), bool)
        self.chips = np.zeros((t, n), np.int64)
        self.chips_before = np.zeros((t, n), np.int64)
        self.contributed = np.zeros((t, n), np.int64)
        self.last_action = np.full((t, n), -1, np.int64)
        self.dealer = np.zeros(t, np.int64)
        self.current = np.full(t, -1, np.int64)  # -1: the session is over
        self.stake = np.zeros(t, np.int64)
        self.pot = np.zeros(t, np.int64)
        self.active = np.zeros(t, np.int64)  # seats still in the betting (blind or open)
        # The hand's public events, a ring of the last HISTORY_LEN (seat, action, chips paid).
        self.hist_seat = np.zeros((t, HISTORY_LEN), np.int64)
        self.hist_action = np.zeros((t, HISTORY_LEN), np.int64)
        self.hist_paid = np.zeros((t, HISTORY_LEN), np.int64)
        self.events = np.zeros(t, np.int64)
        # B16: who covered, in order, and the pot each cover closed.
        self.covered = np.zeros((t, n), bool)
        self.covered_pot = np.zeros((t, n), np.int64)
        self.cover_order = np.zeros((t, n), np.int64)
        self.num_covers = np.zeros(t, np.int64)
        self.shown = np.zeros((t, NUM_CARDS), bool)  # cards shown at the see / comparisons
        self.hands_played = np.zeros(t, np.int64)

    # ------------------------------------------------------------------ deals
    def _draw_dealers(self, rows: np.ndarray) -> np.ndarray:
        """The dealer of each new session (uniform: the B7 cut's distribution)."""
        return self.rng.integers(self.num_players, size=rows.size)

    def _draw_deals(self, rows: np.ndarray) -> np.ndarray:
        """The 3n dealt cards of each table, top of a uniformly shuffled deck first (B18)."""
        dealt = _HAND * self.num_players
        keys = self.rng.random((rows.size, NUM_CARDS))
        cards = np.argpartition(keys, dealt - 1, axis=1)[:, :dealt]
        order = np.argsort(np.take_along_axis(keys, cards, axis=1), axis=1)
        return np.take_along_axis(cards, order, axis=1)

    def deck_top(self, row: int) -> list[int]:
        """The dealt cards of table ``row`` in deal order (to stack a scalar game's deck)."""
        n, d = self.num_players, int(self.dealer[row])
        seats = [(d + 1 + j) % n for j in range(n)]
        return [int(self.hands[row, s, i]) for i in range(_HAND) for s in seats]

    def reset(self, rows: np.ndarray | None = None) -> None:
        """Start new one-hand sessions on ``rows`` (default: every table)."""
        rows = np.arange(self.n) if rows is None else np.asarray(rows, np.int64)
        if rows.size == 0:
            return
        cfg, n = self.config, self.num_players
        dealer = self._draw_dealers(rows)
        cards = self._draw_deals(rows)  # (k, 3n): B9, one at a time from the dealer's left
        seat_of = (dealer[:, None] + 1 + self._seat_ids) % n  # deal position j -> seat
        hands = np.empty((rows.size, n, _HAND), np.int64)
        k = np.arange(rows.size)[:, None]
        for i in range(_HAND):
            hands[k, seat_of, i] = cards[:, i * n : (i + 1) * n]
        self.hands[rows] = hands
        flat = hands[..., 0] * _STRIDE_A + hands[..., 1] * _STRIDE_B + hands[..., 2]
        strength = self._strengths.take(flat).astype(np.int64)
        self.strength[rows] = strength
        self.category[rows] = CATEGORY_OF_STRENGTH.take(STRENGTH_TABLE.take(flat))
        self.percentile[rows] = strength_percentile(strength, cfg.lowball)
        self.dealer[rows] = dealer
        self.status[rows] = BLIND if cfg.allow_blind else OPEN  # B10
        self.looked[rows] = not cfg.allow_blind
        self.chips_before[rows] = cfg.starting_chips
        self.chips[rows] = cfg.starting_chips - self._ante  # B8
        self.contributed[rows] = self._ante
        self.pot[rows] = self._ante * n
        self.stake[rows] = cfg.min_stake  # B11
        self.last_action[rows] = -1
        self.active[rows] = n
        self.current[rows] = (dealer + 1) % n  # B12: the first bet is left of the dealer
        self.events[rows] = 0
        self.covered[rows] = False
        self.covered_pot[rows] = 0
        self.num_covers[rows] = 0
        self.shown[rows] = False

    # ------------------------------------------------------------------ masks
    def _opponent(self, rows: np.ndarray, p: np.ndarray) -> np.ndarray:
        """The other seat still in (meaningful where two are in)."""
        inn = self.status[rows] >= BLIND
        inn[np.arange(rows.size), p] = False
        return inn.argmax(axis=1)

    def masks(self, rows: np.ndarray | None = None) -> np.ndarray:
        """int8 legal-action masks of the seat to act (all zero on finished tables)."""
        rows = np.arange(self.n) if rows is None else np.asarray(rows, np.int64)
        cfg = self.config
        out = np.zeros((rows.size, self.num_actions), np.int8)
        live = self.current[rows] >= 0
        if not live.all():
            idx = np.flatnonzero(live)
            out[idx] = self.masks(rows[idx])
            return out
        k = np.arange(rows.size)
        p = self.current[rows]
        s = self.stake[rows]
        c = self.chips[rows, p]
        blind = self.status[rows, p] == BLIND
        price = np.where(blind, s >> 1, s)  # B11: a stay costs S open, S/2 blind
        short = c < price  # B16: only fold (and cover; a blind seat may look first)
        ok = ~short
        out[:, FOLD] = 1
        out[:, STAY] = ok
        out[:, LOOK] = blind
        if self._cover >= 0:
            out[:, self._cover] = short
        two = self.active[rows] == 2
        if two.any():
            opp_status = self.status[rows, self._opponent(rows, p)]
            sees_blind = (c >= s) & (cfg.blind_may_see_open | (opp_status == BLIND))
            sees_open = (c >= 2 * s) & (opp_status == OPEN)  # nobody sees a blind from open
            out[:, SEE] = ok & two & np.where(blind, sees_blind, sees_open)  # B14
        for i, m in enumerate(self._mults.tolist()):  # B13: the raise ladder
            new = m * s
            legal = ok & (new <= cfg.max_stake) & (np.where(blind, new >> 1, new) <= c)
            if cfg.pot_limit:
                legal &= new <= self.pot[rows]
            out[k, FIRST_RAISE + i] = legal
        return out

    # ------------------------------------------------------------------- step
    def step(self, rows: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Apply each row's action for its seat to act. Returns ``(rewards, over)``: the
        rewards (k, n) per seat of this step (every seat's chip change when its hand ends, as
        brag_v1 pays them) and whether the session ended. An illegal action raises
        ``ValueError`` before anything changes."""
        rows = np.asarray(rows, np.int64)
        actions = np.asarray(actions, np.int64)
        legal = self.masks(rows)
        ok = (actions >= 0) & (actions < self.num_actions)
        ok[ok] = legal[np.flatnonzero(ok), actions[ok]] == 1
        if not ok.all():
            bad = int(np.flatnonzero(~ok)[0])
            raise ValueError(
                f"illegal action {int(actions[bad])} on table {int(rows[bad])}; legal: "
                f"{np.flatnonzero(legal[bad]).tolist()}"
            )
        rewards = np.zeros((rows.size, self.num_players))
        over = np.zeros(rows.size, bool)
        p = self.current[rows]
        self.last_action[rows, p] = actions
        paid = np.zeros(rows.size, np.int64)
        bet = (actions == STAY) | (
            (actions >= FIRST_RAISE) & (actions < FIRST_RAISE + self._mults.size)
        )
        see = actions == SEE
        cover = actions == self._cover if self._cover >= 0 else np.zeros(rows.size, bool)
        fold = actions == FOLD
        i = np.flatnonzero(bet | see | cover)
        if i.size:  # B11/B13/B14/B16: chips into the pot
            r, q, a = rows[i], p[i], actions[i]
            raised = bet[i] & (a >= FIRST_RAISE)
            m = self._mults[np.where(raised, a - FIRST_RAISE, 0)]
            self.stake[r] = np.where(raised, m * self.stake[r], self.stake[r])
            blind = self.status[r, q] == BLIND
            s = self.stake[r]
            cost = np.where(blind, s >> 1, s)
            cost = np.where(a == SEE, np.where(blind, s, 2 * s), cost)  # B14: a see pays double
            cost = np.where(cover[i], self.chips[r, q], cost)  # B16: every chip left
            self.chips[r, q] -= cost
            self.contributed[r, q] += cost
            self.pot[r] += cost
            paid[i] = cost
        i = np.flatnonzero(actions == LOOK)
        if i.size:  # B10: the turn stays with the player, now open
            self.status[rows[i], p[i]] = OPEN
            self.looked[rows[i], p[i]] = True
        self._push(rows, p, actions, paid)
        out = fold | cover
        i = np.flatnonzero(out)
        if i.size:  # B12/B16: out of the betting (a coverer's hand stays on the pot)
            r, q = rows[i], p[i]
            self.status[r, q] = FOLDED
            self.active[r] -= 1
            c = np.flatnonzero(cover[i])
            if c.size:
                rc, qc = r[c], q[c]
                self.covered[rc, qc] = True
                self.covered_pot[rc, qc] = self.pot[rc]
                self.cover_order[rc, self.num_covers[rc]] = qc
                self.num_covers[rc] += 1
        ends = out & (self.active[rows] == 1)
        passes = (bet | out) & ~ends
        i = np.flatnonzero(passes)
        if i.size:  # B12: the turn passes to the next seat still in
            r = rows[i]
            seats = (p[i, None] + 1 + self._seat_ids) % self.num_players
            inn = self.status[r[:, None], seats] >= BLIND
            self.current[r] = seats[np.arange(r.size), inn.argmax(axis=1)]
        i = np.flatnonzero(ends)
        if i.size:  # B15/B16: the last player in wins (and meets every coverer)
            r = rows[i]
            lone = (self.status[r] >= BLIND).argmax(axis=1)
            self._finish(i, r, lone, None, rewards, over)
        i = np.flatnonzero(see)
        if i.size:  # B14: the seen player wins ties
            r, q = rows[i], p[i]
            opp = self._opponent(r, q)
            beats = self.strength[r, q] > self.strength[r, opp]
            self._finish(i, r, np.where(beats, q, opp), (q, opp), rewards, over)
        return rewards, over

    def _push(self, rows, p, actions, paid) -> None:
        slot = self.events[rows] % HISTORY_LEN
        self.hist_seat[rows, slot] = p
        self.hist_action[rows, slot] = actions
        self.hist_paid[rows, slot] = paid
        self.events[rows] += 1

    def _finish(self, i, r, lone, see, rewards, over) -> None:
        """The hand (and the one-hand session) ends: pay the pots, show, reward every seat."""
        pot = self.pot[r]
        self.pot[r] = 0
        ncov = self.num_covers[r]
        last_closed = np.where(
            ncov > 0, self.covered_pot[r, self.cover_order[r, np.maximum(ncov - 1, 0)]], 0
        )
        # B16: the side pot to the betting's winner, then each covered pot from the last
        # closed outwards to the better of its coverer and the winner so far (ties: not the
        # coverer). Without covers the whole pot is the "side pot".
        self.chips[r, lone] += pot - last_closed
        champion = lone.copy()
        for j in range(int(ncov.max()) - 1, -1, -1):
            has = ncov > j
            coverer = self.cover_order[r, j]
            closed = self.covered_pot[r, coverer]
            before = self.covered_pot[r, self.cover_order[r, max(j - 1, 0)]] if j else 0
            better = self.strength[r, coverer] > self.strength[r, champion]
            champion = np.where(has & better, coverer, champion)
            amount = np.where(has, closed - before, 0)
            self.chips[r, champion] += amount  # one seat per table: no repeated index
        if see is not None:
            seer, seen = see
            self.shown[r[:, None], self.hands[r, seer]] = True
            self.shown[r[:, None], self.hands[r, seen]] = True
            self._bonus(r, lone)
        c = np.flatnonzero(ncov > 0)
        if c.size:  # B16: every hand compared for a covered pot is shown
            rc = r[c]
            self.shown[rc[:, None], self.hands[rc, lone[c]]] = True
            for j in range(self.num_players):
                has = rc[self.num_covers[rc] > j]
                if has.size:
                    seats = self.cover_order[has, j]
                    self.shown[has[:, None], self.hands[has, seats]] = True
        rewards[i] = self.chips[r] - self.chips_before[r]
        over[i] = True
        self.current[r] = -1
        self.hands_played[r] += 1

    def _bonus(self, r: np.ndarray, winner: np.ndarray) -> None:
        """B20: a see won with a prial or running flush collects the bonus from every other
        seat, never more than it holds."""
        due = self.config.prial_bonus
        if not due:
            return
        cat = self.category[r, winner]
        pays = r[(cat == PRIAL) | (cat == RUNNING_FLUSH)]
        w = winner[(cat == PRIAL) | (cat == RUNNING_FLUSH)]
        for s in range(self.num_players):
            payer = w != s
            rs, ws = pays[payer], w[payer]
            pay = np.minimum(due, self.chips[rs, s])
            self.chips[rs, s] -= pay
            self.chips[rs, ws] += pay

    # ------------------------------------------------------------ observation
    def observe(self, rows: np.ndarray, seats: np.ndarray, out: np.ndarray | None = None):
        """Each row's observation for ``seats`` (absolute), bit-equal to brag_v1's."""
        rows = np.asarray(rows, np.int64)
        seats = np.asarray(seats, np.int64)
        k, n, size = rows.size, self.num_players, self.obs_size
        if out is None:
            out = np.zeros((k, size), np.float32)
        else:
            out[:k] = 0.0
        o, inv = self._off, self._inv_chips
        flat = out.reshape(-1)
        base = np.arange(k) * size
        rel = np.arange(n)
        absolute = (seats[:, None] + rel) % n  # relative row r shows seat observer + r
        r2 = rows[:, None]
        # own cards, category, strength: only once the observer has looked (B10)
        lk = np.flatnonzero(self.looked[rows, seats])
        if lk.size:
            rl, sl, bl = rows[lk], seats[lk], base[lk]
            flat[bl[:, None] + o["own_cards"] + self.hands[rl, sl]] = 1.0
            flat[bl + o["own_category"] + self.category[rl, sl]] = 1.0
            flat[bl + o["own_strength"]] = self.percentile[rl, sl]
        b2 = base[:, None]
        flat[b2 + o["seat_status"] + 4 * rel + self.status[r2, absolute]] = 1.0
        out[:, o["seat_chips"] : o["seat_chips"] + n] = self.chips[r2, absolute] * inv
        out[:, o["seat_chips_in"] : o["seat_chips_in"] + n] = self.contributed[r2, absolute] * inv
        last = self.last_action[r2, absolute]
        has = last >= 0
        a = self.num_actions
        flat[(b2 + o["seat_last_action"] + a * rel + last)[has]] = 1.0
        flat[base + o["seat_dealer"] + (self.dealer[rows] - seats) % n] = 1.0
        cur = self.current[rows]
        live = np.flatnonzero(cur >= 0)
        flat[base[live] + o["seat_to_act"] + (cur[live] - seats[live]) % n] = 1.0
        out[:, o["stake"]] = self.stake[rows] * self._inv_stake
        pot = self.pot[rows]
        out[:, o["pot"]] = pot * inv
        out[:, o["shown_cards"] : o["shown_cards"] + NUM_CARDS] = self.shown[rows]
        # the last HISTORY_LEN events, most recent first
        count = self.events[rows][:, None]
        valid = self._slots < count
        ring = (count - 1 - self._slots) % HISTORY_LEN
        h_seat = (self.hist_seat[r2, ring] - seats[:, None]) % n
        flat[(b2 + o["history_seat"] + n * self._slots + h_seat)[valid]] = 1.0
        h_act = self.hist_action[r2, ring]
        flat[(b2 + o["history_action"] + a * self._slots + h_act)[valid]] = 1.0
        h_paid = np.where(valid, self.hist_paid[r2, ring], 0) * inv
        out[:, o["history_paid"] : o["history_paid"] + HISTORY_LEN] = h_paid
        if self._cover >= 0:  # B16
            c = np.flatnonzero(self.num_covers[rows] > 0)
            if c.size:
                rc, ac = rows[c, None], absolute[c]
                out[c, o["seat_covered"] : o["seat_covered"] + n] = self.covered[rc, ac]
                closed = self.covered_pot[rc, ac] * inv
                out[c, o["seat_covered_pot"] : o["seat_covered_pot"] + n] = closed
                rcc = rows[c]
                lastc = self.covered_pot[rcc, self.cover_order[rcc, self.num_covers[rcc] - 1]]
                side = np.where(pot[c] > 0, pot[c] - lastc, 0)
                out[c, o["side_pot"]] = side * inv
        return out
