"use strict";
// The review: every decision of an analysed match, its board, candidates, cube numbers, mark
// and luck, the winning-chance graph and the players' totals.  Every number comes from the
// server's analysis; this page only shows them.
const $ = (id) => document.getElementById(id);
const parts = location.pathname.split("/");
const upload = parts[1] === "review";          // /review/<id>: an uploaded file
const id = parts[2];                            // /m/<id>/analysis: a web match
const api = upload ? `/api/uploads/${id}` : `/api/matches/${id}/analysis`;
let A = null;              // the analysis
let names = ["", ""];
let over = false;          // a finished web match has a replay to link to
let at = 0;                // the decision shown (index into A.decisions)
let viewer = 0;            // whose side the board is drawn from
let shownPlay = "";        // a candidate whose result the board shows, or ""

$("dark").checked = document.documentElement.dataset.theme === "dark";
$("dark").onchange = () => { setTheme($("dark").checked); if (A) graph(); };
if (!upload) { $("back").href = `/m/${id}`; $("back").textContent = "Back to the match"; }
if (upload) {
  const link = `${location.origin}/review/${id}`;
  $("share").innerHTML = `Link to share this review: <a href="/review/${id}">${esc(link)}</a>`;
  $("share").hidden = false;
}

function esc(t) { const d = document.createElement("div"); d.textContent = String(t); return d.innerHTML; }
const signed = (x, n = 3) => (x >= 0 ? "+" : "−") + Math.abs(x).toFixed(n);
const pct = (x) => `${(100 * x).toFixed(1)}%`;
const match = () => A.length > 0;

async function poll() {
  let r, s;
  try { r = await fetch(api); s = await r.json(); } catch (e) { $("status").textContent = "Cannot reach the server: retrying…"; setTimeout(poll, 2000); return; }
  if (!r.ok) { $("status").textContent = s.error ? s.error.message : "Cannot load the analysis."; return; }
  if (s.name) $("title").textContent = `Review of ${s.name}`;
  if (s.status === "running") {
    const [done, total] = s.progress || [0, 0];
    $("status").textContent = total ? `Analysing… ${done} of ${total} actions` : "Analysing…";
    $("bar").hidden = false; $("bar").max = total || 1; $("bar").value = done;
    $("analyse").hidden = true;
    setTimeout(poll, 700);
  } else if (s.status === "done") {
    $("bar").hidden = true;
    const depth = `${s.analysis.plies}-ply` + (s.analysis.verify ? `, ${s.analysis.verify} marks rolled out again` : "");
    $("status").textContent = upload || s.current ? `Analysed at ${depth}.` : `Analysed at ${depth} (the match has gone on since).`;
    $("analyse").hidden = upload || s.current; $("analyse").textContent = "Analyse again";
    over = !!s.over;
    show(s.analysis);
  } else {
    $("status").textContent = s.status === "failed" ? `The analysis failed: ${s.error}` : "Not analysed yet.";
    $("analyse").hidden = upload;
  }
}

$("analyse").addEventListener("click", async () => {
  const r = await fetch(api, { method: "POST" });
  if (!r.ok) { const e = await r.json(); $("status").textContent = e.error.message; return; }
  poll();
});

// ------------------------------------------------------------------ words
// Dice as gnubg and the match's log write them: the higher die first ("31", never "13").
const diceText = (dice, sep = "") => (dice ? [...dice].sort((a, b) => b - a).join(sep) : "");
function headline(d) {
  const who = names[d.player];
  if (d.kind === "checker") return `${who} ${diceText(d.dice)}: ${d.played}`;
  if (d.kind === "double") return d.played === "Double" ? `${who} doubles` : `${who}: no double`;
  return `${who} ${d.played === "Take" ? "takes" : "passes"}`;
}
function markHtml(d) {
  if (!d.mark) return "";
  return ` <span class="mark mark-${d.mark.replace(" ", "-")}">${esc(d.mark)}</span>`;
}
function lost(d) {
  // What a decision gave up, EMG and (in a match) match winning chance.
  const mwc = d.error_mwc !== undefined ? ` (${pct(d.error_mwc)} match-winning chance)` : "";
  return `${d.error_emg.toFixed(3)} EMG${mwc}`;
}
function verdict(d) {
  const played = d.kind === "checker" ? esc(d.played) : esc(d.played.toLowerCase());
  const best = d.kind === "checker" ? esc(d.best) : esc(d.best.toLowerCase());
  if (d.error_emg <= 0) return `Played <b>${played}</b>: the best ${d.kind === "checker" ? "play" : "choice"}.`;
  return `Played <b>${played}</b>${markHtml(d)}: it loses ${lost(d)} against <b>${best}</b>.`;
}

// ------------------------------------------------------------------ the second judge
// With the server's engine (or a file gnubg analysed) each decision carries the engine's
// verdict beside ours (d.engine), and those where the two differ most are marked (d.disagree).
function engineVerdict(d) {
  const e = d.engine;
  if (!A.engine || !e) return "";
  const mark = e.mark ? ` <span class="mark mark-${e.mark.replace(" ", "-")}">${esc(e.mark)}</span>` : "";
  const said = e.error_emg === undefined ? `marks it${mark || " unmarked"}`
    : e.error_emg > 0 ? `says it loses ${e.error_emg.toFixed(3)} EMG against <b>${esc(e.best)}</b>${mark}`
    : "says it is the best play";
  const luck = e.luck_emg === undefined ? "" : `; luck of the roll ${signed(e.luck_emg)} EMG`;
  const differ = d.disagree ? ` <span class="tag disagree">the judges differ by ${(1000 * d.disagree).toFixed(0)} mEMG</span>` : "";
  return `${esc(A.engine.name)} ${said}${luck}.${differ}`;
}
function engineCost(d) {
  // The list's second column: the engine's cost of each decision, and where the judges differ.
  if (!A.engine) return "";
  const e = d.engine;
  const cost = e && e.error_emg > 0 ? `−${(1000 * e.error_emg).toFixed(0)}` : e ? "0" : "–";
  return ` <span class="engine-cost${d.disagree ? " disagree" : ""}" title="${esc(A.engine.name)}">${esc(A.engine.name.split(" (")[0].replace("GNU Backgammon", "gnubg"))} ${cost}${d.disagree ? " ≠" : ""}</span>`;
}

// ------------------------------------------------------------------ the decision
function boardUrl(d) {
  const q = new URLSearchParams({ gnubg_id: d.gnubg_id, viewer, name0: names[0], name1: names[1] });
  if (shownPlay) q.set("play", shownPlay);
  return `/api/analysis/board.svg?${q}`;
}
function candidates(d) {
  const best = d.candidates[0];
  const m = match() && best.mwc !== undefined;
  let html = `<div class="scroll"><table id="cands"><caption class="sr-only">The best plays of ${esc(diceText(d.dice))}, best first</caption>` +
    `<thead><tr><th scope="col">#</th><th scope="col" class="play">Play</th><th scope="col">EMG</th><th scope="col">Diff</th>` +
    (m ? `<th scope="col">MWC</th><th scope="col">Diff</th>` : "") + `</tr></thead><tbody>`;
  d.candidates.forEach((c, i) => {
    const mine = c.play === d.played;
    const p = c.probabilities;
    html += `<tr class="cand${mine ? " played" : ""}"><td>${i + 1}</td><td class="play">${esc(c.play)}</td>` +
      `<td>${signed(c.equity)}</td><td>${i ? signed(c.equity - best.equity) : ""}</td>` +
      (m ? `<td>${pct(c.mwc)}</td><td>${i ? signed(100 * (c.mwc - best.mwc), 1) : ""}</td>` : "") + "</tr>" +
      `<tr class="probs${mine ? " played" : ""}"><td></td><td colspan="${m ? 5 : 3}">${mine ? '<span class="tag">played</span> ' : ""}` +
      `Win ${pct(p[0])} (gammon ${pct(p[1])}, bg ${pct(p[2])}) · lose ${pct(1 - p[0])} (gammon ${pct(p[3])}, bg ${pct(p[4])}) · ${c.rollout_trials ? `rollout of ${c.rollout_trials} trials` : `${c.plies}-ply`} ` +
      `<button class="small secondary show" data-play="${esc(c.play)}" aria-pressed="${shownPlay === c.play}" aria-label="Show the board after ${esc(c.play)}">board after</button></td></tr>`;
  });
  return html + "</tbody></table></div>";
}
function cubeTable(d) {
  const c = d.cube;
  const rows = [["No double", c.no_double, 0], ["Double, take", c.double_take, 1], ["Double, pass", c.double_pass, 2]];
  const m = match() && c.mwc;
  return `<div class="scroll"><table id="cube"><caption class="sr-only">The cube for ${esc(names[d.kind === "take" ? 1 - d.player : d.player])}, the doubler</caption>` +
    `<thead><tr><th scope="col">Action</th><th scope="col">EMG</th>${m ? '<th scope="col">MWC</th>' : ""}</tr></thead><tbody>` +
    rows.map(([label, v, k]) => `<tr><td>${label}</td><td>${signed(v)}</td>${m ? `<td>${pct(c.mwc[k])}</td>` : ""}</tr>`).join("") +
    `</tbody></table></div><p>Proper cube action: <b>${esc(c.proper)}</b> (values for ${esc(names[d.kind === "take" ? 1 - d.player : d.player])}, the doubler${c.rollout_trials ? `; rollout of ${c.rollout_trials} trials` : ""}).</p>`;
}
let drawn = 0;             // the newest board asked for (older answers are dropped)
async function drawBoard(d) {
  const ticket = ++drawn;
  const box = $("board-box");
  box.setAttribute("aria-label", shownPlay ? `The board after ${shownPlay}` : `The board at ${headline(d)}`);
  try {
    const r = await fetch(boardUrl(d));
    const svg = await r.text();
    if (r.ok && ticket === drawn) { box.innerHTML = svg; box.dataset.id = d.gnubg_id; }
  } catch (e) { /* the next step draws again */ }
}
function showDecision(focusPanel) {
  const d = A.decisions[at];
  const move = d.line !== undefined ? ` · move ${d.line}` : "";
  const what = d.kind === "checker" ? `${names[d.player]} to play ${diceText(d.dice)}`
    : d.kind === "double" ? `${names[d.player]}'s cube decision` : `${names[d.player]}'s answer to the double`;
  $("d-title").textContent = `Game ${d.game}${move} · ${what}`;
  $("d-verdict").innerHTML = verdict(d);
  $("d-body").innerHTML = d.kind === "checker" && d.candidates ? candidates(d) : d.cube ? cubeTable(d) : "";
  $("d-luck").textContent = d.luck_emg === undefined ? "" :
    `Luck of the roll: ${signed(d.luck_emg)} EMG (${d.luck_emg >= 0 ? "lucky" : "unlucky"} for ${names[d.player]}).`;
  $("d-engine").innerHTML = engineVerdict(d);
  $("d-engine").hidden = !$("d-engine").innerHTML;
  const links = [`<a href="/position?id=${encodeURIComponent(d.gnubg_id)}">Open this position in the editor</a>`];
  if (!upload && over && d.step !== undefined) links.push(`<a id="to-replay" href="/m/${id}?at=${d.step}">Show it in the match's replay</a>`);
  $("d-links").innerHTML = links.join(" · ");
  for (const b of document.querySelectorAll("#cands button.show")) {
    b.onclick = () => { shownPlay = shownPlay === b.dataset.play ? "" : b.dataset.play; showDecision(false); };
  }
  drawBoard(d);
  const list = visible();
  const k = list.indexOf(at);
  // Decisions are numbered 1, 2, 3 ... in the match's order, here, in the list and in the link.
  const errors = $("errors-only").checked ? (k >= 0 ? ` (error ${k + 1} of ${list.length})` : " (not an error)") : "";
  $("where").textContent = `Decision ${at + 1} of ${A.decisions.length}${errors}`;
  $("prev").disabled = !list.some((i) => i < at);
  $("first").disabled = $("prev").disabled;
  $("next").disabled = !list.some((i) => i > at);
  $("last").disabled = $("next").disabled;
  for (const li of $("decisions").children) {
    if (+li.dataset.i === at) { li.setAttribute("aria-current", "step"); inList(li); } else li.removeAttribute("aria-current");
  }
  history.replaceState(null, "", `#${at + 1}`);
  marker();
  if (focusPanel) $("decision").focus({ preventScroll: true });
}
function inList(li) {
  // The current line scrolled into the list's own box; the page itself never scrolls (on a
  // phone the list is below the board, and scrolling to it took the board and Next away).
  const ol = $("decisions"), r = li.getBoundingClientRect(), o = ol.getBoundingClientRect();
  if (r.top < o.top) ol.scrollTop -= o.top - r.top;
  else if (r.bottom > o.bottom) ol.scrollTop += r.bottom - o.bottom;
}
function go(i, focusPanel) {
  if (i === null || i === undefined || i < 0 || i >= A.decisions.length) return;
  if (i !== at) shownPlay = "";
  at = i;
  showDecision(focusPanel);
}

// ------------------------------------------------------------------ stepping
function visible() {
  const all = A.decisions.map((_, i) => i);
  return $("errors-only").checked ? all.filter((i) => A.decisions[i].mark) : all;
}
function step(dir) {
  const list = visible();
  const next = dir > 0 ? list.find((i) => i > at) : [...list].reverse().find((i) => i < at);
  go(next === undefined ? null : next, false);
}
$("next").onclick = () => step(1);
$("prev").onclick = () => step(-1);
$("first").onclick = () => go(visible()[0], false);
$("last").onclick = () => go(visible()[visible().length - 1], false);
$("flip").onclick = () => { viewer = 1 - viewer; showDecision(false); };
$("errors-only").onchange = () => {
  list();
  const shown = visible();
  if (shown.length && !shown.includes(at)) go(shown.find((i) => i > at) ?? shown[shown.length - 1], false);
  else showDecision(false);
};
document.addEventListener("keydown", (e) => {
  if (!A || e.altKey || e.ctrlKey || e.metaKey) return;
  const t = e.target;
  const typing = t && (t.tagName === "SELECT" || t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && t.type !== "checkbox"));
  if (typing) return;  // the keys are the field's
  const keys = { ArrowRight: () => step(1), j: () => step(1), ArrowLeft: () => step(-1), k: () => step(-1),
    Home: () => $("first").click(), End: () => $("last").click() };
  if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
});

function list() {
  const ol = $("decisions");
  ol.innerHTML = "";
  const shown = visible();
  if (!shown.length) { ol.innerHTML = "<li>No decision is marked doubtful or worse.</li>"; return; }
  for (const i of shown) {
    const d = A.decisions[i];
    const li = document.createElement("li");
    li.dataset.i = i;
    li.value = i + 1;
    const cost = d.error_emg > 0 && d.mark ? ` −${(1000 * d.error_emg).toFixed(0)}` : "";
    li.innerHTML = `<button type="button">${esc(headline(d))}${markHtml(d)}${cost ? `<span class="mark mark-${d.mark.replace(" ", "-")}">${cost}</span>` : ""}${engineCost(d)}</button>`;
    li.firstChild.onclick = () => go(i, true);
    ol.appendChild(li);
  }
}

// ------------------------------------------------------------------ the graph
let geometry = null;
function graph() {
  const svg = $("graph");
  const track = A.mwc || [];
  const w = Math.max(200, $("graph-box").clientWidth), h = w < 420 ? 170 : 200;
  svg.setAttribute("width", w); svg.setAttribute("height", h); svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  if (!track.length) { svg.innerHTML = ""; geometry = null; return; }
  const vals = track.map((t) => t.value);
  const lo = match() ? 0 : Math.min(-1, ...vals), hi = match() ? 1 : Math.max(1, ...vals);
  const left = 40, right = 8, top = 18, bottom = 22;
  const n = Math.max(track.length - 1, 1);
  const X = (i) => left + (w - left - right) * i / n;
  const Y = (v) => top + (h - top - bottom) * (hi - v) / (hi - lo);
  const ticks = match() ? [0, 0.25, 0.5, 0.75, 1] : [lo, (lo + 0) / 2, 0, hi / 2, hi];
  const label = (v) => match() ? `${Math.round(100 * v)}%` : v.toFixed(1);
  const middle = match() ? 0.5 : 0;
  let s = ticks.map((v) => `<line class="${v === middle ? "half" : "grid"}" x1="${left}" x2="${w - right}" y1="${Y(v)}" y2="${Y(v)}"/>` +
    `<text x="${left - 4}" y="${Y(v) + 4}" text-anchor="end">${label(v)}</text>`).join("");
  let lastLabel = -1e9;
  const games = A.games || [];
  track.forEach((t, i) => {
    if (i > 0 && t.game === track[i - 1].game) return;
    const x = i ? (X(i) + X(i - 1)) / 2 : left;
    const g = games.find((x) => x.game === t.game);
    const score = g ? ` ${g.score[0]}-${g.score[1]}` : "";
    if (i) s += `<line class="game" x1="${x}" x2="${x}" y1="${top - 4}" y2="${h - bottom}"/>`;
    const text = x - lastLabel > 62 ? `G${t.game}${score}` : x - lastLabel > 22 ? `G${t.game}` : "";
    if (text) { s += `<text class="game-label" x="${x + 3}" y="${top - 5}">${text}</text>`; lastLabel = x; }
  });
  s += `<polyline class="line" points="${track.map((t, i) => `${X(i).toFixed(1)},${Y(t.value).toFixed(1)}`).join(" ")}"/>`;
  s += `<text x="${left}" y="${h - 6}">plays of the match →</text>`;
  s += `<circle id="now" class="now" r="5" cx="-20" cy="-20"/>`;
  svg.innerHTML = s;
  geometry = { X, Y, track };
  marker();
}
function marker() {
  const c = $("now");
  if (!geometry || !c) return;
  // The point of this decision, or of the last play before it.
  let k = -1;
  geometry.track.forEach((t, i) => { if (t.decision !== undefined && t.decision <= at) k = i; });
  if (k < 0) { c.setAttribute("cx", -20); return; }
  c.setAttribute("cx", geometry.X(k)); c.setAttribute("cy", geometry.Y(geometry.track[k].value));
}
$("graph").addEventListener("click", (e) => {
  if (!geometry) return;
  const box = $("graph").getBoundingClientRect();
  const x = e.clientX - box.left;
  let best = 0;
  geometry.track.forEach((_, i) => { if (Math.abs(geometry.X(i) - x) < Math.abs(geometry.X(best) - x)) best = i; });
  const d = geometry.track[best].decision;
  if (d !== undefined) go(d, false);
});
let resized = null;
window.addEventListener("resize", () => { clearTimeout(resized); resized = setTimeout(() => A && graph(), 150); });

// ------------------------------------------------------------------ the whole
function players(a) {
  const rows = [
    ["Unforced plays", (p) => p.checker.unforced],
    ["Checker error rate (mEMG)", (p) => p.checker.rate_memg.toFixed(1)],
    ["Cube decisions", (p) => p.cube.decisions],
    ["Cube error rate (mEMG)", (p) => p.cube.rate_memg.toFixed(1)],
    ["Overall error rate (mEMG)", (p) => p.overall.rate_memg.toFixed(1)],
    ["PR", (p) => p.overall.pr.toFixed(1)],
    ["Rating", (p) => p.overall.rating],
    ["Doubtful · bad · very bad", (p) => ["doubtful", "bad", "very bad"].map((m) => p.marks[m] || 0).join(" · ")],
    ["Luck (EMG)", (p) => signed(p.luck.total_emg)],
    ["Luck-adjusted result", (p) => signed(p.luck.luck_adjusted_result)],
  ];
  if (a.engine) {
    const e = (k) => (p) => { const v = a.engine.players[a.players.indexOf(p)][k]; return v === undefined || v === null ? "–" : k === "luck_emg" ? signed(v) : v.toFixed(1); };
    rows.push([`${esc(a.engine.name)}: overall error rate (mEMG)`, e("rate_memg")],
      [`${esc(a.engine.name)}: checker error rate (mEMG)`, e("checker_rate_memg")],
      [`${esc(a.engine.name)}: luck (EMG)`, e("luck_emg")]);
  }
  $("players").innerHTML = `<thead><tr><th scope="col"><span class="sr-only">Measure</span></th>${names.map((n) => `<th scope="col">${esc(n)}</th>`).join("")}</tr></thead><tbody>` +
    rows.map(([label, f]) => `<tr><th scope="row">${label}</th>${a.players.map((p) => `<td>${esc(f(p))}</td>`).join("")}</tr>`).join("") + "</tbody>";
}
function show(a) {
  A = a;
  names = a.names || a.players.map((p) => p.name);
  const kind = match() ? `${a.length}-point match` : "money session";
  $("title").textContent = `Review: ${names[0]} against ${names[1]}, ${kind}`;
  document.title = `Review: ${names[0]} – ${names[1]}`;
  $("graph-caption").textContent = match()
    ? `${names[0]}'s chance to win the match after each play (${names[1]}'s is the rest), the dashed line at 50%. Click the graph to go to a play.`
    : `${names[0]}'s equity (money, per cube) after each play, the dashed line at 0. Click the graph to go to a play.`;
  $("games").textContent = (a.games || []).length
    ? `Games (score ${names[0]}–${names[1]} at the start): ` + a.games.map((g) => `game ${g.game} at ${g.score[0]}-${g.score[1]}${g.crawford ? " (Crawford)" : ""}`).join(", ") + "."
    : "";
  players(a);
  // What the file lacks (it stops mid-game) is said above the review, not left to be guessed.
  $("warnings").textContent = (a.warnings || []).join(" ");
  $("warnings").hidden = !(a.warnings || []).length;
  $("result").hidden = false;
  if (!a.decisions.length) { $("d-title").textContent = "No decision to review."; return; }
  list();
  graph();
  const wanted = parseInt(location.hash.slice(1), 10);
  at = wanted >= 1 && wanted <= a.decisions.length ? wanted - 1 : 0;
  showDecision(false);
}

poll();
