"""Drive an evaluation collector by hand through scripted, stacked-deck hands (test helper)."""

from __future__ import annotations

from typing import Any

from brag_env.evaluation import get_adapter
from brag_env.evaluation.schedule import Episode

#: One scripted episode: the deck (first cards dealt first), the dealer, and (seat, action name)
#: pairs in the order the seats act.
Hand = tuple[str, int, list[tuple[int, str]]]


def play_hands(
    game: str, hands: list[Hand], num_players: int = 2, options: dict[str, Any] | None = None
) -> tuple[list[dict[str, Any]], Any]:
    """Play each scripted episode into ONE collector (agent i sits in seat i); returns every
    agent's behaviour statistics and the collector."""
    adapter = get_adapter(game)
    env = adapter.make_env(num_players, options or {})
    collector = adapter.collector(env, num_players)
    names = env.unwrapped.action_names
    for index, (deck, dealer, script) in enumerate(hands):
        env.reset(seed=index, options={"deck": deck, "dealer": dealer})
        episode = Episode(index, index, 0, index, tuple(range(num_players)))
        collector.start_episode(env, episode)
        for seat, name in script:
            assert env.agent_selection == f"player_{seat}", (index, seat, name)
            action = names.index(name)
            collector.before_action(env, seat, seat, action)
            env.step(action)
            collector.after_action(env, seat, seat, action)
        rewards = [0.0] * num_players
        for agent in env.agents[:]:
            rewards[int(agent.split("_")[1])] += env._cumulative_rewards[agent]
        collector.end_episode(env, episode, rewards)
    return [collector.behaviour(a) for a in range(num_players)], collector
