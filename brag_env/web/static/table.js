// The table page: fetch the table's HTML, post the clicks, let each agent move after a delay.
(function () {
  "use strict";
  const root = document.getElementById("table");
  const errorBox = document.getElementById("error");
  const id = root.dataset.gameId;
  const delay = Math.max(0, parseFloat(root.dataset.delay) || 0) * 1000;
  // A bot move that fails (the server down, the game expired) is asked again, each time
  // twice as late, from 1 s up to a minute: a broken table does not flood the server.
  const RETRY_FIRST = 1000;
  const RETRY_MOST = 60000;
  let failures = 0;
  let busy = false;

  function botDelay() {
    if (failures === 0) return delay;
    return Math.min(RETRY_MOST, Math.max(delay, RETRY_FIRST * 2 ** (failures - 1)));
  }

  function current() {
    return root.querySelector("[data-phase]");
  }

  function showError(message) {
    errorBox.textContent = message;
    errorBox.hidden = !message;
  }

  async function refresh() {
    let response;
    try {
      response = await fetch(`/play/${id}/table`, { cache: "no-store" });
    } catch (error) {
      failures += 1;
      showError(`the server does not answer: trying again in ${botDelay() / 1000} s`);
      setTimeout(refresh, botDelay());
      return;
    }
    root.innerHTML = await response.text();
    const state = current();
    if (state && state.dataset.phase === "bot_turn") {
      setTimeout(() => post("advance", {}), botDelay());
    }
  }

  async function post(what, body) {
    const state = current();
    if (!state || busy) return;
    busy = true;
    try {
      body.turn = parseInt(state.dataset.turn, 10);
      const response = await fetch(`/api/games/${id}/${what}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      if (!response.ok) {
        const answer = await response.json().catch(() => ({ error: response.statusText }));
        if (what === "advance") failures += 1;
        showError(answer.error);
      } else {
        failures = 0;
        showError("");
      }
    } catch (error) {
      failures += 1;
      showError("the server does not answer: trying again later");
    } finally {
      busy = false;
    }
    await refresh();
  }

  root.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-action]");
    if (!button) return;
    root.querySelectorAll("button[data-action]").forEach((b) => { b.disabled = true; });
    if (button.dataset.action === "next") post("advance", {});
    else post("act", { action: button.dataset.action });
  });

  refresh();
})();
