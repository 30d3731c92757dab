"""Agents for brag-env: one interface, rule-based baselines, trained models, spec strings.

``make_agent("brag:tight", table_info("brag"), seed=0)`` builds an agent; every agent answers
``act(observation, action_mask) -> action id`` and ``reset()`` between episodes. Spec strings
are described in ``agents.registry``; the styles in ``agents.brag`` and ``agents.put``.
"""

from agents.base import Agent, RandomAgent, StyleAgent, TableInfo, legal_actions
from agents.registry import AgentSpec, make_agent, parse_spec, styles
from agents.tables import table_info, table_info_from_env

__all__ = [
    "Agent",
    "AgentSpec",
    "RandomAgent",
    "StyleAgent",
    "TableInfo",
    "legal_actions",
    "make_agent",
    "parse_spec",
    "styles",
    "table_info",
    "table_info_from_env",
]
