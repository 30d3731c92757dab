"""Seven-card Brag (B24) payoffs and statistics, read by the omniscient evaluator.

Samples per agent and deal: ``payoff``, the deal's chip change divided by the ante
("antes/deal": minus the ante, plus a pot won, plus a share of the pot at the session's end),
and ``scoop``, 1 when the agent won both hands and took the pot. A session of deals is the
independent unit of their confidence intervals.

Behaviour statistics (per agent, over the deals it played):

- ``scoop_rate``: the share of its deals where it took the pot (best in both hands, alone).
- ``best_first_rate`` / ``best_second_rate``: the share where its first (second) hand was the
  best at the table, alone; ``tied_best_rate``: where it shared the best of either hand.
- ``stronger_first_rate``: the share of its arrangements with the first hand stronger than the
  second (strictly; B21 order under lowball): a strongest-first style is near 1.
- ``carried_rate``: the share of its deals that left the pot standing for the next deal;
  ``share_out_rate``: the share of its sessions that ended with the pot shared out.
- ``carried_pot_win_rate``: of its scoops, the share whose pot held chips carried from
  earlier deals; ``antes_per_scoop``: the mean pot it took, in antes.
- ``longest_carry``: the most deals in a row that ended without a scoop, in its sessions.
"""

from __future__ import annotations

from typing import Any

from brag_env.brag.hands import hand_strength
from brag_env.evaluation.runner import Collector
from brag_env.evaluation.schedule import Episode
from brag_env.evaluation.stats import Counts, ratio


class _Counts(Counts):
    __slots__ = (
        "best_first",
        "best_second",
        "carried",
        "carried_scoops",
        "deals",
        "longest_carry",
        "pot_won",
        "scoops",
        "sessions",
        "shared",
        "stronger_first",
        "tied_best",
    )


class Brag7Collector(Collector):
    """Per-deal payoffs and scoops, and the statistics of the module docstring."""

    payoff_unit = "antes/deal"

    def __init__(self, env: Any, num_agents: int) -> None:
        super().__init__(num_agents)
        self.config = env.unwrapped.config
        self.ante = float(self.config.ante)
        self.counts = [_Counts() for _ in range(num_agents)]
        self._episode: Episode | None = None

    def start_episode(self, env: Any, episode: Episode) -> None:
        self._episode = episode
        self._seen = 0
        self._chip_changes = [0] * len(episode.seats)
        self._carry_run = 0

    def after_action(self, env: Any, seat: int, agent: int, action: int) -> None:
        results = env.unwrapped.game.hand_results
        while self._seen < len(results):  # keep_histories may bound the list: count by number
            self._end_deal(results[self._seen - len(results)])
            self._seen += 1

    def _end_deal(self, result: Any) -> None:
        episode = self._episode
        assert episode is not None
        n = len(episode.seats)
        lowball = self.config.lowball
        carried_in = result.pot > self.config.ante * n  # the pot held earlier deals' antes
        self._carry_run = 0 if result.scooped else self._carry_run + 1
        for seat, delta in enumerate(result.deltas):
            agent = episode.seats[seat]
            self._chip_changes[seat] += delta
            self.metrics.add("payoff", agent, episode.group, seat, delta / self.ante)
            won = result.winner == seat
            self.metrics.add("scoop", agent, episode.group, seat, float(won))
            c = self.counts[agent]
            c.deals += 1
            c.scoops += won
            c.best_first += result.first_best == (seat,)
            c.best_second += result.second_best == (seat,)
            c.tied_best += (seat in result.first_best and len(result.first_best) > 1) or (
                seat in result.second_best and len(result.second_best) > 1
            )
            first = hand_strength(result.first_hands[seat], lowball)
            c.stronger_first += first > hand_strength(result.second_hands[seat], lowball)
            c.carried += result.carried > 0
            if won:
                c.pot_won += result.pot
                c.carried_scoops += carried_in
            c.longest_carry = max(c.longest_carry, self._carry_run)

    def end_episode(self, env: Any, episode: Episode, seat_rewards: list[float]) -> None:
        # The payoff samples are the per-deal chip changes; the env's rewards must add up to them.
        if [float(x) for x in self._chip_changes] != [float(x) for x in seat_rewards]:
            raise RuntimeError(
                f"brag7 rewards {seat_rewards} disagree with the engine's chip changes "
                f"{self._chip_changes} in episode {episode.index}"
            )
        last = env.unwrapped.game.last_result
        for agent in episode.seats:
            c = self.counts[agent]
            c.sessions += 1
            c.shared += last is not None and any(last.shares)

    def behaviour(self, agent: int) -> dict[str, Any]:
        c = self.counts[agent]
        return {
            "deals": c.deals,
            "scoop_rate": ratio(c.scoops, c.deals),
            "best_first_rate": ratio(c.best_first, c.deals),
            "best_second_rate": ratio(c.best_second, c.deals),
            "tied_best_rate": ratio(c.tied_best, c.deals),
            "stronger_first_rate": ratio(c.stronger_first, c.deals),
            "carried_rate": ratio(c.carried, c.deals),
            "share_out_rate": ratio(c.shared, c.sessions),
            "carried_pot_win_rate": ratio(c.carried_scoops, c.scoops),
            "antes_per_scoop": ratio(c.pot_won / self.ante, c.scoops),
            "longest_carry": c.longest_carry,
            "counts": {name: getattr(c, name) for name in _Counts.__slots__},
        }

    def histories(self, env: Any) -> list[dict[str, Any]]:
        return env.unwrapped.game.history()
