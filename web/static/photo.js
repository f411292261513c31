// Photo referee: scale the photo down in the browser (a phone photo is 12 MP), send it, draw the verdict.
// Each expedition's coverage is its colour AND a pattern, so red and green can be told apart by anyone.
"use strict";
const NAMES = { independent: "Independent", japanese: "Japanese", british: "British", american: "American" };
const MAX_SIDE = 3200;

function shrink(file) {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => {
      const scale = Math.min(1, MAX_SIDE / Math.max(img.width, img.height));
      const canvas = document.createElement("canvas");
      canvas.width = Math.round(img.width * scale); canvas.height = Math.round(img.height * scale);
      canvas.getContext("2d").drawImage(img, 0, 0, canvas.width, canvas.height);
      resolve(canvas.toDataURL("image/jpeg", 0.92));
    };
    img.onerror = () => reject(new Error("this file is not a picture the browser can open"));
    img.src = URL.createObjectURL(file);
  });
}

async function send(file) {
  const status = document.getElementById("status");
  status.textContent = "Reading the board…";
  let dataUrl;
  try { dataUrl = await shrink(file); } catch (err) { status.textContent = err.message; return; }
  const res = await fetch("/api/photo", { method: "POST", headers: { "Content-Type": "application/json" },
                                          body: JSON.stringify({ image: dataUrl, name: file.name }) });
  const doc = await res.json();
  if (!res.ok) { status.textContent = doc.error; document.getElementById("result").hidden = true; return; }
  status.textContent = `Read in ${doc.seconds} s.`;
  show(dataUrl, doc);
}

function show(dataUrl, doc) {
  const result = document.getElementById("result");
  result.hidden = false;
  const img = document.getElementById("photo");
  img.src = dataUrl;
  const svg = document.getElementById("overlay");
  svg.setAttribute("viewBox", `0 0 ${doc.photo.width} ${doc.photo.height}`);
  svg.innerHTML = "";
  const ns = "http://www.w3.org/2000/svg";
  for (const s of doc.overlay) {
    const p = document.createElementNS(ns, "polygon");
    p.setAttribute("points", s.points_px.map((q) => q.join(",")).join(" "));
    p.setAttribute("class", `ov ov-${s.kind}`);
    p.dataset.address = s.address;
    if (s.kind === "covered") { p.setAttribute("fill", `url(#pat-${s.expedition})`); p.dataset.expedition = s.expedition; }
    svg.appendChild(p);
  }
  const list = document.getElementById("verdict");
  list.innerHTML = "";
  if (!doc.monsters) list.appendChild(Object.assign(document.createElement("li"), { textContent: "No monster is on the board now: showing coverage only." }));
  for (const a of doc.evidence || []) {
    list.appendChild(Object.assign(document.createElement("li"), { textContent:
      `${NAMES[a.expedition]}: ${a.cards} card from the ${a.pack} pack (${a.equipment.replace("_", " ")} sees the ${a.sight} monster on ${a.monster})` }));
  }
  for (const u of doc.undecided || []) {
    list.appendChild(Object.assign(document.createElement("li"), { className: "why", textContent: `${NAMES[u.expedition]} at ${u.monster}: ${u.reason}` }));
  }
  if (doc.monsters && !(doc.evidence || []).length && !(doc.undecided || []).length) {
    list.appendChild(Object.assign(document.createElement("li"), { textContent: "Nobody's transparencies touch the monster hexes." }));
  }
  const r = doc.registration;
  document.getElementById("quality").textContent =
    `Markers seen: ${r.markers_seen.join(", ")}; registration error ${r.reprojection_error_mm.rms} mm rms.` +
    (doc.unknown_regions.length ? ` Could not see: ${doc.unknown_regions.map((u) => u.reason).join(", ")}.` : "");
}

document.getElementById("file").addEventListener("change", (e) => { if (e.target.files[0]) send(e.target.files[0]); });

// The board camera: only a view live mode found clear and still is read (the server keeps it).
document.getElementById("from-camera").addEventListener("click", async () => {
  const status = document.getElementById("status");
  status.textContent = "Reading the board camera's still view…";
  const res = await fetch("/api/board-camera/adjudicate", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
  const doc = await res.json();
  if (!res.ok) { status.textContent = doc.error; document.getElementById("result").hidden = true; return; }
  status.textContent = `Read the view of ${doc.view_age_s} s ago in ${doc.seconds} s.`;
  show(doc.image, doc);
});
