// The setup wizard: choose the game, the players and the rules; starting posts a new-game action.
"use strict";
const form = document.getElementById("setup");
const message = document.getElementById("message");

async function games() {
  const list = await (await fetch("/api/games")).json();
  const sel = document.getElementById("game");
  for (const g of list) {
    const o = document.createElement("option");
    o.value = g.id; o.textContent = g.name; sel.appendChild(o);
  }
  sel.addEventListener("change", () => {
    if (sel.value !== "nessie-hunt") window.location = `/games/${sel.value}`;
  });
}

function syncExpeditions() {
  const players = Number(document.getElementById("players").value);
  const boxes = [...document.querySelectorAll("input[name=exp]")];
  const independent = boxes.find((b) => b.value === "independent");
  if (players >= 4) boxes.forEach((b) => { b.checked = true; b.disabled = true; });
  else {
    boxes.forEach((b) => { b.disabled = false; });
    independent.checked = false; independent.disabled = true;  // "INDEPENDENT takes no part"
    const others = boxes.filter((b) => b !== independent);
    let chosen = others.filter((b) => b.checked);
    for (const b of others) if (chosen.length > players && b.checked) { b.checked = false; chosen = others.filter((x) => x.checked); }
    for (const b of others) if (chosen.length < players && !b.checked) { b.checked = true; chosen = others.filter((x) => x.checked); }
  }
}

document.getElementById("players").addEventListener("change", syncExpeditions);
form.addEventListener("submit", async (e) => {
  e.preventDefault();
  const action = {
    type: "new-game",
    players: Number(form.players.value),
    expeditions: [...document.querySelectorAll("input[name=exp]:checked")].map((b) => b.value),
    variant: form.variant.value,
    target: Number(form.target.value),
    rounds: Number(form.rounds.value),
    win_rule: form.win_rule.value,
    cards_per_piece: form.cards_per_piece.value,
  };
  const res = await fetch("/api/actions", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(action) });
  const data = await res.json();
  if (!res.ok) {
    message.textContent = data.error + " ";
    if (res.status === 401 || data.login) {  // LAN mode: setup needs the admin PIN
      const a = document.createElement("a");
      a.href = "/login?next=/setup"; a.textContent = "Enter the admin PIN";
      message.appendChild(a);
    }
    return;
  }
  window.location = "/";
});
games();
syncExpeditions();
