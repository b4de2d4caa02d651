"use strict";
// The game page: your seat against three agents. The server holds the game and checks
// every move; this page draws its state and sends what you chose.

let state = null;
const selected = new Set();
const $ = (id) => document.getElementById(id);
const RANKS = { 0: "T", t: "T", j: "J", q: "Q", k: "K", a: "A" };

function say(text, isError) {
  const box = $("message");
  box.textContent = text || "";
  box.className = isError ? "error" : "";
}

// Requests are numbered as they are sent; `drawn` is the newest one whose answer was used.
// An answer to an older request arrives late (the page's first GET /api/state can be
// answered after a New game) and is dropped: it would draw a game that has moved on.
let asked = 0;
let drawn = 0;

// A request to the server; a lost connection is retried until it comes back. `late` says
// a newer request was answered first.
async function api(method, path, body) {
  const number = ++asked;
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await fetch(path, {
        method, headers: { "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const data = await response.json();
      if (attempt > 0) say("Connection back.");
      const late = number < drawn;
      drawn = Math.max(drawn, number);
      return { status: response.status, data, late };
    } catch (error) {
      say("Connection to the server lost: retrying (your game is kept on the server)…", true);
      await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 500 * (attempt + 1))));
    }
  }
}

function render(next) {
  state = next;
  selected.clear();
  $("hint").className = "hidden";
  if (!state.game) {
    say("Press New game to start.");
    return;
  }
  $("seed").textContent = state.seed;
  $("rules").textContent = state.rules;
  drawSeats();
  $("table-area").replaceChildren(tableEl(state.table, state.labels));
  drawHand();
  drawLog();
  $("play").disabled = !state.your_turn;
  $("pass").disabled = !state.can_pass;
  $("hint-button").disabled = !(state.your_turn && state.hint);
  $("saved").textContent = state.saved ? "saved as " + state.saved : "";
  if (state.save_problem) say(state.save_problem, true);
  drawEnd();
}

function drawSeats() {
  const players = state.counts.length;
  const seats = state.counts.map((count, s) => seatEl(s, {
    label: state.labels[s], count, last: state.last[s],
    turn: state.turn === s && !state.over, place: placeOf(s, state.seat, players),
    old: state.table === null,
  }));
  $("felt").replaceChildren($("table-area"), ...seats);
}

function drawHand() {
  const hand = $("hand");
  const playable = new Set(state.playable);
  hand.className = state.your_turn ? "your-turn" : "";
  hand.replaceChildren();
  for (const card of state.hand) {
    const node = cardEl(card, playable.has(card) ? "playable" : "");
    node.addEventListener("click", () => toggle(card));
    hand.append(node);
  }
}

function toggle(card) {
  if (selected.has(card)) selected.delete(card); else selected.add(card);
  markSelected();
}

function markSelected() {
  for (const node of $("hand").querySelectorAll(".card")) {
    node.classList.toggle("selected", selected.has(node.dataset.card));
  }
}

// A rank key: select the next card of that rank; once all are selected, none of them.
function selectRank(rank) {
  const cards = state.hand.filter((c) => c[0] === rank);
  const next = cards.find((c) => !selected.has(c));
  if (next) selected.add(next); else cards.forEach((c) => selected.delete(c));
  markSelected();
}

function drawLog() {
  const log = $("log");
  log.replaceChildren();
  for (const move of state.moves) {
    log.append(el("li", { "data-seat": move.seat }, state.labels[move.seat] + ": ", moveEl(move),
      thoughtEl(move.thought)));
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
  const text = scoresText(state.scores, state.winner, state.labels);
  scores.replaceChildren((state.winner === state.seat ? "You win! " : "") + text);
  scores.setAttribute("data-scores", JSON.stringify(state.scores));
  scores.className = "";
  const rows = state.hands.map((cards, s) => el("div", { class: "seat", id: "final-" + s },
    el("span", { class: "name" }, state.labels[s] + ": "),
    cards.length ? cardsEl(cards, "small") : el("span", { class: "label" }, "went out"),
    el("div", { class: "label" }, "dealt: "), cardsEl(state.deal[s], "small")));
  hands.replaceChildren(...rows);
  hands.className = $("reveal").checked ? "final-hands" : "hidden";
  say("Game over. Press New game for another.");
}

async function send(cards) {
  const { status, data, late } = await api("POST", "/api/move",
    { game: state.game, version: state.version, cards });
  if (late) return;
  if (status === 200) { say(""); render(data); return; }
  if (data.state) render(data.state);
  say(data.error, true);
}

function playSelected() {
  if (!state || !state.your_turn) return;
  if (!selected.size) { say("Choose cards to play first (click them), or pass.", true); return; }
  send(state.hand.filter((c) => selected.has(c)));
}

function pass() {
  if (state && state.can_pass) send([]);
}

// The hint agent's top candidates for your hand; a row's cards are selected when clicked.
async function hint() {
  if (!state || !state.your_turn || !state.hint) return;
  const { status, data, late } = await api("POST", "/api/hint",
    { game: state.game, version: state.version });
  if (late) return;
  if (status !== 200) {
    if (data.state) render(data.state);
    say(data.error, true);
    return;
  }
  const box = thoughtEl(data.hint);
  for (const row of box.querySelectorAll("tr[data-cards]")) {
    row.addEventListener("click", () => {
      selected.clear();
      row.dataset.cards.split(" ").filter((c) => c).forEach((c) => selected.add(c));
      markSelected();
    });
  }
  $("hint").replaceChildren(el("div", { class: "label" },
    "What " + data.hint.agent + " would play with your hand (click a row to select it):"), box);
  $("hint").className = "";
}

async function newGame() {
  const text = $("new-seed").value.trim();
  const { status, data, late } = await api("POST", "/api/new", { seed: text === "" ? null : Number(text) });
  if (late) return;
  if (status === 200) { say(""); render(data); } else say(data.error, true);
}

function clear() {
  if (state && state.game) { selected.clear(); markSelected(); }
}

$("play").addEventListener("click", playSelected);
$("pass").addEventListener("click", pass);
$("clear").addEventListener("click", clear);
$("hint-button").addEventListener("click", hint);
$("reveal").addEventListener("change", () => { if (state && state.game) drawEnd(); });
$("new-game").addEventListener("click", newGame);

// The keys listed on the page (#keys). Typing in a field, and Enter on a button, are left
// to the browser.
const KEYS = { enter: playSelected, p: pass, h: hint, c: clear, escape: clear,
  n: () => { if (!state || !state.game || state.over) newGame(); } };
document.addEventListener("keydown", (event) => {
  const target = event.target;
  if (event.ctrlKey || event.metaKey || event.altKey || target.closest("input, select, textarea")) return;
  const key = event.key.toLowerCase();
  if (key === "enter" && target.closest("button, summary, a")) return;
  if (KEYS[key]) { event.preventDefault(); KEYS[key](); return; }
  const rank = RANKS[key] || (/^[2-9]$/.test(key) ? key : null);
  if (rank && state && state.game) selectRank(rank);
});

// Another tab or a lost connection may have moved the game on: refresh when shown again.
document.addEventListener("visibilitychange", async () => {
  if (document.visibilityState !== "visible") return;
  const { data, late } = await api("GET", "/api/state");
  if (!late) render(data);
});

api("GET", "/api/state").then(({ data, late }) => { if (!late) render(data); });
