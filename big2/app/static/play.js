"use strict";
// The game page: your seat against three agents. The server holds the game and checks
// every move; this page draws its state and sends what you chose.

let state = null;
const selected = new Set();
const $ = (id) => document.getElementById(id);

function say(text, isError) {
  const box = $("message");
  box.textContent = text || "";
  box.className = isError ? "error" : "";
}

// A request to the server; a lost connection is retried until it comes back.
async function api(method, path, body) {
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await fetch(path, {
        method, headers: { "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const data = await response.json();
      if (attempt > 0) say("Connection back.");
      return { status: response.status, data };
    } catch (error) {
      say("Connection to the server lost: retrying (your game is kept on the server)…", true);
      await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 500 * (attempt + 1))));
    }
  }
}

function render(next) {
  state = next;
  selected.clear();
  if (!state.game) {
    say("Press New game to start.");
    return;
  }
  $("seed").textContent = state.seed;
  $("rules").textContent = state.rules;
  drawOpponents();
  $("table-area").replaceChildren(tableEl(state.table, state.names));
  drawHand();
  drawLog();
  $("play").disabled = !state.your_turn;
  $("pass").disabled = !state.can_pass;
  $("saved").textContent = state.saved ? "saved as " + state.saved : "";
  if (state.save_problem) say(state.save_problem, true);
  drawEnd();
}

function drawOpponents() {
  const seats = [];
  for (let s = 0; s < 4; s++) {
    if (s === state.seat) continue;
    seats.push(el("div", { class: "seat" + (state.turn === s && !state.over ? " turn" : ""),
                           id: "seat-" + s },
      el("div", { class: "name" }, "seat " + s + ": " + state.names[s]),
      el("div", { class: "counts" }, el("span", { class: "count" }, String(state.counts[s])),
         " cards")));
  }
  $("opponents").replaceChildren(...seats);
}

function drawHand() {
  const hand = $("hand");
  hand.replaceChildren();
  for (const card of state.hand) {
    const node = cardEl(card);
    node.addEventListener("click", () => {
      if (selected.has(card)) selected.delete(card); else selected.add(card);
      node.classList.toggle("selected");
    });
    hand.append(node);
  }
}

function drawLog() {
  const log = $("log");
  log.replaceChildren();
  for (const move of state.moves) {
    const who = move.seat === state.seat ? "you" : "seat " + move.seat + " (" + state.names[move.seat] + ")";
    log.append(el("li", { "data-seat": move.seat }, who + ": ", moveEl(move), thoughtEl(move.thought)));
  }
  log.scrollTop = log.scrollHeight;
}

function drawEnd() {
  const scores = $("scores");
  const hands = $("all-hands");
  if (!state.over) {
    scores.className = "hidden";
    hands.className = "hidden";
    if (state.your_turn) say(state.can_pass ? "Your turn: play or pass." : "Your turn: you lead.");
    return;
  }
  const winner = state.winner === state.seat ? "You win!" : "Seat " + state.winner + " (" + state.names[state.winner] + ") wins.";
  scores.replaceChildren(winner + " Scores: " + state.scores.map((x, s) => state.names[s] + " " + (x > 0 ? "+" : "") + x).join(", "));
  scores.setAttribute("data-scores", JSON.stringify(state.scores));
  scores.className = "";
  const rows = state.hands.map((cards, s) => el("div", { class: "seat", id: "final-" + s },
    el("span", { class: "name" }, state.names[s] + ": "),
    cards.length ? cardsEl(cards) : el("span", { class: "label" }, "went out"),
    el("div", { class: "label" }, "dealt: "), cardsEl(state.deal[s])));
  hands.replaceChildren(...rows);
  hands.className = $("reveal").checked ? "replay-hands" : "hidden";
  say("Game over. Press New game for another.");
}

async function send(cards) {
  const { status, data } = await api("POST", "/api/move",
    { game: state.game, version: state.version, cards });
  if (status === 200) { say(""); render(data); return; }
  if (data.state) render(data.state);
  say(data.error, true);
}

$("play").addEventListener("click", () => {
  if (!selected.size) { say("Choose cards to play first (click them), or pass.", true); return; }
  send(state.hand.filter((c) => selected.has(c)));
});
$("pass").addEventListener("click", () => send([]));
$("clear").addEventListener("click", () => render(state));
$("reveal").addEventListener("change", () => { if (state && state.game) drawEnd(); });
$("new-game").addEventListener("click", async () => {
  const text = $("new-seed").value.trim();
  const { status, data } = await api("POST", "/api/new", { seed: text === "" ? null : Number(text) });
  if (status === 200) { say(""); render(data); } else say(data.error, true);
});

// Another tab or a lost connection may have moved the game on: refresh when shown again.
document.addEventListener("visibilitychange", async () => {
  if (document.visibilityState === "visible") render((await api("GET", "/api/state")).data);
});

api("GET", "/api/state").then(({ data }) => render(data));
