// The board camera's referee on the table screen (loaded after table.js, whose el/NAMES/COLOURS it
// uses): while a player lays a bought sheet, the rules it breaks show here at once, so the sheet
// can be fixed before play goes on; sheets moved since they were placed are flagged too. The
// calibration page shows the same status in more detail; both read GET /api/board-camera/live.
"use strict";

const REFEREE_MS = 1500;
const refereeLabel = (s) => `${NAMES[s.expedition] || s.expedition} ${s.equipment.replace(/_/g, " ")}`;

function refereeItem(list, text, kind) {
  const li = Object.assign(document.createElement("li"), { textContent: text });
  li.dataset.kind = kind;
  list.appendChild(li);
}

// Every followed sheet's outline where the camera sees it: dashed red when it breaks a rule,
// dashed grey when it has moved since it was placed.
function drawSheets(st) {
  const g = document.getElementById("sheet-layer");
  g.innerHTML = "";
  for (const s of st.sheets || []) {
    if (!s.outline_mm) continue;
    const state = s.violations.length ? "violation" : s.moved ? "moved" : s.status;
    el("polygon", { class: `live-sheet live-${state}`, points: pts(s.outline_mm), stroke: COLOURS[s.expedition] || "#333",
                    "data-expedition": s.expedition, "data-equipment": s.equipment, "data-state": state }, g);
  }
}

async function refreshReferee() {
  const line = document.getElementById("referee-state");
  const problems = document.getElementById("referee-problems");
  let st;
  try {
    const res = await fetch("/api/board-camera/live");
    st = await res.json();
    if (!res.ok) throw new Error(st.error || `HTTP ${res.status}`);
  } catch (err) {
    line.dataset.state = "error";
    line.textContent = `Board camera: ${err.message}`;
    return;
  }
  line.dataset.state = st.state;
  line.textContent = `Board camera (${st.state}): ${st.message}.`;
  problems.innerHTML = "";
  for (const v of st.violations) refereeItem(problems, `${refereeLabel(v)}: ${v.message}. Fix it now.`, "violation");
  for (const m of st.moved) {
    refereeItem(problems, m.gone ? `${refereeLabel(m)} is gone from where it was placed.`
                                 : `${refereeLabel(m)} has moved ${m.moved_by_mm} mm since it was placed: put it back.`, "moved");
  }
  for (const w of st.waiting_for) refereeItem(problems, `Lay the ${refereeLabel(w)} on the board.`, "waiting");
  document.getElementById("referee").dataset.problems = String(st.violations.length + st.moved.length);
  document.getElementById("referee-accept").hidden = !(st.moved.length || st.unexpected.length);
  drawSheets(st);
}

if (document.getElementById("referee")) {
  document.getElementById("referee-accept").addEventListener("click", async () => {
    await fetch("/api/board-camera/live/accept", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    refreshReferee();
  });
  refreshReferee();
  setInterval(refreshReferee, REFEREE_MS);
}
