"""Fixtures shared by test files: the web app with no bot delay, and a test client of it."""

from __future__ import annotations

import pytest


@pytest.fixture
def app():
    from brag_env.web.app import Settings, create_app  # the web extra: only its tests load it

    return create_app(Settings(bot_delay=0))


@pytest.fixture
def client(app):
    from starlette.testclient import TestClient

    with TestClient(app) as test_client:
        yield test_client
