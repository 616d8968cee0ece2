"use strict";
// The position editor: the page holds only the position's ID; every edit is made by the
// server (POST /api/position), which answers with the new IDs and board.  Evaluations, the
// candidate plays and rollouts come from the engine's endpoints.
const $ = (id) => document.getElementById(id);
const START = "4HPwATDgc/ABMA:MAEAAAAAAAAA";  // the starting position, White to roll, money
let view = null;           // the server's picture of the position
let plays = null;          // the candidate plays listed for view.gnubgid
let job = null;            // the rollout running
const NAMES = ["White", "Black"];

$("dark").checked = document.documentElement.dataset.theme === "dark";
$("dark").onchange = () => setTheme($("dark").checked);

function esc(t) { const d = document.createElement("div"); d.textContent = String(t); return d.innerHTML; }
const signed = (x, n = 3) => (x >= 0 ? "+" : "−") + Math.abs(x).toFixed(n);
const pct = (x) => `${(100 * x).toFixed(1)}%`;
const radio = (name) => +document.querySelector(`input[name="${name}"]:checked`).value;

async function answer(r) {
  const data = await r.json();
  if (!r.ok) { $("error").textContent = data.error ? data.error.message : "Refused."; return null; }
  $("error").textContent = "";
  return data;
}
async function load(id) {
  // A bad ID says why; one from the link keeps the link as given and shows the start beside
  // the error, never silently in its place.
  const r = await fetch(`/api/position?${new URLSearchParams({ id })}`);
  const data = await r.json();
  if (r.ok) { $("error").textContent = ""; render(data); return; }
  const why = data.error ? data.error.message : "refused";
  if (view) { $("error").textContent = `Cannot open "${id}": ${why}.`; return; }
  const start = await answer(await fetch(`/api/position?${new URLSearchParams({ id: START })}`));
  if (start) render(start, true);
  $("error").textContent = `The link's position "${id}" cannot be read (${why}): the starting position is shown instead.`;
}
async function edit(change) {
  if (!view) return;
  const r = await fetch("/api/position", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ id: view.gnubgid, ...change }) });
  const v = await answer(r);
  if (v) render(v); else render(view);  // a refused edit: the fields go back to the position's
}

// ------------------------------------------------------------------ showing the position
function render(v, keepLink = false) {
  const fresh = !view || v.gnubgid !== view.gnubgid;
  const focused = document.activeElement && $("board").contains(document.activeElement) ? document.activeElement.dataset.point : null;
  view = v;
  $("board").innerHTML = v.svg;
  if (focused) { const g = $("board").querySelector(`g[data-point="${focused}"]`); if (g) g.focus(); }
  oneTabStop($("board"), focused === null ? null : +focused);
  $("gnubgid").textContent = v.gnubgid;
  $("xgid").textContent = v.xgid;
  const link = `/position?id=${encodeURIComponent(v.gnubgid)}`;
  $("share").href = link;
  if (!keepLink) history.replaceState(null, "", link);
  for (const r of document.querySelectorAll('input[name="turn"]')) r.checked = +r.value === v.turn;
  $("die1").value = v.dice.length ? String(v.dice[0]) : "";
  $("die2").value = v.dice.length ? String(v.dice[1]) : "";
  $("cube").value = String(v.cube);
  $("owner").value = String(v.owner);
  $("length").value = v.length;
  $("score0").value = v.score[0]; $("score1").value = v.score[1];
  $("score0").disabled = $("score1").disabled = $("crawford").disabled = v.length === 0;
  $("crawford").checked = v.crawford;
  $("pips").textContent = `Pips: White ${v.pips[0]}, Black ${v.pips[1]}. ${NAMES[v.turn]} ${v.dice.length ? `to play ${v.dice.join("-")}` : "to roll"}.`;
  $("hint").disabled = v.dice.length === 0;
  $("roll-cube").disabled = v.dice.length > 0 || !v.may_double;
  if ($("roll-cube").disabled) $("roll-cube").checked = false;
  if (fresh) {
    plays = null;
    $("eval").innerHTML = ""; $("plays").innerHTML = "";
    if (!job) { $("rolled").innerHTML = ""; $("roll-status").textContent = ""; }
  }
  rollWhat();
}
function rollWhat() {
  const v = view;
  $("roll-what").textContent = v.dice.length
    ? (plays && plays.length ? "Rolls out the candidate plays ticked below" : `Rolls out the 5 best plays of ${v.dice.join("-")} at 0-ply`) + ", cubeless (the bots play at 0-ply)."
    : $("roll-cube").checked ? "Rolls out the cube decision, cubeful (the bots play at 0-ply)." : "Rolls out the position before the roll, cubeless (the bots play at 0-ply).";
}

// ------------------------------------------------------------------ editing
function pointOf(target) {
  const g = target && target.closest && target.closest("[data-point]");
  return g && $("board").contains(g) ? +g.dataset.point : null;
}
function put(point) {
  if (point === 0) { $("error").textContent = "The tray holds the checkers borne off: take checkers off the board to bear them off."; return; }
  const side = radio("side");
  const change = document.querySelector('input[name="change"]:checked').value;
  $("said").textContent = `${NAMES[side]}: ${change} on ${point === 25 ? "the bar" : `point ${point}`}`;
  edit({ point, side, change });
}
$("board").addEventListener("click", (e) => { const p = pointOf(e.target); if (p !== null) put(p); });
$("board").addEventListener("keydown", (e) => {
  const p = pointOf(e.target);
  if (p === null) return;
  if (e.key === "Enter" || e.key === " ") { e.preventDefault(); put(p); }
  else walkPoints($("board"), e);
});
$("start").onclick = () => edit({ start: true });
for (const r of document.querySelectorAll('input[name="turn"]')) r.onchange = () => edit({ turn: +r.value });
function dice() {
  const a = $("die1").value, b = $("die2").value;
  if (a && b) edit({ dice: [+a, +b] });
}
$("die1").onchange = dice; $("die2").onchange = dice;
$("no-dice").onclick = () => edit({ dice: [] });
$("cube").onchange = () => edit({ cube: +$("cube").value });
$("owner").onchange = () => edit({ owner: $("owner").value === "centre" ? "centre" : +$("owner").value });
$("length").onchange = () => edit({ length: +$("length").value });
$("score0").onchange = $("score1").onchange = () => edit({ score: [+$("score0").value, +$("score1").value] });
$("crawford").onchange = () => edit({ crawford: $("crawford").checked });
$("roll-cube").onchange = rollWhat;
$("open").onsubmit = (e) => { e.preventDefault(); const t = $("id-text").value.trim(); if (t) load(t); };
for (const b of document.querySelectorAll("[data-copy]")) {
  b.onclick = () => navigator.clipboard && navigator.clipboard.writeText(view[b.dataset.copy]);
}

// ------------------------------------------------------------------ the engine
const probCells = (p) => `<td>${pct(p[0])}</td><td>${pct(p[1])}</td><td>${pct(p[2])}</td><td>${pct(p[3])}</td><td>${pct(p[4])}</td>`;
const probText = (p) => `Win ${pct(p[0])} (gammon ${pct(p[1])}, bg ${pct(p[2])}) · lose ${pct(1 - p[0])} (gammon ${pct(p[3])}, bg ${pct(p[4])})`;
const probHead = '<th scope="col">Win</th><th scope="col">W g</th><th scope="col">W bg</th><th scope="col">L g</th><th scope="col">L bg</th>';
$("evaluate").onclick = async () => {
  const q = new URLSearchParams({ gnubgid: view.gnubgid, plies: $("depth").value });
  $("eval").textContent = "Evaluating…";
  const e = await answer(await fetch(`/api/engine/eval?${q}`));
  if (!e) { $("eval").textContent = ""; return; }
  const c = e.cube;
  const mwc = (k) => (c.mwc && c.mwc[k] !== null && c.mwc[k] !== undefined ? ` (MWC ${pct(c.mwc[k])})` : "");
  const row = (label, k) => c[k] === null ? "" : `<tr><th scope="row">${label}</th><td>${signed(c[k])}${mwc(k)}</td></tr>`;
  $("eval").innerHTML = `<p>For ${NAMES[view.turn]} on roll, before the roll, at ${e.ply}-ply:</p>` +
    `<div class="scroll"><table id="eval-probs"><thead><tr>${probHead}<th scope="col">Equity</th></tr></thead>` +
    `<tbody><tr>${probCells(e.probabilities)}<td>${signed(e.equity)}</td></tr></tbody></table></div>` +
    `<div class="scroll"><table id="eval-cube"><caption class="sr-only">The cube</caption><tbody>${row("No double", "no_double")}${row("Double, take", "double_take")}${row("Double, pass", "double_pass")}</tbody></table></div>` +
    `<p>Proper cube action: <b>${esc(c.proper)}</b> (cubeful equities in EMG).</p>`;
};
$("hint").onclick = async () => {
  const q = new URLSearchParams({ gnubgid: view.gnubgid, plies: $("depth").value, count: 5 });
  $("plays").textContent = "Thinking…";
  const h = await answer(await fetch(`/api/engine/hint?${q}`));
  if (!h || h.kind !== "plays") { $("plays").textContent = h ? "Set the dice to list the plays." : ""; return; }
  plays = h.plays;
  if (!plays.length) { $("plays").textContent = "No legal play: the turn passes."; rollWhat(); return; }
  const best = plays[0];
  const rows = plays.map((p, i) => `<tr class="cand"><td><input type="checkbox" class="pick" data-move="${esc(p.move)}" checked aria-label="roll out ${esc(p.move)}"></td>` +
    `<td class="play">${esc(p.move)}</td><td>${signed(p.equity)}</td><td>${i ? signed(p.equity - best.equity) : ""}</td></tr>` +
    `<tr class="probs"><td></td><td colspan="3">${probText(p.probabilities)}</td></tr>`);
  $("plays").innerHTML = `<p>The best plays of ${h.dice.join("-")} at ${h.plies}-ply (as <code>backgammon hint</code> lists them):</p>` +
    `<div class="scroll"><table id="plays-table"><thead><tr><th scope="col">Roll out</th><th scope="col" class="play">Play</th><th scope="col">EMG</th><th scope="col">Diff</th></tr></thead>` +
    `<tbody>${rows.join("")}</tbody></table></div>`;
  rollWhat();
};

// ------------------------------------------------------------------ rollouts
function rolledTable(result) {
  // A cubeless rollout's equity is not the candidates' cubeful EMG: it is labelled as what it is.
  const m = result.candidates.some((c) => c.mwc !== undefined);
  const cubeful = result.settings && result.settings.cubeful;
  const head = cubeful ? "EMG" : '<abbr title="cubeless equity: the cube is left out of the rollout">Cubeless</abbr>';
  const note = cubeful ? "Cubeful equities in EMG." : "Cubeless equities (the cube left out), not comparable with the cubeful EMG of the candidates above.";
  return `<p class="note" id="rollout-kind">${note}</p><div class="scroll"><table id="rollout-table"><thead><tr><th scope="col" class="play">Candidate</th>` +
    `<th scope="col">${head}</th><th scope="col">± SE</th>${m ? '<th scope="col">MWC</th>' : ""}</tr></thead><tbody>` +
    result.candidates.map((c) => `<tr class="cand"><td class="play">${esc(c.play || "the position")}</td>` +
      `<td>${signed(c.equity)}</td><td>${c.se.toFixed(3)}</td>${m ? `<td>${c.mwc === undefined ? "" : pct(c.mwc)}</td>` : ""}</tr>` +
      `<tr class="probs"><td colspan="${m ? 4 : 3}">${probText(c.probabilities)}</td></tr>`).join("") +
    "</tbody></table></div>";
}
function rolling(on) {
  $("roll").disabled = on; $("cancel").hidden = !on; $("rollout-bar").hidden = !on;
}
async function follow(id) {
  if (!job || job !== id) return;
  const s = await answer(await fetch(`/api/rollouts/${id}`));
  if (!s || job !== id) return;
  const [done, total] = s.progress;
  $("rollout-bar").max = total; $("rollout-bar").value = done;
  if (s.status === "queued" || s.status === "running") {
    $("roll-status").textContent = s.status === "queued" ? "Waiting for another rollout to finish…" : `Rolling out… ${done} of ${total} trials`;
    setTimeout(() => follow(id), 700);
    return;
  }
  job = null; rolling(false);
  if (s.status === "done") {
    $("roll-status").textContent = `Rolled out: ${s.result.trials} trials.`;
    $("rolled").innerHTML = rolledTable(s.result);
  } else $("roll-status").textContent = s.status === "cancelled" ? "Cancelled." : `The rollout failed: ${s.error || ""}`;
}
$("roll").onclick = async () => {
  const body = { id: view.gnubgid, trials: +$("trials").value, truncate: +$("truncate").value, cube: $("roll-cube").checked };
  if (view.dice.length && plays) {
    body.moves = [...document.querySelectorAll("#plays-table .pick:checked")].map((c) => c.dataset.move);
    if (!body.moves.length) { $("error").textContent = "Tick at least one play to roll out."; return; }
  }
  $("rolled").innerHTML = "";
  const s = await answer(await fetch("/api/rollouts", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }));
  if (!s) return;
  job = s.id; rolling(true);
  $("roll-status").textContent = "Starting the rollout…";
  follow(s.id);
};
$("cancel").onclick = async () => {
  if (!job) return;
  const id = job;
  const s = await answer(await fetch(`/api/rollouts/${id}`, { method: "DELETE" }));
  if (s && s.status === "cancelled") { job = null; rolling(false); $("roll-status").textContent = "Cancelled."; }
};

load(new URLSearchParams(location.search).get("id") || START);
