"use strict";
// Drawing shared by the game page and the replay page: cards, moves, seats and thoughts.

const SUIT_SYMBOLS = { D: "♦", C: "♣", H: "♥", S: "♠" };
// Where each seat sits, from the viewer's seat (south) in turn order, by the number of
// seats: the next seat on the right (east), the previous on the left (west).
const PLACES = {
  2: ["south", "north"],
  3: ["south", "east", "west"],
  4: ["south", "east", "north", "west"],
};

// The place of `seat` at a table of `players` seen from `viewer`'s seat.
function placeOf(seat, viewer, players) {
  return PLACES[players][(seat - viewer + players) % players];
}
const FOLD = 0.005; // candidates less likely than this are folded away

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}

function cardLabel(card) {
  return card[0] + SUIT_SYMBOLS[card[1]];
}

function cardEl(card, extra) {
  const red = card[1] === "D" || card[1] === "H";
  return el("span", { class: "card" + (red ? " red" : "") + (extra ? " " + extra : ""),
                      "data-card": card, title: card }, cardLabel(card));
}

function cardsEl(cards, cls) {
  const row = el("span", { class: "cards" + (cls ? " " + cls : "") });
  for (const card of cards) row.append(cardEl(card));
  return row;
}

function moveEl(move, cls) {
  if (!move.cards.length) return el("span", { class: "pass" }, "pass");
  return el("span", { class: "move" }, cardsEl(move.cards, cls), " ",
    el("span", { class: "label" }, move.label));
}

function percent(x) {
  return (100 * x).toFixed(x < 0.1 ? 1 : 0) + "%";
}

// "Seat 2 (heuristic)": a seat's name at the start of a sentence.
function capital(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// A seat at the table: its name, cards left (a warning at one), its last play or pass in
// front of it and, in replays, its hand. `place`: where it sits (PLACES).
function seatEl(seat, info) {
  const count = info.count;
  const warning = count === 1 ? el("span", { class: "warning" }, "1 card left!") : null;
  const last = info.last ? moveEl(info.last, "small") : null;
  return el("div", { class: "seat" + (info.turn ? " turn" : "") + (count === 1 ? " one-card" : ""),
                     id: "seat-" + seat, "data-place": info.place },
    el("div", { class: "name" }, info.label),
    el("div", { class: "counts" }, el("span", { class: "count" }, String(count)),
       count === 1 ? " card " : " cards ", warning),
    info.hand ? el("div", { class: "hand" }, info.hand.length ? cardsEl(info.hand, "small")
      : el("span", { class: "label" }, "went out")) : null,
    el("div", { class: "last" + (info.old ? " old" : "") }, last));
}

// The middle of the table: the combination to beat and who played it.
function tableEl(table, labels) {
  if (!table) return el("div", { class: "table-empty" }, "the table is empty");
  return el("div", {}, cardsEl(table.cards, "big"),
    el("div", { class: "label" }, table.label + ", played by " + labels[table.seat]));
}

function scoresText(scores, winner, labels) {
  return capital(labels[winner]) + " wins. Scores: "
    + scores.map((x, s) => labels[s] + " " + (x > 0 ? "+" : "") + x).join(", ");
}

function wonInSearch(c) {
  if (c.win_rate === null) return "";
  return percent(c.win_rate) + (c.deals === null || c.deals === undefined ? "" : " of " + c.deals);
}

function thoughtRow(c, search) {
  return el("tr", { class: c.chosen ? "chosen" : "", "data-cards": c.cards.join(" ") },
    el("td", {}, moveEl(c, "small"), c.chosen ? el("span", { class: "mark" }, " ◀ chosen") : null),
    el("td", {}, percent(c.probability)),
    search ? el("td", {}, wonInSearch(c)) : null);
}

// What an agent weighed: its candidates with probabilities (and, for a search, the share
// of sampled deals each won, of how many), the rule that picked, its value. Rows under
// FOLD (the chosen one apart) are folded away.
function thoughtEl(thought) {
  if (!thought) return null;
  const search = thought.candidates.some((c) => c.win_rate !== null);
  const shown = el("tbody");
  const folded = el("tbody");
  for (const c of thought.candidates) {
    (c.probability < FOLD && !c.chosen ? folded : shown).append(thoughtRow(c, search));
  }
  const head = el("thead", {}, el("tr", {}, el("th", {}, "candidate"), el("th", { title: "how likely the agent was to play it" }, "prob."),
    search ? el("th", { title: "share of the sampled deals it won after this move, of how many (fewer for moves dropped early)" }, "won in search") : null));
  const more = folded.children.length;
  return el("div", { class: "thought-box" },
    el("table", { class: "thought" }, head, shown),
    more ? el("details", { class: "folded" },
      el("summary", {}, more + " more under " + percent(FOLD)),
      el("table", { class: "thought" }, folded)) : null,
    thought.rule ? el("div", { class: "rule" }, "picked by: " + thought.rule) : null,
    thought.value === null ? null
      : el("div", { class: "value" }, "its chance to win, as it saw it: " + percent(thought.value)));
}
