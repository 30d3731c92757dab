"""brag_v0 observations: hidden information (B10, B19), the documented layout, the decoder."""

from __future__ import annotations

import re

import numpy as np
import pytest

from brag_env import brag_v0, brag_v1
from brag_env.brag import observation as obs_module
from brag_env.brag.game import BLIND, OPEN, BragGame
from brag_env.brag.observation import HISTORY_LEN, STATUS_NAMES, observation_layout
from brag_env.brag.rules import FOLD, LOOK, SEE, STAY, BragConfig
from brag_env.brag.scenario import stack_deck
from brag_env.cards import format_cards


def _swapped_decks(
    n: int, dealer: int, target: int, seed: int
) -> tuple[list[int], list[int], list[int]]:
    """Two full decks that deal the same cards to everyone but ``target`` (B9 deal order)."""
    deck = np.random.default_rng(seed).permutation(52).tolist()
    j = (target - dealer - 1) % n  # the target's place in the deal order, left of the dealer
    dealt = [j, j + n, j + 2 * n]
    other = deck[:]
    for pos, spare in zip(dealt, range(3 * n, 3 * n + 3), strict=True):
        other[pos], other[spare] = other[spare], other[pos]
    return deck, other, [deck[p] for p in dealt]


def _observe_all(env: brag_v0.raw_env) -> list[tuple[bytes, bytes]]:
    out = []
    for agent in env.possible_agents:
        o = env.observe(agent)
        out.append((o["observation"].tobytes(), o["action_mask"].tobytes()))
    return out


@pytest.mark.parametrize(
    ("n", "seed", "allow_blind"),
    [(2, 0, True), (3, 1, True), (4, 2, True), (5, 3, True), (8, 4, True), (4, 5, False)],
)
def test_no_leak_of_hidden_cards(n: int, seed: int, allow_blind: bool) -> None:
    """B10: swapping a blind player's cards changes nobody's observation until it looks; an
    opponent's hidden cards never change anyone else's observation."""
    dealer, target = seed % n, (seed + 1) % n
    deck_a, deck_b, target_cards = _swapped_decks(n, dealer, target, seed)
    envs = [brag_v0.raw_env(num_players=n, allow_blind=allow_blind) for _ in range(2)]
    for env, deck in zip(envs, (deck_a, deck_b), strict=True):
        env.reset(seed=seed, options={"deck": deck, "dealer": dealer})
    assert envs[0].game.hands[target] == target_cards
    assert envs[1].game.hands[target] != target_cards
    rng = np.random.default_rng(seed)
    looked, own_view_differed, steps = not allow_blind, False, 0
    while envs[0].agents and not envs[0].terminations[envs[0].agent_selection]:
        views = [_observe_all(env) for env in envs]
        for seat in range(n):
            if seat == target and looked:
                own_view_differed |= views[0][seat] != views[1][seat]
            else:
                assert views[0][seat] == views[1][seat], f"seat {seat} saw seat {target}'s cards"
        agent = envs[0].agent_selection
        assert agent == envs[1].agent_selection
        mask = envs[0].observe(agent)["action_mask"].copy()
        mask[SEE] = 0  # a see would show the cards: stop short of it
        seat = envs[0].possible_agents.index(agent)
        early = steps < 2 * n
        if (early or not looked) and mask[STAY]:
            mask[FOLD] = 0  # nobody folds before the target looks: the hand goes on past it
        if seat == target and early:
            mask[LOOK] = 0  # the target stays blind for a while ...
        elif seat == target and mask[LOOK]:
            mask[:] = 0  # ... then looks at its first chance
            mask[LOOK] = 1
        if looked and not early and seat != target and rng.random() < 0.3 and mask[FOLD]:
            action = FOLD
        else:
            action = int(rng.choice(np.flatnonzero(mask)))
        if seat == target and action == LOOK:
            looked = True
        for env in envs:
            env.step(action)
        steps += 1
    assert steps > 2 * n
    assert looked or not allow_blind
    assert own_view_differed  # the swap is visible to the target once it looks


def test_own_cards_appear_after_look_and_stay_after_fold() -> None:
    """B10: cards show once looked (and still after folding); a blind fold never shows them."""
    env = brag_v0.raw_env(num_players=3)
    env.reset(seed=7, options={"deck": "As Ks Qs 2h 3h 4h 7c 8d 9s", "dealer": 2})
    p0, p1 = env.possible_agents[:2]

    def own(agent: str) -> tuple[str | None, str | None]:
        d = brag_v0.decode_observation(env.observe(agent)["observation"], env.config)
        return d["own_cards"], d["own_category"]

    assert own(p0) == (None, None) and env.game.status[0] == BLIND
    env.step(LOOK)  # seat 0 looks and acts again
    assert env.agent_selection == p0 and env.game.status[0] == OPEN
    assert own(p0) == ("2♥ 7♣ A♠", "high_card")
    env.step(FOLD)
    assert own(p0) == ("2♥ 7♣ A♠", "high_card")
    env.step(FOLD)  # seat 1 folds blind
    assert own(p1) == (None, None)


def test_b19_choice_is_made_blind() -> None:
    """B19: the kept-hand choice shows neither hand; after keeping, looking shows the old one."""
    env = brag_v0.raw_env(num_players=3, hands_per_session=2)
    env.reset(seed=3, options={"dealer": 2})
    kept = list(env.game.hands[0])
    env.step(STAY)  # seat 0 stays blind
    env.step(FOLD)  # seat 1
    env.step(FOLD)  # seat 2: seat 0 wins blind by folds (B15)
    game = env.game
    assert game.hand_number == 1 and game.choosing
    chooser = env.possible_agents[game.current_player]
    assert chooser == "player_0"
    decoded = brag_v0.decode_observation(env.observe(chooser)["observation"], env.config)
    assert decoded["choice_pending"] and decoded["own_cards"] is None
    mask = env.observe(chooser)["action_mask"]
    names = [env.action_names[a] for a in np.flatnonzero(mask)]
    assert names == ["keep_old_hand", "take_new_hand"]
    env.step(env.action_names.index("keep_old_hand"))
    decoded = brag_v0.decode_observation(env.observe(chooser)["observation"], env.config)
    assert not decoded["choice_pending"] and decoded["own_cards"] is None
    while env.agent_selection != chooser:
        env.step(STAY)
    env.step(LOOK)
    decoded = brag_v0.decode_observation(env.observe(chooser)["observation"], env.config)
    assert decoded["own_cards"] == format_cards(sorted(kept))


def _expected_decoding(env: brag_v0.raw_env, seat: int) -> dict:
    game, n = env.game, env.config.num_players
    seats = []
    for r in range(n):
        s = (seat + r) % n
        last = game.last_action[s]
        seats.append(
            {
                "relative_seat": r,
                "status": STATUS_NAMES[game.status[s]],
                "chips": game.chips[s],
                "chips_in": game.contributed[s],
                "last_action": env.action_names[last] if last >= 0 else None,
                "dealer": s == game.dealer,
                "to_act": s == game.current_player,
            }
        )
    history = [
        {"relative_seat": (s - seat) % n, "action": env.action_names[a], "paid": paid}
        for s, a, paid in reversed(game.betting[-HISTORY_LEN:])
    ]
    prev = game.previous_result
    previous = {
        "by_see": False,
        "chip_changes": [0] * n,
        "seer": None,
        "seen": None,
        "seer_cards": None,
        "seen_cards": None,
    }
    if prev is not None:
        previous["chip_changes"] = [prev.deltas[(seat + r) % n] for r in range(n)]
    if prev is not None and prev.by_see:
        previous |= {
            "by_see": True,
            "seer": (prev.seer - seat) % n,
            "seen": (prev.seen - seat) % n,
            "seer_cards": format_cards(sorted(prev.shown[prev.seer])),
            "seen_cards": format_cards(sorted(prev.shown[prev.seen])),
        }
    return {
        "seats": seats,
        "stake": game.stake,
        "pot": game.pot,
        "hand_number": game.hand_number,
        "choice_pending": game.choosing,
        "shown_cards": format_cards(sorted(set(game.shown_cards))),
        "history": history,
        "previous_hand": previous,
    }


@pytest.mark.parametrize("n", [2, 4, 7])
def test_decode_matches_the_game(n: int) -> None:
    """Round trip: decoding what the env encoded gives back the table's public state."""
    env = brag_v0.raw_env(num_players=n, hands_per_session=8, starting_chips=60)
    rng = np.random.default_rng(n)
    env.reset(seed=n)
    looked_checks = previous_by_see = previous_by_folds = 0
    for _ in range(600):
        if not env.agents:
            env.reset()
        agent = env.agent_selection
        if env.terminations[agent]:
            env.step(None)
            continue
        seat = env.possible_agents.index(agent)
        obs = env.observe(agent)
        decoded = brag_v0.decode_observation(obs["observation"], env.config)
        expected = _expected_decoding(env, seat)
        assert {k: decoded[k] for k in expected} == expected
        if env.game.previous_result is not None:
            previous_by_see += env.game.previous_result.by_see
            previous_by_folds += not env.game.previous_result.by_see
        if env.game.status[seat] == OPEN:
            assert decoded["own_cards"] == format_cards(sorted(env.game.hands[seat]))
            assert 0.0 <= decoded["own_strength"] < 1.0
            looked_checks += 1
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert looked_checks > 10
    assert previous_by_see > 5 and previous_by_folds > 5


def test_layout_is_documented_in_order() -> None:
    """The module docstring's table lists the same names as the layout, in the same order."""
    cfg = BragConfig()  # B16 on: the cover fields come last
    layout = observation_layout(cfg)
    table = re.findall(r"^(\w+)\s{2,}", obs_module.__doc__ or "", re.MULTILINE)
    assert [t for t in table if t in layout.fields] == list(layout.fields)
    env_doc = brag_v1.__doc__ or ""
    assert [m for m in re.findall(r"^\| `(\w+)`", env_doc, re.MULTILINE) if m in layout.fields] == (
        list(layout.fields)
    )
    assert layout.size == 517 and "517 for 4 players" in env_doc
    # Without covers (brag_v0's layout): the same fields minus the B16 block, the same size.
    old = observation_layout(BragConfig(cover_pot=False))
    assert list(old.fields) == [f for f in layout.fields if f not in obs_module.COVER_FIELDS]
    assert old.size == 488 and "488" in (brag_v0.__doc__ or "")
    views = obs_module.BragObserver(cfg).views
    assert sum(v.size for v in views.values()) == layout.size
    assert all(views[name].shape == f.shape for name, f in layout.fields.items())


def test_decode_rejects_a_wrong_size() -> None:
    with pytest.raises(ValueError, match="shape"):
        brag_v0.decode_observation(np.zeros(10, np.float32), BragConfig())


def test_previous_hand_shows_a_prial_that_made_the_deck_shuffle() -> None:
    """B14/B18: the hands shown at a see that revealed a prial reach every observation of the
    next hand (``shown_cards`` is empty after the shuffle); a hand won by folds shows nothing."""
    env = brag_v0.raw_env(num_players=3, hands_per_session=3, blind_keep_hand=False)
    deck = stack_deck(["Kh Qd 4c", "Qs Jh 6d", "8s 8c 8d"], 0)
    env.reset(seed=5, options={"deck": deck, "dealer": 0})
    for action in (FOLD, SEE):  # seat 1 folds; blind seat 2 sees blind seat 0 (B14)
        env.step(action)
    assert env.game.hand_number == 1 and env.game.shown_cards == []  # shuffled (B18)
    for seat, agent in enumerate(env.possible_agents):
        view = brag_v0.decode_observation(env.observe(agent)["observation"], env.config)
        assert view["shown_cards"] == ""
        assert view["previous_hand"] == {
            "by_see": True,
            "chip_changes": [[-1, -1, 2][(seat + r) % 3] for r in range(3)],
            "seer": (2 - seat) % 3,
            "seen": (0 - seat) % 3,
            "seer_cards": "8♠ 8♦ 8♣",
            "seen_cards": "4♣ Q♦ K♥",
        }
    while env.game.hand_number == 1:
        env.step(FOLD)  # hand 1 ends by folds: nothing is shown
    view = brag_v0.decode_observation(env.observe("player_0")["observation"], env.config)
    previous = view["previous_hand"]
    assert not previous["by_see"] and previous["seer_cards"] is None
    assert previous["seer"] is None and sum(previous["chip_changes"]) == 0


@pytest.mark.parametrize(
    ("seed", "wild_cards"),
    [
        (0, "none"),
        (1, "none"),
        (2, "none"),
        (3, "none"),
        (0, "nines"),
        (1, "braggers"),
        (2, "aces"),
    ],
)
def test_no_leak_counterfactual_over_sessions(seed: int, wild_cards: str) -> None:
    """No observation depends on a card its observer has not been shown: every card outside
    the observer's knowledge (others' hands, its own before it looks, a kept B19 hand, the
    previous hand's unshown cards) is replaced, and the vector stays the same. Also with
    B25's wild cards (own_wild, the shown hands' readings)."""
    rnd = np.random.default_rng(seed)
    n = 2 + seed
    cfg = BragConfig(
        num_players=n,
        hands_per_session=20,
        starting_chips=60,
        prial_bonus=2,
        wild_cards=wild_cards,
    )
    game = BragGame(cfg)
    game.new_session(np.random.default_rng(seed))
    observer = obs_module.BragObserver(cfg)
    checks = by_see = 0
    while not game.session_over:
        for me in range(n):
            before = observer.set_from(game, me).copy()
            known = set(game.shown_cards)
            if game.previous_result is not None:
                for cards in game.previous_result.shown.values():
                    known |= set(cards)
            looked = observer.has_looked(game, me)
            if looked:
                known |= set(game.hands[me])
            pool = [c for c in range(52) if c not in known]
            saved, kept = [list(h) for h in game.hands], game.kept_hand
            for s in range(n):
                if game.hands[s] and not (s == me and looked):
                    game.hands[s] = rnd.choice(pool, 3, replace=False).tolist()
            if kept is not None:
                game.kept_hand = rnd.choice(pool, 3, replace=False).tolist()
            after = observer.set_from(game, me).copy()
            game.hands, game.kept_hand = saved, kept
            assert np.array_equal(before, after), f"seat {me} saw a hidden card"
            checks += 1
            by_see += game.previous_result is not None and game.previous_result.by_see
        game.apply(int(rnd.choice(game.legal_actions())))
    assert checks > 100 and by_see > 0
