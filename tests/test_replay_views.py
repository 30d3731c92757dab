"""Replay shows exactly what each player observed: for every decision of seeded sessions
(Brag) and matches (Put), the view the viewer rebuilds from the saved file equals the decoded
observation the live env gave that player, previous-hand blocks included (B17-B19, P6)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from brag_env import brag_v0, brag_v1, put_v0
from brag_env.replay import group_sessions, load_histories, prepare


def _live(env, decode, seed: int, episodes: int) -> tuple[list[dict], list[tuple[int, dict]]]:
    """Random legal play; every hand history (with an episode number, as evaluate writes
    them) and every decision's (seat, decoded observation)."""
    rng = np.random.default_rng(seed)
    histories, seen = [], []
    for episode in range(episodes):
        env.reset(seed=seed + episode)
        for name in env.agent_iter():
            _, _, terminated, truncated, _ = env.last(observe=False)
            if terminated or truncated:
                env.step(None)
                continue
            obs = env.observe(name)
            seen.append((env.possible_agents.index(name), decode(obs["observation"], env.config)))
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        histories += [{"episode": episode, **h} for h in env.hand_histories()]
    return histories, seen


def _replayed(histories: list[dict], tmp_path) -> list[tuple[int, dict]]:
    path = tmp_path / "hands.jsonl"
    path.write_text("".join(json.dumps(h) + "\n" for h in histories))
    records = load_histories(path)
    sessions = group_sessions(records)
    views = []
    for record in records:
        session = next(s for s in sessions.values() if any(r is record for r in s))
        hand = prepare(record, session, {})
        assert hand.note is None  # every hand's predecessor is in the file
        views += [(step.seat, step.view) for step in hand.steps]
    return views


@pytest.mark.parametrize(
    ("players", "options"),
    [
        (2, {}),
        (3, {"prial_bonus": 2, "raise_sizes": (2, 3)}),
        (4, {"ante_mode": "after_prial"}),
        (5, {"shuffle": "every_hand", "starting_chips": 20}),
    ],
)
def test_brag_replay_views_equal_live_observations(players, options, tmp_path):
    env = brag_v0.raw_env(num_players=players, hands_per_session=8, **options)
    histories, live = _live(env, brag_v0.decode_observation, players, 2)
    replayed = _replayed(histories, tmp_path)
    assert len(replayed) == len(live)
    assert sum(v["previous_hand"]["by_see"] for _, v in live) > 0  # the block is not empty
    for k, (got, want) in enumerate(zip(replayed, live, strict=True)):
        assert got == want, f"decision {k}"


@pytest.mark.parametrize("players", [2, 4, 6])
@pytest.mark.slow  # over 0.4 s: kept out of the quick subset (-m "not slow")
def test_B15_B16_brag_v1_replay_views_with_covers_and_carries(players, tmp_path):
    env = brag_v1.raw_env(
        num_players=players,
        hands_per_session=10,
        starting_chips=15,
        blind_alone="carries",
        unopened_pot="carries",
        shuffle="after_prial_or_cycle",
    )
    histories, live = _live(env, brag_v1.decode_observation, players, 4)
    assert any(h["covers"] for h in histories) and any(h["carried"] for h in histories)
    replayed = _replayed(histories, tmp_path)
    assert len(replayed) == len(live)
    for k, (got, want) in enumerate(zip(replayed, live, strict=True)):
        assert got == want, f"decision {k}"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_put_replay_views_equal_live_observations(players, tmp_path):
    env = put_v0.raw_env(num_players=players)
    histories, live = _live(env, put_v0.decode_observation, players, 2)
    replayed = _replayed(histories, tmp_path)
    assert len(replayed) == len(live)
    assert sum(v["last_hand"] is not None for _, v in live) > 0
    for k, (got, want) in enumerate(zip(replayed, live, strict=True)):
        assert got == want, f"decision {k}"
