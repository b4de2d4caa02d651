"use strict";
// The replay page: step through a saved game with every hand shown. Its frames come
// from the server (Python reads and checks the log), or are embedded in the page by
// `big2 replay --html`, which then needs no server.

let replay = null;
let at = 0;
const $ = (id) => document.getElementById(id);
// for replays that name no players: "seat 0", "seat 1", ...
const seatNumbers = (players) => Array.from({ length: players }, (_, s) => "seat " + s);

function say(text, isError) {
  const box = $("message");
  box.textContent = text || "";
  box.className = isError ? "error" : "";
}

function show(index) {
  const frames = replay.frames;
  at = Math.max(0, Math.min(frames.length - 1, index));
  const frame = frames[at];
  $("position").textContent = "move " + (frame.number) + " of " + (frames.length - 1 + frames[0].number);
  $("position").setAttribute("data-index", at);
  const move = frame.move;
  const names = replay.names || seatNumbers(frame.hands.length);
  $("frame-move").replaceChildren(move
    ? el("div", {}, names[move.seat] + ": ", moveEl(move))
    : el("div", { class: "label" }, "the deal"));
  $("table-area").replaceChildren(tableEl(frame.table, names));
  const seats = frame.hands.map((cards, s) => seatEl(s, {
    label: names[s], count: frame.counts[s], last: frame.last[s], hand: cards,
    turn: frame.turn === s, place: placeOf(s, 0, frame.hands.length), old: frame.table === null,
  }));
  $("felt").replaceChildren($("table-area"), ...seats);
  const thought = move && move.thought ? thoughtEl(move.thought)
    : el("p", { class: "label" }, "Nothing recorded for this move (or it had no choice).");
  $("thought").replaceChildren(thought);
  const scores = $("scores");
  if (frame.scores) {
    scores.textContent = scoresText(frame.scores, frame.winner, names);
    scores.setAttribute("data-scores", JSON.stringify(frame.scores));
    scores.className = "";
  } else scores.className = "hidden";
  $("first").disabled = $("prev").disabled = at === 0;
  $("next").disabled = $("last").disabled = at === frames.length - 1;
}

function load(data) {
  replay = data;
  const about = [data.rules + " rules"];
  if (data.seed !== null && data.seed !== undefined) about.push("seed " + data.seed);
  if (data.date) about.push("played " + data.date);
  $("title").textContent = (data.name ? data.name + ", " : "") + about.join(", ");
  say("");
  show(0);
}

// A replay from the server: GET a saved game, or POST a log's JSON text (as JSON, which
// the server requires of every POST). When two were asked for in quick succession, the
// answer to the older one is dropped if it comes last.
let asked = 0;
let shown = 0;

async function fetchReplay(method, path, body) {
  const headers = body === undefined ? {} : { "Content-Type": "application/json" };
  const number = ++asked;
  try {
    const response = await fetch(path, { method, headers, body });
    const data = await response.json();
    if (number < shown) return;
    shown = number;
    if (response.status !== 200) { say(data.error, true); return; }
    load(data);
  } catch (error) {
    say("Could not reach the server: is big2 serve still running?", true);
  }
}

$("first").addEventListener("click", () => show(0));
$("prev").addEventListener("click", () => show(at - 1));
$("next").addEventListener("click", () => show(at + 1));
$("last").addEventListener("click", () => show(Infinity));
document.addEventListener("keydown", (event) => {
  if (!replay) return;
  if (event.target.closest("input, select, textarea")) return;
  const steps = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: Infinity };
  if (event.key in steps) { event.preventDefault(); show(steps[event.key]); }
});

if (window.BIG2_REPLAY) {
  $("chooser").className = "hidden";
  load(window.BIG2_REPLAY);
} else {
  fetch("/api/logs").then((r) => r.json()).then(({ logs }) => {
    for (const name of logs) $("saved-logs").append(el("option", { value: name }, name));
    const wanted = new URLSearchParams(location.search).get("log");
    if (wanted) fetchReplay("GET", "/api/logs/" + encodeURIComponent(wanted));
  }).catch(() => say("Could not reach the server: is big2 serve still running?", true));
  $("saved-logs").addEventListener("change", (event) => {
    if (event.target.value) fetchReplay("GET", "/api/logs/" + encodeURIComponent(event.target.value));
  });
  $("log-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (file) fetchReplay("POST", "/api/frames", await file.text());
  });
}
