// The table page: fetch the table's HTML, post the clicks, let each agent move after a delay.
(function () {
  "use strict";
  const root = document.getElementById("table");
  const errorBox = document.getElementById("error");
  const id = root.dataset.gameId;
  const delay = Math.max(0, parseFloat(root.dataset.delay) || 0) * 1000;
  let busy = false;

  function current() {
    return root.querySelector("[data-phase]");
  }

  function showError(message) {
    errorBox.textContent = message;
    errorBox.hidden = !message;
  }

  async function refresh() {
    const response = await fetch(`/play/${id}/table`, { cache: "no-store" });
    root.innerHTML = await response.text();
    const state = current();
    if (state && state.dataset.phase === "bot_turn") {
      setTimeout(() => post("advance", {}), delay);
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
        showError(answer.error);
      } else {
        showError("");
      }
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
