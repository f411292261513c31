// The page of one Loch-monster game: draws the game's view and a control for every action the rules
// allow now (view.legal), posts it to /api/games/<id>/actions and redraws from every view the server
// pushes on /api/games/<id>/events. The page never offers what the rules forbid; if the server still
// refuses (someone else moved first), the reason and the rule are shown.
"use strict";

const GID = document.body.dataset.game;
const API = `/api/games/${GID}`;
let view = null;

function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "dataset") Object.assign(node.dataset, v);
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== undefined && c !== null) node.append(c);
  return node;
}
function text(v) {
  if (v === null || v === undefined) return "";
  if (Array.isArray(v)) return v.map(text).join(", ");
  if (typeof v === "object") return Object.entries(v).map(([k, x]) => `${k} ${text(x)}`).join(", ");
  return String(v);
}

function showMessage(msg) {
  const box = document.getElementById("message");
  box.textContent = msg || "";
  box.hidden = !msg;
}

async function post(path, body) {
  const res = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}) });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    showMessage(data.error ? data.error + (data.rule ? ` — ${data.rule}` : "") : `refused (${res.status})`);
    return null;
  }
  showMessage("");
  render(data);
  return data;
}

// -- one control per field kind ---------------------------------------------------------------

function fieldWidget(f) {
  const labelOf = (i) => (f.labels && f.labels[i] !== undefined ? f.labels[i] : text(f.choices[i]));
  const wrap = h("label", { class: "field", dataset: { field: f.name } }, h("span", { class: "field-name" }, f.name.replace(/_/g, " ")));
  let read;
  if (f.kind === "choice") {
    const sel = h("select", { name: f.name }, f.choices.map((c, i) => h("option", { value: i }, labelOf(i))));
    wrap.append(sel);
    read = () => f.choices[Number(sel.value)];
  } else if (f.kind === "bool") {
    const box = h("input", { type: "checkbox", name: f.name, checked: !!f.default });
    wrap.append(box);
    read = () => box.checked;
  } else if (f.kind === "number") {
    const inp = h("input", { type: "number", name: f.name, min: f.min, max: f.max, value: f.default ?? f.min ?? 0 });
    wrap.append(inp);
    read = () => Number(inp.value);
  } else if (f.kind === "list") {
    // the defaults first, in their order (a player list is in seating order), then the rest
    const order = [...(f.default || []), ...f.choices.filter((c) => !(f.default || []).includes(c))];
    const boxes = order.map((c) => h("input", { type: "checkbox", value: c, checked: (f.default || []).includes(c) }));
    wrap.append(h("span", { class: "checks" }, boxes.map((b) => h("label", {}, b, b.value))));
    read = () => boxes.filter((b) => b.checked).map((b) => b.value);
  } else if (f.kind === "text-list") {
    const inp = h("input", { type: "text", name: f.name, value: (f.default || []).join(", ") });
    wrap.append(inp);
    read = () => inp.value.split(",").map((s) => s.trim()).filter(Boolean);
  } else if (f.kind === "dice") {
    const sels = Array.from({ length: f.count }, (_, k) => h("select", { name: `${f.name}-${k}`, title: f.labels ? f.labels[k] : "" },
      f.choices.map((c, i) => h("option", { value: i, selected: f.default && f.default[k] === c }, text(c)))));
    wrap.append(h("span", { class: "dice" }, sels.map((s, k) => h("span", {}, f.labels ? `${f.labels[k]} ` : "", s))));
    read = () => sels.map((s) => f.choices[Number(s.value)]);
  } else if (f.kind === "per-player-list" || f.kind === "per-player-number") {
    const list = f.kind === "per-player-list";
    const id = `hint-${f.name}`;
    if (list) wrap.append(h("datalist", { id }, (f.choices || []).map((c) => h("option", { value: c }))));
    const inputs = f.keys.map((k) => h("input", list ? { type: "text", name: `${f.name}-${k}`, list: id, placeholder: "card, card, …" }
                                                   : { type: "number", name: `${f.name}-${k}`, min: f.min, max: f.max, value: f.default ?? 0 }));
    wrap.append(h("span", { class: "per-player" }, f.keys.map((k, i) => h("label", {}, h("span", {}, k), inputs[i]))));
    read = () => Object.fromEntries(f.keys.map((k, i) => [k, list ? inputs[i].value.split(",").map((s) => s.trim()).filter(Boolean)
                                                                    : Number(inputs[i].value)]));
  } else {
    const area = h("textarea", { name: f.name }, JSON.stringify(f.default ?? null));
    wrap.append(area);
    read = () => JSON.parse(area.value);
  }
  if (f.help) wrap.append(h("small", {}, f.help));
  return { node: wrap, read };
}

function actionControl(entry) {
  const base = { type: entry.type, ...(entry.fixed || {}) };
  const fields = entry.fields || [];
  const box = h("div", { class: "action", dataset: { type: entry.type } });
  // One choice with few options: a button for each (a die face, a player, a Viewing Area ...).
  if (fields.length === 1 && fields[0].kind === "choice" && fields[0].choices.length <= 24) {
    const f = fields[0];
    box.append(h("div", { class: "action-label" }, entry.label || entry.type));
    box.append(h("div", { class: "choices" }, f.choices.map((c, i) => h("button", {
      class: "choice", dataset: { field: f.name, value: JSON.stringify(c) },
      onclick: () => post(`${API}/actions`, { ...base, [f.name]: c }),
    }, f.labels ? f.labels[i] : text(c)))));
    return box;
  }
  const widgets = fields.map(fieldWidget);
  widgets.forEach((w) => box.append(w.node));
  box.append(h("button", { class: "submit primary", onclick: () => {
    const body = { ...base };
    try { fields.forEach((f, i) => { body[f.name] = widgets[i].read(); }); } catch (e) { showMessage(String(e)); return; }
    post(`${API}/actions`, body);
  } }, entry.label || entry.type));
  return box;
}

// -- drawing the view --------------------------------------------------------------------------

function drawPlayers(players) {
  const table = document.getElementById("players");
  table.innerHTML = "";
  if (!players || !players.length) return;
  const keys = [...new Set(players.flatMap((p) => Object.keys(p)))];
  table.append(h("thead", {}, h("tr", {}, keys.map((k) => h("th", {}, k.replace(/_/g, " "))))));
  table.append(h("tbody", {}, players.map((p) => h("tr", { dataset: { player: p.name ?? "" } }, keys.map((k) => h("td", { dataset: { key: k } }, text(p[k])))))));
}

function render(v) {
  if (view && v.game_id === view.game_id && v.version < view.version) return; // a late, older answer
  view = v;
  document.body.dataset.version = v.version;
  document.getElementById("prompt").textContent = v.prompt;
  const summary = document.getElementById("summary");
  summary.innerHTML = "";
  (v.summary || []).forEach((line) => summary.append(h("li", {}, line)));
  drawPlayers(v.players);
  document.getElementById("raw").textContent = JSON.stringify(v, null, 1);
  const legal = document.getElementById("legal");
  legal.innerHTML = "";
  (v.legal || []).filter((a) => a.type !== "new-game").forEach((a) => legal.append(actionControl(a)));
  if (v.started && !(v.legal || []).length) legal.append(h("p", { class: "done" }, "Nothing more to do: start a new game below."));
  document.getElementById("undo").disabled = !v.can_undo;
  const setup = document.getElementById("setup");
  const form = document.getElementById("setup-form");
  if (!form.dataset.drawn && v.setup) {
    form.append(actionControl(v.setup));
    form.dataset.drawn = "1";
  }
  if (!v.started) setup.open = true;
}

function connect() {
  const status = document.getElementById("status");
  const source = new EventSource(`${API}/events`);
  source.addEventListener("view", (e) => render(JSON.parse(e.data)));
  source.onopen = () => { status.dataset.connected = "true"; status.textContent = "live"; };
  source.onerror = () => {
    status.dataset.connected = "false"; status.textContent = "reconnecting…";
    // A non-200 answer (a server mid-restart) makes the browser give up on the stream: open a new one.
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 2000);
  };
}

document.getElementById("undo").addEventListener("click", () => post(`${API}/undo`, {}));
fetch(`${API}/state`).then((r) => r.json()).then(render);
connect();
