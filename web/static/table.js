// The table screen: draws the board from /api/board once, then redraws the live parts from every
// view the server pushes (/api/events). Buttons are enabled only for what the rules allow now.
"use strict";

const NS = "http://www.w3.org/2000/svg";
const NAMES = { independent: "Independent", japanese: "Japanese", british: "British", american: "American" };
const COLOURS = { independent: "var(--independent)", japanese: "var(--japanese)", british: "var(--british)", american: "var(--american)" };
const SOURCES = { screen: "on-screen button", keyboard: "keyboard", "virtual-die": "virtual die", autoplay: "self-playing table",
                  camera: "camera", gpio: "button board (GPIO)", serial: "button board (USB)", import: "imported game" };
let board = null;
let view = null;
const hexes = {};
const tracks = {};

function el(tag, attrs, parent, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  if (parent) parent.appendChild(node);
  return node;
}
const pts = (poly) => poly.map((p) => p.join(",")).join(" ");

function fitMap() {
  // A phone shows the loch alone, large enough to read the addresses; a TV shows the whole board.
  const svg = document.getElementById("map");
  if (window.matchMedia("(max-width: 900px)").matches) {
    const xs = board.shore_outline_mm.map((p) => p[0]);
    const ys = board.shore_outline_mm.map((p) => p[1]);
    const x0 = Math.min(...xs) - 4, y0 = Math.min(...ys) - 4;
    svg.setAttribute("viewBox", `${x0} ${y0} ${Math.max(...xs) - x0 + 4} ${Math.max(...ys) - y0 + 4}`);
  } else {
    svg.setAttribute("viewBox", `0 0 ${board.board_mm[0]} ${board.board_mm[1]}`);
  }
}

function drawBoard() {
  fitMap();
  window.addEventListener("resize", fitMap);
  const g = document.getElementById("board-layer");
  g.innerHTML = "";
  el("polygon", { class: "shore", points: pts(board.shore_outline_mm) }, g);
  for (const h of board.hexes) {
    const poly = el("polygon", { class: "hex", points: pts(h.polygon_mm), "data-address": h.address }, g);
    el("title", {}, poly, h.address);
    el("text", { class: "hex-label", x: h.center_mm[0], y: h.center_mm[1] }, g, h.address);
    hexes[h.address] = { poly, center: h.center_mm };
  }
  for (const m of board.markers.markers) {
    el("polygon", { class: "marker", points: pts(m.corners_mm) }, g);
    const c = m.corners_mm.reduce((a, p) => [a[0] + p[0] / 4, a[1] + p[1] / 4], [0, 0]);
    el("text", { class: "marker-label", x: c[0], y: c[1] }, g, `ArUco ${m.id}`);
  }
  for (const p of board.evidence_packs) {
    const [x, y, w, h] = p.rect_mm;
    el("rect", { class: "pack", x, y, width: w, height: h, rx: 2 }, g);
    p.label.split(" ").reduce((rows, word) => {
      const last = rows[rows.length - 1];
      if (last && (last + " " + word).length <= 14) rows[rows.length - 1] = last + " " + word; else rows.push(word);
      return rows;
    }, []).forEach((line, i) => el("text", { class: "pack-label", x: x + w / 2, y: y + h / 2 - 4 + i * 4.2 }, g, line));
  }
  for (const t of board.tracks) {
    tracks[t.expedition] = t;
    const r = t.space_diameter_mm / 2;
    for (const s of t.spaces) {
      const c = el("circle", { class: "track-space" + (s.star ? " star" : ""), cx: s.at_mm[0], cy: s.at_mm[1], r,
                               stroke: COLOURS[t.expedition], "data-track": t.expedition, "data-index": s.index }, g);
      el("title", {}, c, `${NAMES[t.expedition]} track, space ${s.index}${s.star ? " (*: LOGISTICS card)" : ""}`);
      if (s.start) el("text", { class: "track-start", x: s.at_mm[0], y: s.at_mm[1] }, g, s.start);
      else if (s.star) el("text", { class: "track-star", x: s.at_mm[0], y: s.at_mm[1] }, g, "*");
    }
  }
}

function render(v) {
  if (view && v.game_id === view.game_id && v.version < view.version) return; // an older answer arrived late
  view = v;
  document.getElementById("prompt").textContent = v.prompt;
  const legal = Object.fromEntries((v.legal || []).map((a) => [a.type, a]));
  document.querySelectorAll("button.die").forEach((b) => { b.disabled = !legal.throw; });
  document.getElementById("roll").disabled = !legal.throw;
  const next = document.getElementById("next");
  const go = legal.advance || legal["end-turn"];
  next.disabled = !go;
  next.textContent = go ? go.label : "Next";
  document.getElementById("undo").disabled = !v.can_undo;
  if (!v.started) return;
  document.getElementById("round").textContent = `Round ${v.round}`;
  document.getElementById("stage").textContent = `Stage ${v.stage}`;
  const turn = document.getElementById("turn");
  if (legal.throw) {
    turn.innerHTML = "";
    const by = legal.throw.by === legal.throw.token ? NAMES[legal.throw.token] : `${NAMES[legal.throw.by]} for ${NAMES[legal.throw.token]}`;
    turn.textContent = `To throw: ${by}`;
  } else turn.textContent = legal["logistics-dealt"] ? `LOGISTICS: ${NAMES[legal["logistics-dealt"].by]}` : "";
  drawLeaders(v);
  drawVision(v);
  drawMonster(v);
  drawActions(v, legal);
  drawTally(v);
  document.getElementById("report").textContent = (v.report || []).join(" ");
  const last = document.getElementById("last-throw");
  last.textContent = v.last_throw
    ? `Last throw: ${v.last_throw.value} for ${NAMES[v.last_throw.token]} (space ${v.last_throw.from} → ${v.last_throw.to}), from the ${SOURCES[v.last_throw.source] || v.last_throw.source}.`
    : "No throw yet.";
  const list = document.getElementById("leaders");
  list.innerHTML = "";
  for (const l of v.leaders) {
    const li = document.createElement("li");
    const sw = document.createElement("span");
    sw.className = "swatch";
    sw.style.background = COLOURS[l.expedition];
    li.appendChild(sw);
    const role = l.human ? "" : l.moving ? " (moved for the monster)" : " (not used)";
    li.appendChild(document.createTextNode(`${NAMES[l.expedition]}: space ${l.space}${role}`));
    list.appendChild(li);
  }
}

function drawLeaders(v) {
  const g = document.getElementById("leader-layer");
  for (const l of v.leaders) {
    let node = g.querySelector(`[data-expedition="${l.expedition}"]`);
    if (!node) {
      node = el("g", { class: "leader", "data-expedition": l.expedition }, g);
      el("circle", { r: 7, fill: COLOURS[l.expedition] }, node);
      el("text", {}, node, NAMES[l.expedition][0]);
      el("title", {}, node, `${NAMES[l.expedition]} expedition leader`);
    }
    node.setAttribute("data-space", l.space);
    node.setAttribute("transform", `translate(${l.at_mm[0]} ${l.at_mm[1]})`);
    node.classList.toggle("idle", !l.moving);
    node.classList.toggle("current", v.turn === l.expedition);
  }
  const reveal = document.getElementById("reveal-layer");
  reveal.innerHTML = "";
  for (const l of v.leaders) {
    if (l.moving && v.step === "monster") {
      el("text", { class: "reveal", x: l.at_mm[0], y: l.at_mm[1] - 13 }, reveal, l.symbol || "–");
    }
  }
}

// The last photo's coverage: each expedition's colour AND pattern (hatching, dots, cross), so
// colour-blind players can tell red from green; hexes the camera could not see are grey.
function drawVision(v) {
  const g = document.getElementById("vision-layer");
  g.innerHTML = "";
  if (!v.vision) return;
  for (const [expedition, hexList] of Object.entries(v.vision.covered || {})) {
    for (const a of hexList) {
      const hx = hexes[a];
      if (!hx) continue;
      el("polygon", { class: "vision-cover", points: hx.poly.getAttribute("points"), fill: `url(#pat-${expedition})`,
                      "data-expedition": expedition, "data-address": a }, g);
    }
  }
  for (const a of v.vision.unknown || []) {
    if (hexes[a]) el("polygon", { class: "vision-unknown", points: hexes[a].poly.getAttribute("points"), "data-address": a }, g);
  }
}

function drawMonster(v) {
  const g = document.getElementById("monster-layer");
  g.innerHTML = "";
  document.querySelectorAll(".hex.surface, .hex.submerged").forEach((h) => h.classList.remove("surface", "submerged"));
  const info = document.getElementById("monster");
  const m = v.monster;
  if (!m) { info.textContent = ""; return; }
  if (!m.surface) { info.textContent = `No monster: ${m.reason}.`; return; }
  const head = hexes[m.surface];
  head.poly.classList.add("surface");
  const [x, y] = head.center;
  const nessie = el("g", { id: "nessie", "data-address": m.surface, transform: `translate(${x} ${y})` }, g);
  el("path", { class: "nessie", d: "M-7 4 C-5 -1 -2 -1 0 3 C1 -3 1 -8 4 -9 C6 -9.5 7.5 -8 7 -6.5 L4.5 -6.5 C3 -4 3.5 0 3 4 Z" }, nessie);
  el("title", {}, nessie, `Head and neck on ${m.surface}`);
  const parts = [];
  for (const [dir, addr] of Object.entries(m.submerged)) {
    if (!addr) continue;
    const h = hexes[addr];
    if (m.submerged_in_play) h.poly.classList.add("submerged");
    const o = el("ellipse", { class: "submerged-outline" + (m.submerged_in_play ? "" : " not-in-play"),
                              cx: h.center[0], cy: h.center[1], rx: 6.5, ry: 3.5, "data-address": addr, "data-direction": dir }, g);
    el("title", {}, o, `Submerged monster (${dir}) on ${addr}${m.submerged_in_play ? "" : ": not placed, no underwater equipment in use"}`);
    parts.push(`${dir} ${addr}`);
  }
  info.textContent = `Head and neck: ${m.surface}. Submerged${m.submerged_in_play ? "" : " (not in play yet)"}: ${parts.join(", ") || "none on the loch"}.`;
}

function showMessage(text) {
  const box = document.getElementById("message");
  box.textContent = text;
  box.hidden = !text;
  if (text) setTimeout(() => { if (box.textContent === text) box.hidden = true; }, 6000);
}

async function post(path, body) {
  const payload = Object.assign({}, body || {});
  if (view && view.version !== undefined) payload.expect_version = view.version;
  try {
    const res = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(payload) });
    const data = await res.json();
    if (!res.ok) {
      showMessage(data.error + (data.rule ? ` (${data.rule})` : ""));
      if (data.login) { // LAN mode: this change needs a PIN; the link stays until the next message
        const a = Object.assign(document.createElement("a"), { id: "login-link", textContent: "Enter the PIN",
                                                              href: `${data.login}?next=${encodeURIComponent(location.pathname)}` });
        document.getElementById("message").append(" ", a);
      }
      return;
    }
    showMessage("");
    render(data);
  } catch (err) {
    showMessage(`The companion did not answer: ${err}`);
  }
}

function throwDie(value, source) { return post("/api/actions", { type: "throw", value, source }); }
function next() {
  if (!view) return;
  const kinds = (view.legal || []).map((a) => a.type);
  if (kinds.includes("end-turn")) return post("/api/actions", { type: "end-turn" });
  if (kinds.includes("advance")) return post("/api/actions", { type: "advance" });
}

const LABELS = { eye_witness: "Eye witness", surface_camera: "Surface camera", underwater_camera: "Underwater camera",
                 sonar: "Sonar", biological_unit: "Biological unit", cage: "Cage" };

function h(tag, attrs, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "onclick") node.addEventListener("click", v); else if (v !== false && v !== undefined) node.setAttribute(k, v);
  }
  if (text !== undefined) node.textContent = text;
  return node;
}

function group(title, id) {
  const fs = h("fieldset", { id });
  fs.appendChild(h("legend", {}, title));
  return fs;
}

// One control group for each kind of move the rules allow now (never an illegal one).
function drawActions(v, legal) {
  const box = document.getElementById("actions");
  box.innerHTML = "";
  if (v.outcome) {
    box.appendChild(h("div", { class: "outcome", id: "outcome" }, v.outcome.winner
      ? `${NAMES[v.outcome.winner]} wins: ${v.outcome.reason}.` : `The hunt is over: ${v.outcome.reason}.`));
    const fs = group("Recount from the cards entered", "recount");
    for (const [name, r] of Object.entries(v.outcome.recount || {})) {
      fs.appendChild(h("div", {}, `${NAMES[name]}: ${r.cards.join(" + ") || "no cards"} = ${r.total}`));
    }
    box.appendChild(fs);
    return;
  }
  const byName = (n) => NAMES[n] || n;
  if (legal["logistics-dealt"]) {
    const a = legal["logistics-dealt"];
    const fs = group(`${byName(a.by)}: which LOGISTICS card?`, "logistics");
    const sel = h("select", { id: "logistics-card" });
    for (const id of a.cards) {
      const card = (board.logistics.cards || []).find((c) => c.id === id);
      sel.appendChild(h("option", { value: id }, card ? `${id}: ${card.text}` : id));
    }
    fs.appendChild(sel);
    const row = h("div", { class: "row" });
    row.appendChild(h("button", { onclick: () => post("/api/actions", { type: "logistics-dealt", card: sel.value }) }, "Apply this card"));
    row.appendChild(h("button", { onclick: () => post("/api/actions", { type: "logistics-dealt", card: null }) }, "Settled at the table"));
    fs.appendChild(row);
    box.appendChild(fs);
  }
  if (legal["evidence-card"]) {
    const a = legal["evidence-card"];
    const pack = board.evidence_packs.find((p) => p.equipment === a.pack);
    const fs = group(`${byName(a.by)}: points on the ${pack ? pack.label : a.pack} card`, "evidence");
    const row = h("div", { class: "row" });
    for (const value of a.values) {
      row.appendChild(h("button", { class: "points", "data-points": value,
                                    onclick: () => post("/api/actions", { type: "evidence-card", points: value }) }, String(value)));
    }
    fs.appendChild(row);
    box.appendChild(fs);
  }
  if (legal.coverage) {
    const a = legal.coverage;
    const fs = group(`${byName(a.by)}: which pieces cover which monster?`, "coverage");
    // A grid: one row per piece, one column per monster; only what the piece can see is offered.
    const monsters = Object.keys(a.monsters);
    const table = h("table", { class: "cover-grid" });
    const head = h("tr", {});
    head.appendChild(h("th", {}, "Piece"));
    for (const m of monsters) head.appendChild(h("th", {}, `${m} ${a.monsters[m]}`));
    table.appendChild(head);
    for (const p of a.pieces) {
      const tr = h("tr", {});
      tr.appendChild(h("td", {}, `${LABELS[p.equipment]} #${p.id}${p.hex ? " on " + p.hex : ""}`));
      for (const m of monsters) {
        const td = h("td", {});
        if (p.can_see.includes(m)) {
          td.appendChild(h("input", { type: "checkbox", id: `cover-${p.id}-${m}`, "data-piece": p.id, "data-monster": m,
                                      "aria-label": `${LABELS[p.equipment]} #${p.id} covers the ${m} monster` }));
        }
        tr.appendChild(td);
      }
      table.appendChild(tr);
    }
    fs.appendChild(table);
    fs.appendChild(h("button", { class: "primary", onclick: () => {
      const covers = [...fs.querySelectorAll("input:checked")].map((c) => [Number(c.dataset.piece), c.dataset.monster]);
      post("/api/actions", { type: "coverage", covers });
    } }, "Confirm coverage"));
    box.appendChild(fs);
  }
  if (legal.buy) {
    const a = legal.buy;
    const fs = group(`${byName(a.by)}: buy one piece`, "buy");
    const hex = h("input", { type: "text", id: "cage-hex", placeholder: "Cage hexagon, e.g. D3b" });
    const reasons = new Set(a.options.map((o) => o.why));
    if (reasons.size === 1 && !reasons.has(null)) {  // one reason for everything: say it once
      fs.appendChild(h("div", { class: "why" }, a.options[0].why));
    } else for (const o of a.options) {
      const row = h("div", {});
      const b = h("button", { disabled: !o.ok, "data-equipment": o.equipment, title: o.why || "",
                             onclick: () => post("/api/actions", { type: "buy", equipment: o.equipment, hex: o.needs_hex ? hex.value : null }) },
                  `${o.label}: £${o.price} (running £${o.running_cost})`);
      row.appendChild(b);
      if (o.why) row.appendChild(h("div", { class: "why" }, o.why));
      fs.appendChild(row);
    }
    if (a.options.some((o) => o.needs_hex && o.ok)) fs.appendChild(hex);
    box.appendChild(fs);
  }
  if (legal.return && legal.return.pieces.length) {
    const a = legal.return;
    const fs = group("Return equipment (no refund)", "return");
    const row = h("div", { class: "row" });
    for (const p of a.pieces) {
      row.appendChild(h("button", { disabled: !p.ok, title: p.why || "",
                                   onclick: () => post("/api/actions", { type: "return", piece: p.piece }) }, `${LABELS[p.equipment]} #${p.piece}`));
    }
    fs.appendChild(row);
    box.appendChild(fs);
  }
  if (legal["repay-loan"]) {
    const a = legal["repay-loan"];
    const fs = group(`Repay the Sponsor (owed £${a.owed})`, "repay");
    const amount = h("input", { type: "number", min: 1, max: a.max, value: a.max });
    fs.appendChild(amount);
    fs.appendChild(h("button", { onclick: () => post("/api/actions", { type: "repay-loan", amount: Number(amount.value) }) }, "Repay"));
    box.appendChild(fs);
  }
  const claims = (v.legal || []).filter((a) => a.type === "claim-trump");
  if (claims.length) {
    const fs = group("Play a trump card?", "trump");
    const row = h("div", { class: "row" });
    for (const a of claims) row.appendChild(h("button", { onclick: () => post("/api/actions", { type: "claim-trump", expedition: a.expedition }) }, `${byName(a.expedition)} plays`));
    fs.appendChild(row);
    box.appendChild(fs);
  }
  if (legal["play-trump"]) {
    const a = legal["play-trump"];
    const fs = group(`${byName(a.by)}: choose the ${a.part} of next round's monster`, "play-trump");
    const row = h("div", { class: "row" });
    for (const sym of a.symbols) row.appendChild(h("button", { onclick: () => post("/api/actions", { type: "play-trump", symbol: sym }) }, sym));
    fs.appendChild(row);
    box.appendChild(fs);
  }
}

function drawTally(v) {
  const body = document.querySelector("#tally tbody");
  body.innerHTML = "";
  for (const e of v.expeditions || []) {
    const tr = h("tr", { "data-expedition": e.name });
    const notes = [];
    if (e.missing_turns) notes.push(`missing ${e.missing_turns} turn(s)`);
    for (const l of e.loans) notes.push(`${l.kind} loan £${l.owed} due round ${l.due_round}`);
    if (e.out) notes.push(`out: ${e.out}`);
    for (const cell of [NAMES[e.name], e.points, `£${e.cash}`, `£${e.running_cost}`, notes.join("; ")]) tr.appendChild(h("td", {}, String(cell)));
    body.appendChild(tr);
  }
}

function bind() {
  document.querySelectorAll("button.die").forEach((b) => b.addEventListener("click", () => throwDie(Number(b.dataset.value), "screen")));
  document.getElementById("roll").addEventListener("click", () => post("/api/roll"));
  document.getElementById("next").addEventListener("click", next);
  document.getElementById("undo").addEventListener("click", () => post("/api/undo"));
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || e.target.tagName === "INPUT") return;
    if (e.key >= "1" && e.key <= "6") { if (view && view.legal.some((a) => a.type === "throw")) throwDie(Number(e.key), "keyboard"); }
    else if (e.key === "n" || e.key === "Enter") next();
    else if (e.key === "u") post("/api/undo");
    else if (e.key === "r") post("/api/roll");
  });
}

function connect() {
  const status = document.getElementById("status");
  const source = new EventSource("/api/events");
  source.addEventListener("open", () => { status.dataset.connected = "true"; status.textContent = "live"; });
  source.addEventListener("error", () => {
    status.dataset.connected = "false"; status.textContent = "reconnecting…";
    // A non-200 answer (a server mid-restart) makes the browser give up on the stream: open a new one.
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 2000);
  });
  source.addEventListener("view", (e) => render(JSON.parse(e.data)));
}

async function init() {
  board = await (await fetch("/api/board")).json();
  drawBoard();
  bind();
  render(await (await fetch("/api/state")).json());
  connect();
}
init();
