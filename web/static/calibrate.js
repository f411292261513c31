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

document.getElementById("calibrate").addEventListener("submit", async (e) => {
  e.preventDefault();
  const status = document.getElementById("status");
  const out = document.getElementById("outcome");
  out.innerHTML = "";
  status.textContent = "Measuring…";
  const body = { empty: await asBase64(document.getElementById("empty").files[0]), colours: {} };
  for (const input of document.querySelectorAll("input[data-expedition]")) {
    if (input.files[0]) body.colours[input.dataset.expedition] = await asBase64(input.files[0]);
  }
  const res = await fetch("/api/calibration", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const doc = await res.json();
  if (!res.ok) { status.textContent = doc.error; return; }
  status.textContent = "Calibrated: the photo referee now compares against your board and light.";
  const r = doc.empty.registration;
  const add = (text) => out.appendChild(Object.assign(document.createElement("li"), { textContent: text }));
  add(`Markers seen: ${r.markers_seen.join(", ")}; registration error ${r.reprojection_error_mm.rms} mm rms.`);
  for (const [e, m] of Object.entries(doc.measured)) add(`${NAMES[e]}: white paper through the sheet looks rgb(${m.rgb.join(", ")}).`);
});
