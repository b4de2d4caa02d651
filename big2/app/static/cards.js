"use strict";
// Drawing shared by the game page and the replay page: cards, moves and thoughts.

const SUIT_SYMBOLS = { D: "♦", C: "♣", H: "♥", S: "♠" };

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

function moveEl(move) {
  if (!move.cards.length) return el("span", { class: "pass" }, "pass");
  return el("span", {}, cardsEl(move.cards), " ", el("span", { class: "label" }, move.label));
}

function percent(x) {
  return (100 * x).toFixed(x < 0.1 ? 1 : 0) + "%";
}

// What an agent weighed: its candidates with probabilities (and win rates), its value.
function thoughtEl(thought) {
  if (!thought) return null;
  const table = el("table", { class: "thought" },
    el("tr", {}, el("th", {}, "candidate"), el("th", {}, "probability"),
       thought.candidates.some((c) => c.win_rate !== null) ? el("th", { title: "share of the sampled deals it won after this move (fewer deals for moves dropped early)" }, "won in search") : null));
  thought.candidates.forEach((c, i) => {
    table.append(el("tr", { class: i === 0 ? "chosen" : "" },
      el("td", {}, moveEl(c)), el("td", {}, percent(c.probability)),
      c.win_rate === null ? null : el("td", {}, percent(c.win_rate))));
  });
  const value = thought.value === null ? null
    : el("div", { class: "value" }, "its chance to win, as it saw it: " + percent(thought.value));
  return el("div", { class: "thought-box" }, table, value);
}

function tableEl(table, names) {
  if (!table) return el("div", { class: "table-empty" }, "the table is empty");
  return el("div", {}, cardsEl(table.cards, "big"),
    el("div", { class: "label" }, table.label + ", played by " + names[table.seat]));
}
