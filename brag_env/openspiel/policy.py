"""A strategy of the exact one-hand solver (``brag_env.brag.solver``) as an OpenSpiel policy.

``StrategyPolicy(game, tree, strategy)`` answers at any state of the ``python_brag_env_brag``
game with the same numbers the solver uses: the public node found from the public actions, the
own hand from the deal. OpenSpiel's ``exploitability`` / ``nash_conv`` on it cross-check the
solver's exact best responses.
"""

from __future__ import annotations

from open_spiel.python import policy as os_policy

from brag_env.brag.solver.cfr import Strategy
from brag_env.brag.solver.tree import HandTree
from brag_env.openspiel.brag import BragHandGame, BragHandState


class StrategyPolicy(os_policy.Policy):
    def __init__(self, game: BragHandGame, tree: HandTree, strategy: Strategy) -> None:
        if game.config != tree.config or game.dealer != tree.dealer:
            raise ValueError("the strategy's tree was built for other rules or another dealer")
        super().__init__(game, list(range(game.num_players())))
        self.tree, self.strategy = tree, strategy
        self.node_of = tree.index_of_path()
        self.hand_of = {tuple(h): i for i, h in enumerate(tree.hands.tolist())}

    def action_probabilities(self, state: BragHandState, player_id=None) -> dict[int, float]:
        v = self.node_of[tuple(state.public_actions())]
        seat = self.tree.player[v]
        sigma = self.strategy[v]
        assert sigma is not None
        if sigma.ndim == 2:
            sigma = sigma[self.hand_of[tuple(sorted(state.seat_hand(seat) or ()))]]
        return {a: float(sigma[i]) for i, (a, _) in enumerate(self.tree.children[v])}


def fill_tabular(tabular: os_policy.TabularPolicy, answer: os_policy.Policy) -> None:
    """Overwrite every row of ``tabular`` with ``answer``'s probabilities (0 elsewhere), so one
    enumeration of the game's information states serves many strategies."""
    for i, state in enumerate(tabular.states):
        row = tabular.action_probability_array[i]
        row[:] = 0.0
        for action, p in answer.action_probabilities(state).items():
            row[action] = p
