// The tally sheet: the rulebook's running totals round by round, a chart, and the history with undo.
"use strict";
const NAMES = { independent: "Independent", japanese: "Japanese", british: "British", american: "American" };
const COLOURS = { independent: "#2e8b3e", japanese: "#d0a000", british: "#c8262c", american: "#2057c9" };

function cell(tr, text, tag = "td") { const c = document.createElement(tag); c.textContent = text; tr.appendChild(c); return c; }

function draw(t) {
  const head = document.querySelector("#sheet thead");
  const body = document.querySelector("#sheet tbody");
  head.innerHTML = ""; body.innerHTML = "";
  const hr = document.createElement("tr");
  cell(hr, "Round", "th"); cell(hr, "Monster", "th");
  for (const n of t.expeditions) { cell(hr, `${NAMES[n]} +`, "th"); cell(hr, `${NAMES[n]} total`, "th"); cell(hr, `${NAMES[n]} cash`, "th"); }
  head.appendChild(hr);
  for (const r of t.rounds) {
    const tr = document.createElement("tr");
    tr.dataset.round = r.round;
    cell(tr, r.round); cell(tr, r.monster || "-");
    for (const n of t.expeditions) {
      const e = r.expeditions[n];
      cell(tr, e.gained); cell(tr, e.points);
      cell(tr, `£${e.cash}` + (e.sponsor_debt ? ` (owes £${e.sponsor_debt})` : "") + (e.cage ? ` cage ${e.cage}` : ""));
    }
    body.appendChild(tr);
  }
  chart(t);
  const hist = document.getElementById("history");
  hist.innerHTML = "";
  for (const h of t.history) {
    const li = document.createElement("li");
    const a = Object.entries(h.action).filter(([k]) => k !== "type").map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(" ");
    li.textContent = `round ${h.round}, stage ${h.stage}: ${h.action.type} ${a}`;
    hist.appendChild(li);
  }
}

function chart(t) {
  const svg = document.getElementById("chart");
  svg.innerHTML = "";
  const ns = "http://www.w3.org/2000/svg";
  const rounds = t.rounds.length;
  const max = Math.max(100, ...t.rounds.flatMap((r) => t.expeditions.flatMap((n) => [r.expeditions[n].points, r.expeditions[n].cash])));
  const x = (i) => 40 + (rounds > 1 ? (i * 580) / (rounds - 1) : 0);
  const y = (v) => 240 - (v * 220) / max;
  const axis = document.createElementNS(ns, "path");
  axis.setAttribute("d", "M40 20 V240 H620"); axis.setAttribute("stroke", "#555"); axis.setAttribute("fill", "none");
  svg.appendChild(axis);
  const label = document.createElementNS(ns, "text");
  label.setAttribute("x", 4); label.setAttribute("y", 24); label.setAttribute("font-size", 11); label.textContent = String(max);
  svg.appendChild(label);
  for (const n of t.expeditions) {
    for (const [key, dash] of [["points", ""], ["cash", "5 4"]]) {
      const line = document.createElementNS(ns, "polyline");
      line.setAttribute("points", t.rounds.map((r, i) => `${x(i)},${y(r.expeditions[n][key])}`).join(" "));
      line.setAttribute("fill", "none"); line.setAttribute("stroke", COLOURS[n]); line.setAttribute("stroke-width", 2);
      if (dash) line.setAttribute("stroke-dasharray", dash);
      line.dataset.expedition = n; line.dataset.series = key;
      svg.appendChild(line);
    }
  }
}

async function load() { draw(await (await fetch("/api/tally")).json()); }

document.getElementById("undo").addEventListener("click", async () => {
  const res = await fetch("/api/undo", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
  const data = await res.json();
  document.getElementById("message").textContent = res.ok ? "Undone." : data.error;
  load();
});
function follow() {
  const source = new EventSource("/api/events");
  source.addEventListener("view", load);
  // A non-200 answer (a server mid-restart) makes the browser give up on the stream: open a new one.
  source.addEventListener("error", () => { if (source.readyState === EventSource.CLOSED) setTimeout(follow, 2000); });
}
follow();
load();
