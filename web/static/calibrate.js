// The calibration wizard: the empty board and, optionally, one sheet of each colour -> /api/calibration.
"use strict";
const NAMES = { independent: "Independent", japanese: "Japanese", british: "British", american: "American" };

function asBase64(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(new Error(`${file.name} could not be read`));
    reader.readAsDataURL(file);
  });
}

async function send(body) {
  const status = document.getElementById("status");
  const out = document.getElementById("outcome");
  out.innerHTML = "";
  status.textContent = "Measuring…";
  const res = await fetch("/api/calibration", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const doc = await res.json();
  if (!res.ok) { status.textContent = doc.error; return; }
  status.textContent = "Calibrated: the photo referee now compares against your board and light.";
  const r = doc.empty.registration;
  const add = (text) => out.appendChild(Object.assign(document.createElement("li"), { textContent: text }));
  add(`Markers seen: ${r.markers_seen.join(", ")}; registration error ${r.reprojection_error_mm.rms} mm rms.`);
  for (const [e, m] of Object.entries(doc.measured)) add(`${NAMES[e]}: white paper through the sheet looks rgb(${m.rgb.join(", ")}).`);
}

document.getElementById("calibrate").addEventListener("submit", async (e) => {
  e.preventDefault();
  const body = { empty: await asBase64(document.getElementById("empty").files[0]), colours: {} };
  for (const input of document.querySelectorAll("input[data-expedition]")) {
    if (input.files[0]) body.colours[input.dataset.expedition] = await asBase64(input.files[0]);
  }
  send(body);
});

// The live preview: a fresh frame and the marker status every two seconds.
const preview = document.getElementById("preview");
if (preview) {
  const refresh = async () => {
    preview.src = `/api/board-camera/snapshot.jpg?t=${Date.now()}`;
    const res = await fetch("/api/board-camera/status");
    const st = await res.json();
    const line = document.getElementById("markers");
    if (!res.ok) line.textContent = st.error;
    else if (!st.ok) line.textContent = `Not registered: ${st.message}`;
    else line.textContent = `Markers seen: ${st.registration.markers_seen.join(", ")} of 0-3; error ${st.registration.reprojection_error_mm.rms} mm rms.`;
    line.dataset.ok = String(Boolean(res.ok && st.ok));
  };
  refresh();
  setInterval(refresh, 2000);
  document.getElementById("from-camera").addEventListener("click", () => send({ from_camera: true }));
}

// Live mode: the state of the view, the rules broken while placing, the sheets moved since placed.
const liveLine = document.getElementById("live");
if (liveLine) {
  const label = (s) => `${NAMES[s.expedition] || s.expedition} ${s.equipment.replace(/_/g, " ")}${s.piece ? ` (piece ${s.piece})` : ""}`;
  const item = (list, text, kind) => {
    const li = Object.assign(document.createElement("li"), { textContent: text });
    if (kind) li.dataset.kind = kind;
    list.appendChild(li);
  };
  const refreshLive = async () => {
    const res = await fetch("/api/board-camera/live");
    const st = await res.json();
    const problems = document.getElementById("live-problems");
    const sheets = document.getElementById("live-sheets");
    problems.innerHTML = "";
    sheets.innerHTML = "";
    if (!res.ok) { liveLine.textContent = st.error; return; }
    liveLine.dataset.state = st.state;
    liveLine.textContent = `View: ${st.state}. ${st.message}`;
    for (const v of st.violations) item(problems, `${label(v)}: ${v.message}. Fix it now.`, "violation");
    for (const m of st.moved) {
      item(problems, m.gone ? `${label(m)} is gone from where it was placed.`
                            : `${label(m)} has moved ${m.moved_by_mm} mm since it was placed.`, "moved");
    }
    for (const w of st.waiting_for) item(problems, `Waiting for the ${label(w)} to be placed.`, "waiting");
    for (const u of st.unexpected) item(problems, `Unexpected change (${u.kind}${u.expedition ? `, ${u.expedition}` : ""}) near ${u.bbox_mm[0]}, ${u.bbox_mm[1]} mm.`, "unexpected");
    for (const s of st.sheets) {
      if (!s.pose) continue;
      item(sheets, `${label(s)}: ${s.status} at ${s.pose.at_mm.join(", ")} mm, ${s.pose.angle_deg}°.`, s.status);
    }
  };
  refreshLive();
  setInterval(refreshLive, 2000);
  document.getElementById("live-accept").addEventListener("click", async () => {
    await fetch("/api/board-camera/live/accept", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    refreshLive();
  });
}
