// The kiosk screen: draws the board once from /kiosk/board, then every screen the server pushes
// (/kiosk/events). The arcade buttons reach the server through the GPIO board; a USB arcade
// encoder that types keys works too: Space/Enter/G = GO, N/Right = NEXT, U/Backspace = UNDO.
"use strict";

const NS = "http://www.w3.org/2000/svg";
const NAMES = { independent: "Independent", japanese: "Japanese", british: "British", american: "American" };
const COLOURS = { independent: "#2e8b3e", japanese: "#e0b400", british: "#c8262c", american: "#2057c9" };
const $ = (id) => document.getElementById(id);
let hexes = {};
let current = null;
let askingUntil = 0;

function el(tag, attrs, parent, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}
const pts = (poly) => poly.map((p) => p.join(",")).join(" ");

function drawBoard(board) {
  $("map").setAttribute("viewBox", `0 0 ${board.board_mm[0]} ${board.board_mm[1]}`);
  const g = $("board-layer");
  g.textContent = "";
  el("polygon", { class: "shore", points: pts(board.shore_outline_mm) }, g);
  for (const h of board.hexes) {
    hexes[h.address] = { poly: el("polygon", { class: "hex", points: pts(h.polygon_mm), "data-address": h.address }, g), center: h.center_mm };
  }
  for (const t of board.tracks) {
    for (const s of t.spaces) {
      el("circle", { class: "track-space" + (s.star ? " star" : ""), cx: s.at_mm[0], cy: s.at_mm[1], r: t.space_diameter_mm / 2,
                     stroke: COLOURS[t.expedition] }, g);
      if (s.star) el("text", { class: "track-star", x: s.at_mm[0], y: s.at_mm[1] }, g, "*");
    }
  }
}

function drawMap(v, layout) {
  for (const h of Object.values(hexes)) h.poly.classList.remove("covered", "surface", "submerged", "seen");
  for (const piece of layout || []) for (const a of piece.hexes) if (hexes[a]) hexes[a].poly.classList.add("covered");
  const mg = $("monster-layer");
  mg.textContent = "";
  const m = v.monster;
  if (m && m.surface && hexes[m.surface]) {
    const head = hexes[m.surface];
    head.poly.classList.add("surface");
    if (head.poly.classList.contains("covered")) head.poly.classList.add("seen");
    const g = el("g", { id: "nessie", "data-address": m.surface, transform: `translate(${head.center[0]} ${head.center[1]}) scale(1.6)` }, mg);
    el("path", { class: "nessie", d: "M-7 4 C-5 -1 -2 -1 0 3 C1 -3 1 -8 4 -9 C6 -9.5 7.5 -8 7 -6.5 L4.5 -6.5 C3 -4 3.5 0 3 4 Z" }, g);
    if (m.submerged_in_play) {
      for (const a of Object.values(m.submerged)) if (a && hexes[a]) hexes[a].poly.classList.add("submerged");
    }
  }
  const lg = $("leader-layer");
  for (const l of v.leaders || []) {
    let node = lg.querySelector(`[data-expedition="${l.expedition}"]`);
    if (!node) {
      node = el("g", { class: "leader", "data-expedition": l.expedition }, lg);
      el("circle", { r: 9, fill: COLOURS[l.expedition] }, node);
      el("text", {}, node, NAMES[l.expedition][0]);
    }
    node.setAttribute("transform", `translate(${l.at_mm[0]} ${l.at_mm[1]})`);
    node.classList.toggle("idle", !l.moving);
  }
}

function render(s) {
  if (current && s.boot !== current.boot) { location.reload(); return; } // the kiosk restarted
  if (current && s.version < current.version) return;
  current = s;
  document.body.dataset.mode = s.mode;
  document.body.dataset.version = s.version;
  const v = s.view || {};
  drawMap(v, s.layout);
  $("round").textContent = v.round ? `Round ${v.round}` : "Round –";
  $("of-rounds").textContent = s.rounds ? `of ${s.rounds}` : "";
  const me = (v.expeditions || [])[0];
  $("points").textContent = me ? me.points : 0;
  $("cash").textContent = me ? `£${me.cash}` : "£0";
  $("headline").textContent = s.headline;
  const list = $("choices");
  list.textContent = "";
  (s.choices || []).forEach((c, i) => {
    const li = document.createElement("li");
    li.textContent = c;
    if (i === s.selected) li.className = "selected";
    list.appendChild(li);
  });
  $("report").textContent = (v.report || []).join(" ");
  $("message").textContent = s.message || "";
  const t = v.last_throw;
  $("last-throw").textContent = t ? `Die: ${t.value}  (${NAMES[t.token]} token)` : "";
  for (const b of ["go", "next", "undo"]) {
    const label = s.buttons[b];
    $(`label-${b}`).textContent = label || "";
    $(`label-${b}`).parentElement.classList.toggle("on", !!label);
  }
  const rows = $("score-rows");
  rows.textContent = "";
  (s.highscores || []).forEach((h, i) => {
    const tr = document.createElement("tr");
    for (const cell of [i + 1, NAMES[h.expedition] || h.expedition, h.points, h.rounds]) {
      const td = document.createElement("td");
      td.textContent = String(cell);
      tr.appendChild(td);
    }
    rows.appendChild(tr);
  });
  $("no-scores").hidden = (s.highscores || []).length > 0;
  const asking = s.mode === "asking";
  $("asking").hidden = !asking;
  askingUntil = asking ? Date.now() + s.seconds_left * 1000 : 0;
  countdown();
}

function countdown() {
  if (!askingUntil) return;
  $("countdown").textContent = String(Math.max(0, Math.ceil((askingUntil - Date.now()) / 1000)));
}

async function press(button) {
  try {
    const res = await fetch("/kiosk/press", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ button }) });
    if (res.ok) render(await res.json());
  } catch (err) { /* the live stream brings the next screen anyway */ }
}

function bind() {
  document.addEventListener("keydown", (e) => {
    if (e.repeat || e.ctrlKey || e.altKey || e.metaKey) return;
    const k = e.key.toLowerCase();
    if (k === " " || k === "enter" || k === "g") press("go");
    else if (k === "n" || k === "arrowright") press("next");
    else if (k === "u" || k === "backspace") press("undo");
    else return;
    e.preventDefault();
  });
  document.addEventListener("contextmenu", (e) => e.preventDefault());
  setInterval(countdown, 250);
}

// The browser reconnects an event stream by itself after a dropped connection, but gives up for good
// (readyState CLOSED) when an answer is not a 200 event stream -- one 502/503 from a server half way
// through a restart would leave the kiosk frozen. Then: wait, fetch the screen until the kiosk
// answers (a new boot reloads the page in render), and open a new stream.
const RECONNECT_MS = 2000;

function connect() {
  const source = new EventSource("/kiosk/events");
  source.addEventListener("screen", (e) => render(JSON.parse(e.data)));
  source.addEventListener("error", () => {
    if (source.readyState === EventSource.CLOSED) setTimeout(resume, RECONNECT_MS);
  });
}

async function resume() {
  try {
    const res = await fetch("/kiosk/state");
    if (!res.ok) throw new Error(`kiosk answered ${res.status}`);
    render(await res.json());
  } catch (err) {
    setTimeout(resume, RECONNECT_MS);
    return;
  }
  connect();
}

async function init() {
  try {
    const board = await fetch("/kiosk/board");
    const state = await fetch("/kiosk/state");
    if (!board.ok || !state.ok) throw new Error("the kiosk is not ready");
    drawBoard(await board.json());
    render(await state.json());
  } catch (err) {
    setTimeout(init, 2000); // the kiosk is not up yet: try again, never show an error page
    return;
  }
  bind();
  connect();
}
init();
