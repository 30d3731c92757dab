"""The Starlette app: pages (new game, table, replay, results) and the JSON API of a table.

Pages are Jinja2 templates; the table page runs a small plain script (``static/table.js``) that
fetches the table's HTML fragment, posts the human's clicks to the API and, while an agent is
to act, asks for its move after ``bot_delay`` seconds. Every API answer is the human's state
(``tables.WebTable.state``) or ``{"error": one line}`` with a 4xx status; a refused request
changes nothing. A body is read only up to its limit (``limits``); a POST sent from another
site's page (its ``Origin`` is not this server) is refused with 403 before it is read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from jinja2 import Environment, FileSystemLoader, select_autoescape
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from brag_env.io import brief, one_line_of
from brag_env.web import forms, limits, render, results
from brag_env.web.replays import Replay, load_replay
from brag_env.web.store import BoundedStore
from brag_env.web.tables import RequestError, WebTable

HERE = Path(__file__).resolve().parent
MAX_ERROR_CHARS = 400  # an error shown on a page: one line, not a whole file's worth
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class SameOriginPosts:
    """Refuse (403) a state-changing request that a page of another site sent.

    A browser names the page's origin in ``Origin`` on a cross-site POST (a form or a
    ``fetch``); this server's own pages send their own origin, and a client that is not a
    browser (curl, the test client) sends none and passes. ``Sec-Fetch-Site: cross-site``
    is refused as well, for a browser that sends ``Origin: null``.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
            request = Request(scope)
            if not self.same_origin(request):
                message = "refused: this request came from another site's page"
                if scope["path"].startswith("/api/"):
                    response: Response = JSONResponse({"error": message}, status_code=403)
                else:
                    response = HTMLResponse(f"<p class='error'>{message}</p>", status_code=403)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)

    @staticmethod
    def same_origin(request: Request) -> bool:
        if request.headers.get("sec-fetch-site") == "cross-site":
            return False
        origin = request.headers.get("origin")
        if origin is None:
            return True
        host = request.headers.get("host")
        return origin != "null" and host is not None and urlsplit(origin).netloc == host


@dataclass(frozen=True)
class Settings:
    """``bot_delay``: seconds the page waits before each agent's move (0 in tests);
    ``max_games``/``idle_minutes``: how many tables stay open, and for how long unused
    (likewise ``max_replays`` for loaded history files, which together keep at most
    ``max_replay_bytes`` of files)."""

    bot_delay: float = 0.8
    max_games: int = 32
    idle_minutes: float = 60.0
    max_replays: int = 8
    max_replay_bytes: int = limits.MAX_REPLAY_BYTES  # parsed, about 7 times that in memory


def _templates() -> Environment:
    env = Environment(
        loader=FileSystemLoader(HERE / "templates"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["cards_in"] = render.cards_in
    env.filters["signed"] = lambda value: f"{value:+d}"
    return env


def create_app(settings: Settings | None = None) -> Starlette:
    """The app with its own stores of games and replays."""
    settings = settings or Settings()
    idle = settings.idle_minutes * 60
    games: BoundedStore[WebTable] = BoundedStore(settings.max_games, idle)
    replays: BoundedStore[Replay] = BoundedStore(
        settings.max_replays, idle, max_size=settings.max_replay_bytes
    )
    templates = _templates()

    def page(name: str, status: int = 200, **context: Any) -> HTMLResponse:
        return HTMLResponse(templates.get_template(name).render(**context), status_code=status)

    def error_page(status: int, message: str) -> HTMLResponse:
        return page("error.html", status, message=message[:MAX_ERROR_CHARS])

    def table_of(request: Request) -> WebTable:
        try:
            return games.get(request.path_params["game_id"])
        except KeyError:
            raise RequestError(404, "no such game (a wrong id, or it expired)") from None

    # ---------------------------------------------------------------- pages
    def form_page(form: forms.NewGameForm, status: int = 200, error: str = "") -> HTMLResponse:
        return page(
            "index.html",
            status,
            form=form,
            choices=forms.choices(),
            games=forms.page_games(),
            entries=forms.menu_entries,
            most=forms.MAX_OPPONENTS,  # a box per opponent seat the game's table sizes allow
            models=forms.model_tables(),
            error=error[:MAX_ERROR_CHARS],
        )

    async def index(request: Request) -> HTMLResponse:
        model = request.query_params.get("model")
        if model is None:
            return form_page(forms.NewGameForm.defaults())
        try:  # a shipped model's link: the form filled with the table it was trained for
            return form_page(forms.NewGameForm.for_model(model))
        except forms.SetupError as error:
            return form_page(forms.NewGameForm.defaults(), 400, str(error))

    async def new_game(request: Request) -> Response:
        try:
            bounded = limits.bounded_request(request, limits.MAX_FORM_BYTES)
            async with bounded.form(max_files=0, max_fields=64) as data:
                form = forms.NewGameForm.read(data)
        except limits.TooLarge as error:
            return form_page(forms.NewGameForm.defaults(), 413, str(error))
        try:
            # A model that fails to load, a bad spec or rule: the form again, with why.
            table = await run_in_threadpool(form.build)
        except forms.SetupError as error:
            return form_page(form, 400, str(error))
        return RedirectResponse(f"/play/{games.add(table)}", status_code=303)

    async def play(request: Request) -> HTMLResponse:
        try:
            table = table_of(request)
        except RequestError as error:
            return error_page(error.status, error.message)
        return page(
            "play.html",
            game_id=request.path_params["game_id"],
            game=table.game,
            bot_delay=settings.bot_delay,
        )

    async def table_fragment(request: Request) -> HTMLResponse:
        try:
            table = table_of(request)
        except RequestError as error:
            return HTMLResponse(f"<p class='error'>{error.message}</p>", error.status)
        async with table.lock:
            state = table.state()
        return page(f"_{state['game']}_table.html", s=state)

    # ---------------------------------------------------------------- API
    def api_error(error: RequestError) -> JSONResponse:
        return JSONResponse({"error": error.message}, status_code=error.status)

    async def read_body(request: Request, keys: tuple[str, ...]) -> dict[str, Any]:
        try:
            body = await limits.read_body(request, limits.MAX_BODY_BYTES)
        except limits.TooLarge as error:
            raise RequestError(413, str(error)) from None
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):
            raise RequestError(400, 'the body is not JSON: send e.g. {"turn": 3}') from None
        if not isinstance(data, dict):
            raise RequestError(400, "the body must be a JSON object")
        extra = sorted(set(data) - set(keys))
        if extra:
            raise RequestError(400, f"unknown key(s) {brief(', '.join(extra))}: expected {keys}")
        turn = data.get("turn")
        if not isinstance(turn, int) or isinstance(turn, bool):
            raise RequestError(400, "'turn' must be the integer turn the request answers")
        if "action" in keys and not isinstance(data.get("action"), str):
            raise RequestError(400, "'action' must be the name of a legal action")
        return data

    async def state(request: Request) -> JSONResponse:
        try:
            table = table_of(request)
        except RequestError as error:
            return api_error(error)
        async with table.lock:
            return JSONResponse(table.state())

    async def act(request: Request) -> JSONResponse:
        return await _move(request, ("action", "turn"))

    async def advance(request: Request) -> JSONResponse:
        return await _move(request, ("turn",))

    async def _move(request: Request, keys: tuple[str, ...]) -> JSONResponse:
        try:
            table = table_of(request)
            data = await read_body(request, keys)

            def move() -> dict[str, Any]:
                if "action" in data:
                    table.act(data["action"], data["turn"])
                else:
                    table.advance(data["turn"])
                return table.state()

            # Checks and change under the table's lock (an asyncio.Lock: the event loop goes
            # on serving other tables while an agent thinks in a worker thread), so a refused
            # move changes nothing and two clicks cannot interleave.
            async with table.lock:
                return JSONResponse(await run_in_threadpool(move))
        except RequestError as error:
            return api_error(error)

    # ---------------------------------------------------------------- replay, results
    async def upload_of(request: Request, limit: int, what: str) -> tuple[bytes, str]:
        """The uploaded file's bytes and name, the body read only up to ``limit`` and the
        form's overhead (``limits.TooLarge``); ``ValueError`` when no file was sent."""
        bounded = limits.bounded_request(request, limit + limits.FORM_OVERHEAD_BYTES)
        async with bounded.form(max_files=1, max_fields=8) as data:  # closes the spooled file
            upload = data.get("file")
            if upload is None or isinstance(upload, str):
                raise ValueError(f"choose {what} to open")
            raw = await upload.read(limit + 1)
            if len(raw) > limit:
                raise limits.TooLarge(limit)
            return raw, upload.filename or "the file"

    async def replay_form(request: Request) -> HTMLResponse:
        return page("replay_form.html")

    async def replay_upload(request: Request) -> Response:
        try:
            raw, name = await upload_of(request, limits.MAX_REPLAY_BYTES, "a history file (.jsonl)")
            replay = await run_in_threadpool(load_replay, raw, name)
            replay_id = replays.add(replay, len(raw))  # may push out others: memory by size
        except limits.TooLarge as error:
            return page("replay_form.html", 413, error=str(error))
        except ValueError as error:
            return page("replay_form.html", 400, error=one_line_of(error)[:MAX_ERROR_CHARS])
        return RedirectResponse(f"/replay/{replay_id}", status_code=303)

    async def replay_view(request: Request) -> HTMLResponse:
        try:
            replay = replays.get(request.path_params["replay_id"])
        except KeyError:
            return error_page(
                404, "no such replay (a wrong id, or it expired): open the file again"
            )
        try:
            view = await run_in_threadpool(replay.view, dict(request.query_params))
        except ValueError as error:
            return error_page(400, one_line_of(error))
        return page("replay.html", r=view, replay_id=request.path_params["replay_id"])

    async def results_form(request: Request) -> HTMLResponse:
        return page("results_form.html")

    async def results_upload(request: Request) -> HTMLResponse:
        try:
            raw, name = await upload_of(
                request, limits.MAX_REPORT_BYTES, "a report that evaluate.py wrote (its JSON file)"
            )
            report = await run_in_threadpool(results.read_report, raw, name)
        except limits.TooLarge as error:
            return page("results_form.html", 413, error=str(error))
        except ValueError as error:
            return page("results_form.html", 400, error=one_line_of(error)[:MAX_ERROR_CHARS])
        return page("results.html", report=report)

    routes = [
        Route("/", index),
        Route("/new", new_game, methods=["POST"]),
        Route("/play/{game_id}", play),
        Route("/play/{game_id}/table", table_fragment),
        Route("/api/games/{game_id}", state),
        Route("/api/games/{game_id}/act", act, methods=["POST"]),
        Route("/api/games/{game_id}/advance", advance, methods=["POST"]),
        Route("/replay", replay_form),
        Route("/replay", replay_upload, methods=["POST"]),
        Route("/replay/{replay_id}", replay_view),
        Route("/results", results_form),
        Route("/results", results_upload, methods=["POST"]),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = Starlette(routes=routes, middleware=[Middleware(SameOriginPosts)])
    app.state.games = games
    app.state.replays = replays
    app.state.settings = settings
    return app
