"""What a human's table does for both games: introduce it, play until it closes, sum up."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rich.console import Console
from rich.text import Text

from brag_env.ui.seating import HistoryWriter, Seating, open_table
from brag_env.ui.terminal import EndOfInput, Prompter, QuitRequested, print_menu
from brag_env.ui.turns import Decision


class TableSession:
    """A human's session at a table of agents; ``play`` runs it from the intro to the summary.

    Subclasses set ``prompter``, ``console`` and ``history`` and implement ``intro``, ``run``
    (returns why the table closed) and ``summary``.
    """

    prompter: Prompter
    console: Console
    history: HistoryWriter

    human: int

    def _open_table(
        self,
        seating: Seating,
        env_module: Any,
        options: dict[str, Any],
        seed: int,
        prompter: Prompter,
    ) -> None:
        """The raw env of ``env_module`` at ``seating``, its agents, and what every session
        keeps of them (names, the human's seat and agent, the prompter, the history writer)."""
        self.env, self.agents = open_table(seating, env_module, options, seed, prompter.console)
        self.game = self.env.game
        self.config = self.env.config
        self.seating = seating
        self.names = seating.names
        self.human = seating.human
        self.human_agent = self.env.possible_agents[self.human]
        self.seed = seed
        self.prompter = prompter
        self.console = prompter.console
        self.history = HistoryWriter(seating, self.config.to_dict())

    def _reset_table(self, seed: int) -> None:
        """A new episode: the env reset with ``seed``, every agent's memory cleared."""
        self.env.reset(seed=seed)
        for agent in self.agents:
            if agent is not None:
                agent.reset()

    def _live_turns(self) -> Iterator[tuple[str, int, Any]]:
        """(agent name, seat, the seat's agent or None for the human) for each turn to play,
        in PettingZoo's AEC loop; a finished agent's turn is stepped with None here."""
        env = self.env
        seat_of = {name: i for i, name in enumerate(env.possible_agents)}
        for name in env.agent_iter():
            _, _, terminated, truncated, _ = env.last(observe=False)
            if terminated or truncated:
                env.step(None)
                continue
            seat = seat_of[name]
            yield name, seat, self.agents[seat]

    def _choose(self, decision: Decision) -> int:
        """Print why the choice is forced (if it is) and the menu; the action id picked."""
        if decision.reason:
            self.console.print(Text(decision.reason, style="italic"))
        print_menu(self.console, decision.options)
        return decision.action_ids[self.prompter.choose(decision.options)]

    def _print_news(self, lines: list[tuple[int, str]]) -> None:
        """What the moves told the table, the human's own in bold."""
        for seat, text in lines:
            style = "bold" if seat == self.human else "dim"
            self.console.print(Text(f"  {text}", style=style))

    def intro(self) -> None:
        raise NotImplementedError

    def run(self) -> str:
        raise NotImplementedError

    def summary(self, reason: str) -> None:
        raise NotImplementedError

    def play(self) -> int:
        """Play; the exit code is 0, also when the human leaves, and 130 on Ctrl-C. Finished
        hands are already saved when the session stops."""
        self.intro()
        code = 0
        try:
            reason = self.run()
        except QuitRequested:
            reason = "You left the table"
        except EndOfInput:
            reason = "End of input: you left the table"
        except KeyboardInterrupt:
            reason, code = "Interrupted: you left the table", 130
        self.summary(reason)
        return code
