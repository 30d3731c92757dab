"""A human's Put match(es) against agents, in the terminal.

The human's screen is built from that seat's observation (``put_v0.decode_observation``). The
events everybody sees (cards played, Puts and answers) are read from the engine's public record
of the hand as they happen; a card passed to a partner (P8) is shown only to the human who passed
it. At the end of a hand its public parts are shown: every card played, the Put, the points.
"""

from __future__ import annotations

from typing import IO, Any

import numpy as np
from rich.console import Console
from rich.panel import Panel

from brag_env import put_v0
from brag_env.cards import format_card
from brag_env.put.rules import ACTION_NAMES
from brag_env.ui.put_view import action_options, event_text, hand_result, table_view, unit_name
from brag_env.ui.seating import HistoryWriter, Seating, build_agents
from brag_env.ui.terminal import EndOfInput, Prompter, QuitRequested, verb


class PutSession:
    """``matches`` matches to ``target_points`` (P6) with the human at ``seating.human``."""

    def __init__(
        self,
        seating: Seating,
        options: dict[str, Any],
        seed: int,
        matches: int,
        prompter: Prompter,
        history: IO[str] | None = None,
    ) -> None:
        n = seating.num_players
        wanted = options.get("num_players")
        if wanted is not None and wanted != n:
            raise ValueError(
                f"--option num_players={wanted} but the table has {n} seats (you and "
                f"{n - 1} opponents)"
            )
        if matches < 1:
            raise ValueError(f"--matches must be at least 1, got {matches}")
        self.env = put_v0.raw_env(**{**options, "num_players": n})
        self.game = self.env.game
        self.config = self.env.config
        self.seating = seating
        self.names = seating.names
        self.human = seating.human
        self.human_agent = self.env.possible_agents[self.human]
        self.seed = seed
        self.matches = matches
        self.prompter = prompter
        self.console: Console = prompter.console
        self.history = HistoryWriter(history, seating, self.config.to_dict())
        from agents.tables import table_info_from_env

        self.agents = build_agents(seating, table_info_from_env(self.env), seed)
        self.wins = [0] * self.config.num_units
        self.matches_done = 0
        self.hands_done = 0

    def _announce_hand(self, match: int) -> None:
        game = self.game
        self.console.print()
        self.console.rule(
            f"[bold]Match {match + 1} of {self.matches} · hand {game.hand_number}[/] · "
            f"dealer {self.names[game.dealer]}"
        )

    def _ask_human(self, obs: dict[str, np.ndarray]) -> int:
        view = put_v0.decode_observation(obs["observation"], self.config)
        legal = [ACTION_NAMES[a] for a in np.flatnonzero(obs["action_mask"])]
        self.console.print(
            Panel(
                table_view(view, self.human, self.names, self.config, self.game.hand_number),
                title="Your turn",
                title_align="left",
            )
        )
        options = action_options(legal, self.config)
        for k, (_, text) in enumerate(options, 1):
            self.console.print(f"  [bold]{k}[/]) {text}")
        return ACTION_NAMES.index(options[self.prompter.choose(options)][0])

    def _print_event(self, record: Any) -> None:
        seat, action, card = record.actions[-1]
        name = ACTION_NAMES[action]
        text = event_text(
            name, None if card < 0 else format_card(card, symbols=False), seat == self.human
        )
        style = "bold" if seat == self.human else "dim"
        self.console.print(f"  {self.names[seat]}: {text}", style=style)

    def _end_of_hand(self, match: int) -> None:
        record = self.game.history[-1].to_dict()
        self.hands_done += 1
        self.console.print(
            Panel(
                hand_result(record, self.names, self.config),
                title=f"Match {match + 1} · hand {record['hand']}",
                title_align="left",
            )
        )
        self.history.write(record, match, self.seed)

    def _play_match(self, match: int) -> None:
        env, game = self.env, self.game
        if match == 0:
            env.reset(seed=self.seed)
        else:
            env.reset()  # the env's generator goes on: a new deal, same seed => same session
        for agent in self.agents:
            if agent is not None:
                agent.reset()
        seat_of = {name: i for i, name in enumerate(env.possible_agents)}
        self._announce_hand(match)
        for name in env.agent_iter():
            _, _, terminated, truncated, _ = env.last(observe=False)
            if terminated or truncated:
                env.step(None)
                continue
            seat = seat_of[name]
            obs = env.observe(name)
            agent = self.agents[seat]
            if agent is None:
                action = self._ask_human(obs)
            else:
                action = int(agent.act(obs["observation"], obs["action_mask"]))
            finished = len(game.history)
            env.step(action)
            if len(game.history) == finished:
                self._print_event(game.record)
                continue
            self._print_event(game.history[-1])
            self._end_of_hand(match)
            if game.over:
                break
            self.prompter.pause("Press Enter for the next hand (q to leave the table): ")
            self._announce_hand(match)
        winner = game.winner
        self.wins[winner] += 1
        self.matches_done += 1
        won = game.unit_of[self.human] == winner
        who = unit_name(winner, self.names, self.config)
        style = "bold green" if won else "bold red"
        self.console.print(
            f"Match {match + 1} is over: {who} reached {self.config.target_points} points "
            f"and {verb(who, 'win')} (P6).",
            style=style,
        )

    def run(self) -> None:
        for match in range(self.matches):
            if match:
                self.prompter.pause("Press Enter for the next match (q to leave the table): ")
            self._play_match(match)

    def summary(self, reason: str) -> None:
        cfg = self.config
        self.console.print()
        self.console.rule(f"[bold]{reason}[/]")
        units = range(cfg.num_units)
        tally = " · ".join(f"{unit_name(u, self.names, cfg)} {self.wins[u]}" for u in units)
        self.console.print(
            f"Matches won after {self.matches_done} match(es) and {self.hands_done} hand(s): "
            f"{tally}"
        )
        if not self.game.over and self.hands_done:
            score = " · ".join(
                f"{unit_name(u, self.names, cfg)} {self.game.scores[u]}" for u in units
            )
            self.console.print(f"Unfinished match, score: {score}")


def play_put(
    seating: Seating,
    options: dict[str, Any],
    seed: int,
    matches: int,
    prompter: Prompter,
    history: IO[str] | None = None,
) -> int:
    """Play Put matches; returns the exit code (0, also when the human leaves; 130 on
    Ctrl-C). Finished hands are already saved to ``history`` when the session stops."""
    session = PutSession(seating, options, seed, matches, prompter, history)
    cfg = session.config
    sides = " in partnerships (P8): your partner sits opposite" if cfg.partnerships else ""
    prompter.console.print(
        f"[bold]Put[/]: {seating.num_players} players{sides}, first to {cfg.target_points} "
        f"points wins a match, seed {seed} (play this table again with --seed {seed})."
    )
    prompter.console.print(seating.who_is_who())
    reason, code = "Session over", 0
    try:
        session.run()
    except QuitRequested:
        reason = "You left the table"
    except EndOfInput:
        reason = "End of input: you left the table"
    except KeyboardInterrupt:
        reason, code = "Interrupted: you left the table", 130
    session.summary(reason)
    return code
