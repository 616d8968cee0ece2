"use strict";
// The match page: shows the server's state and sends the seat's actions.  Every rule is
// decided on the server; the page only offers what the state lists.
const $ = (id) => document.getElementById(id);
const matchId = location.pathname.split("/")[2];
const api = `/api/matches/${matchId}`;
let state = null;          // the server's state as our seat sees it
let steps = [];            // steps of the play made so far this turn (not yet confirmed)
let selected = null;       // the point of the checker picked up
let dragFrom = null;
let replayAt = null;
let connected = true;
let home = localStorage.getItem("bg-home") || "right";
const seenEnd = `bg-seen-end-${matchId}`;
const keptSteps = `bg-steps-${matchId}`;  // this turn's unconfirmed steps, kept over a reload
$("home-left").checked = home === "left";
$("dark").checked = document.documentElement.dataset.theme === "dark";
$("auto-roll").checked = localStorage.getItem("bg-auto-roll") === "on";
$("sound").checked = localStorage.getItem("bg-sound") === "on";

function sameSteps(a, b) { return a.length >= b.length && b.every((s, i) => a[i][0] === s[0] && a[i][1] === s[1]); }
function candidates() { return state ? state.plays.filter((o) => sameSteps(o, steps)) : []; }
function complete() { return candidates().some((o) => o.length === steps.length); }
// Where the checker on `src` may go next: target -> the steps that take it there.
function targets(src) {
  const out = new Map();
  for (const o of candidates()) {
    let k = steps.length, at = src, chain = [];
    while (k < o.length && o[k][0] === at) {
      chain = chain.concat([o[k]]);
      const t = o[k][1];
      if (!out.has(t) || out.get(t).length > chain.length) out.set(t, chain);
      at = t; k += 1;
      if (t === 0) break;
    }
  }
  return out;
}
function sources() { return new Set(candidates().filter((o) => o.length > steps.length).map((o) => o[steps.length][0])); }
function firstSource() {
  // The point the board's Tab stop lands on: the checker picked up, else one that may move.
  if (selected !== null) return selected;
  const s = state && state.actions.includes("move") ? [...sources()] : [];
  return s.length ? Math.max(...s) : null;
}

// ------------------------------------------------------------------ drawing the board
function checkersOf(root) {
  // Per point and colour, the checker circles (bottom of the stack first).
  const out = new Map();
  for (const c of root.querySelectorAll("circle.checker")) {
    const key = `${c.dataset.point}|${c.getAttribute("fill")}`;
    if (!out.has(key)) out.set(key, []);
    out.get(key).push(c);
  }
  return out;
}
function putBoard(svgText, animate) {
  const board = $("board");
  const focused = document.activeElement && board.contains(document.activeElement)
    ? document.activeElement.dataset.point : null;
  const before = animate ? checkersOf(board) : null;
  board.innerHTML = svgText;
  fitNames(board);
  if (focused !== null && focused !== undefined) {
    const g = board.querySelector(`g[data-point="${focused}"]`);
    if (g) g.focus();
  }
  oneTabStop(board, firstSource());
  if (!before || matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  // A short slide for every checker that arrived, from where a checker of its colour left.
  const after = checkersOf(board);
  const left = [];
  for (const [key, olds] of before) {
    const news = after.get(key) || [];
    for (let i = news.length; i < olds.length; i++) left.push({ colour: key.split("|")[1], x: +olds[i].getAttribute("cx"), y: +olds[i].getAttribute("cy") });
  }
  for (const [key, news] of after) {
    const olds = before.get(key) || [];
    for (let i = olds.length; i < news.length; i++) {
      const colour = key.split("|")[1];
      const k = left.findIndex((l) => l.colour === colour);
      if (k < 0) continue;
      const from = left.splice(k, 1)[0];
      const c = news[i];
      const dx = from.x - +c.getAttribute("cx"), dy = from.y - +c.getAttribute("cy");
      c.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "translate(0, 0)" }],
                { duration: 260, easing: "ease-out" });
    }
  }
}

function fitNames(board) {
  // A long name is shortened (…) until the score and pips after it are on the board, clear
  // of the match's length at the other end of the strip when that is shown.
  const svg = board.querySelector("svg");
  if (!svg) return;
  const limit0 = svg.viewBox.baseVal.width - 8;
  for (const strip of svg.querySelectorAll(".strip")) {
    const [left, right] = strip.querySelectorAll("text");
    const name = left && left.querySelector(".name");
    if (!name) continue;
    let limit = limit0;
    if (right && right.textContent && getComputedStyle(right).display !== "none") limit = Math.min(limit, right.getBBox().x - 12);
    const full = name.textContent;
    for (let n = full.length - 1; n > 0; n--) {
      const box = left.getBBox();
      if (box.x + box.width <= limit) break;
      name.textContent = `${full.slice(0, n).trimEnd()}…`;
    }
  }
}

let drawn = 0;              // the newest board drawing asked for (older answers are dropped)
async function drawBoard(animate) {
  if (!state || replayAt !== null) return;
  const ticket = ++drawn;
  const marks = selected === null ? [] : [...targets(selected).keys()];
  if (!steps.length && selected === null && home === "right") { putBoard(state.svg, animate); return; }
  const q = new URLSearchParams({ steps: steps.map((s) => s.join("-")).join(","), highlight: marks.join(","), home });
  if (selected !== null) q.set("selected", selected);
  try {
    const r = await fetch(`${api}/board.svg?${q}`);
    const svg = await r.text();
    if (r.ok && ticket === drawn) putBoard(svg, animate);
  } catch (e) { lost(); }
}

// ------------------------------------------------------------------ sound
let audio = null;
function beep(freq, ms) {
  if (!$("sound").checked) return;
  try {
    audio = audio || new AudioContext();
    const osc = audio.createOscillator(), gain = audio.createGain();
    osc.frequency.value = freq; osc.type = "triangle";
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + ms / 1000);
    osc.connect(gain).connect(audio.destination);
    osc.start(); osc.stop(audio.currentTime + ms / 1000);
  } catch (e) { /* no audio: stay silent */ }
}
function barCount(svg) { return (svg.match(/data-point="25" cx/g) || []).length; }

// ------------------------------------------------------------------ words
function name(seat) { return state.names[seat]; }
function counted(score) {
  // The score as the match counts it: a match is won at its length.
  return state.length ? score.map((p) => Math.min(p, state.length)) : score;
}
function endText(e) {
  const how = e.reason === "dropped" ? "the double was passed"
    : e.reason === "resigned" ? `a ${e.result} was resigned` : `a ${e.result}`;
  // Under the Jacoby rule a gammon with the cube never turned counts one point: say so.
  const jacoby = state.rules.jacoby && !state.length && e.result !== "single" && e.reason !== "dropped" && e.points === 1
    ? ` (the Jacoby rule: a ${e.result} counts only once the cube has been turned)` : "";
  return `${name(e.winner)} wins game ${e.game}: ${how}, ${e.points} point${e.points === 1 ? "" : "s"}${jacoby}.`;
}
function scoreText(score) {
  const sc = counted(score);
  return `Score: ${name(0)} ${sc[0]}, ${name(1)} ${sc[1]}` + (state.length ? ` (${state.length}-point match).` : " (money).");
}
function matchOverText() {
  const w = state.winner, sc = counted(state.score);
  return `Match over: ${name(w)} wins ${sc[w]}-${sc[1 - w]}.`;
}

function statusText(s, acts, mine, moving) {
  if (s.over) return clockEndText(s) || matchOverText();
  if (s.turn === null) {  // the opening roll: either player may throw it (R3)
    return s.seat === null ? "Opening roll: either player may throw it." : "Roll to start the game (either player may throw the opening roll).";
  }
  if (s.seat === null) return `${name(s.turn)} to act.`;
  if (!mine) return `Waiting for ${name(s.turn)}…`;
  if (moving) {
    if (s.plays.length === 1 && s.plays[0].length === 0) return "No legal play: confirm to pass the turn.";
    return complete() ? "Confirm your play (or undo)." : "Move a checker: pick it up, then a lit point. Or type the play.";
  }
  if (acts.has("take")) {
    const beavered = / (beavers|raccoons)$/.test(s.log[s.log.length - 1] || "");
    return `${name(1 - s.seat)} ${beavered ? "redoubles" : "doubles"} to ${s.cube.offered}: take or pass?`;
  }
  if (acts.has("accept")) return `${name(1 - s.seat)} resigns a ${s.resignation}: accept or reject?`;
  // The opponent's play just made, said until we throw (the board marks it meanwhile).
  const last = s.log[s.log.length - 1] || "";
  if (!s.dice && last.startsWith(`${name(1 - s.seat)} `) && /^[^:]+ \d\d: /.test(last)) return `${last}. Your turn.`;
  return "Your turn.";
}

// ------------------------------------------------------------------ rendering
function renderLog(lines, current) {
  const log = $("log"); log.innerHTML = "";
  lines.forEach((line, i) => {
    const li = document.createElement("li"); li.textContent = line;
    if (i === current) li.setAttribute("aria-current", "step");
    log.appendChild(li);
  });
  const cur = log.querySelector("[aria-current]");
  if (cur) cur.scrollIntoView({ block: "nearest" }); else log.scrollTop = log.scrollHeight;
}

function render(animate) {
  const s = state;
  sessionStorage.setItem(keptSteps, JSON.stringify({ seq: s.seq, steps }));
  const mine = s.seat !== null && !s.over && (s.turn === s.seat || (s.turn === null && s.actions.length > 0));
  $("title").textContent = s.length ? `${s.length}-point match` : `Money session${s.rules.jacoby ? " · Jacoby" : ""}${s.rules.beavers ? " · beavers" : ""}`;
  $("who").textContent = s.seat === null ? "You are watching." : `You play ${name(s.seat)}.`;
  showPresence();
  showClock();
  $("gnubg-id").textContent = s.gnubg_id;
  $("xgid").textContent = s.xgid;
  $("commitment").textContent = s.commitment;
  const acts = new Set(replayAt === null && connected ? s.actions : []);
  // The host is not offered the first roll before the friend has opened the match.
  const waiting = s.bot === null && s.seq === 0 && s.seat === 0 && presence && !presence.arrived;
  if (waiting) acts.delete("roll");
  $("chat-form").classList.toggle("hidden", s.seat === null);
  for (const b of document.querySelectorAll("#controls [data-action]")) b.classList.toggle("hidden", !acts.has(b.dataset.action));
  $("resign-box").classList.toggle("hidden", !acts.has("resign"));
  if (!acts.has("resign")) $("resign-ask").classList.add("hidden");
  const moving = acts.has("move");
  for (const id of ["btn-undo", "btn-undo-all", "btn-confirm"]) $(id).classList.toggle("hidden", !moving);
  $("move-form").classList.toggle("hidden", !moving);
  $("btn-undo").disabled = steps.length === 0;
  $("btn-undo-all").disabled = steps.length === 0;
  $("btn-confirm").disabled = !complete();
  // A seat still under its default name (the server's NewMatch "Guest", "Friend") may name
  // itself before the first roll; a host who gave a name is not asked again.
  const unnamed = s.seat !== null && name(s.seat) === ["Guest", "Friend"][s.seat];
  const naming = unnamed && connected && !s.over && s.bot === null && s.log.length <= 1;
  $("name-form").classList.toggle("hidden", !naming);
  if (replayAt === null) {
    $("status").textContent = waiting ? "Waiting for your friend to open the invitation link before the opening roll." : statusText(s, acts, mine, moving);
    renderLog(s.log, -1);
  }
  $("btn-rematch").classList.toggle("hidden", !(s.over && s.seat !== null));
  // Against the bot the match so far can be analysed (unless rated); between two people only once it is over.
  $("analyse-box").classList.toggle("hidden", !(s.over || (s.bot !== null && !s.rated)));
  $("analyse-link").href = `/m/${matchId}/analysis`;
  if (s.over) {
    $("seed-box").classList.remove("hidden");
    $("seed").textContent = s.seed;
    $("verified").textContent = s.dice_verified ? "Every roll checks against the seed ✔" : "The rolls do NOT match the seed ✘";
    $("downloads").classList.remove("hidden");
    $("dl-mat").href = `${api}/match.mat`; $("dl-sgf").href = `${api}/match.sgf`;
    $("replay").classList.remove("hidden");
    if (replayAt === null) $("rp-at").textContent = `end (${s.seq})`;
  }
  showEnd();
  showRatings();
  drawBoard(animate);
  autoRoll(acts);
}

// ------------------------------------------------------------------ ratings (a rated match)
let rated = null;          // per seat: {rating, before, after} as the players' pages say
async function loadRatings(tries = 6) {
  // Each seat's rating; once the match is over, what this match changed (it is rated as it
  // ends: a seat told of the end by the other's action may ask a moment before it is).
  const over = state.over;
  const got = await Promise.all(state.names.map(async (n) => {
    try {
      const r = await fetch(`/api/players/${encodeURIComponent(n)}`);
      if (!r.ok) return null;
      const p = await r.json();
      const h = p.history.find((x) => x.match === matchId);
      return { rating: p.rating, before: h ? h.before : null, after: h ? h.after : null };
    } catch (e) { return null; }
  }));
  rated = got;
  showRatings();
  if (over && tries > 1 && got.some((g) => !g || g.after === null)) setTimeout(() => loadRatings(tries - 1), 1000);
}
function ratingChange(g) {
  const d = g.after - g.before;
  return `${g.before.toFixed(2)} → ${g.after.toFixed(2)} (${d >= 0 ? "+" : "−"}${Math.abs(d).toFixed(2)})`;
}
function showRatings() {
  const box = $("ratings");
  box.classList.toggle("hidden", !state.rated);
  if (!state.rated) return;
  if (!rated) { box.textContent = "Rated match."; return; }
  const words = state.names.map((n, seat) => {
    const g = rated[seat];
    if (!g) return n;
    return g.after !== null ? `${n} ${ratingChange(g)}` : `${n} ${g.rating.toFixed(2)}`;
  });
  box.textContent = `Rated match: ${words.join(" · ")}.`;
  const mine = state.seat === null ? null : rated[state.seat];
  $("end-rating").textContent = state.over && mine && mine.after !== null ? `Your rating: ${ratingChange(mine)}.` : "";
}

function showEnd() {
  const e = state.ended;
  const seen = +(localStorage.getItem(seenEnd) || 0);
  const open = e !== null && e.game > seen && replayAt === null;
  const dialog = $("end");
  if (!open) { dialog.classList.add("hidden"); return; }
  $("end-title").textContent = state.over ? matchOverText() : `Game ${e.game} is over`;
  $("end-text").textContent = endText(e);
  $("end-score").textContent = scoreText(e.score);
  $("end-rematch").classList.toggle("hidden", !(state.over && state.seat !== null));
  $("end-analyse").classList.toggle("hidden", !state.over);
  $("end-analyse").href = `/m/${matchId}/analysis`;
  $("end-continue").textContent = state.over ? "Close" : "Continue to the next game";
  if (dialog.classList.contains("hidden")) {
    dialog.classList.remove("hidden");
    $("end-continue").focus();
  }
}
$("end-continue").onclick = () => {
  localStorage.setItem(seenEnd, String(state.ended.game));
  $("end").classList.add("hidden");
  render(false);
  keepFocus();
};
$("end").addEventListener("keydown", (e) => { if (e.key === "Escape") $("end-continue").click(); });

let autoTimer = null;
function autoRoll(acts) {
  clearTimeout(autoTimer);
  if (!$("auto-roll").checked || !acts.has("roll") || acts.has("double") || !$("end").classList.contains("hidden")) return;
  const seq = state.seq;
  autoTimer = setTimeout(() => { if (state.seq === seq && state.actions.includes("roll")) act({ action: "roll" }); }, 400);
}

function setState(s) {
  // A pushed state can arrive after the answer to our own action: never step back.
  if (state && s.id === state.id && s.seq < state.seq) return;
  const fresh = !state || s.seq !== state.seq;
  const old = state;
  state = s;
  if (fresh) {
    steps = []; selected = null;
    if (!old) {  // a reload mid-turn keeps the checkers already moved
      try {
        const kept = JSON.parse(sessionStorage.getItem(keptSteps) || "null");
        if (kept && kept.seq === s.seq && Array.isArray(kept.steps)) steps = kept.steps;
      } catch (e) { /* nothing kept */ }
    }
    if (old) {
      if (s.dice && JSON.stringify(s.dice) !== JSON.stringify(old.dice)) beep(660, 90);
      if (barCount(s.svg) > barCount(old.svg)) beep(220, 200);
      let said = s.log.length > old.log.length ? s.log.slice(old.log.length).join(". ") : "";
      // A screen reader hears its own dice, not the bot's last move again.
      if (s.dice && s.seat !== null && s.turn === s.seat && s.actions.includes("move")) {
        said = `You rolled ${s.dice[0]}-${s.dice[1]}. ${said}`;
      }
      if (said) $("announce").textContent = said;
    }
  }
  render(fresh && old !== null);
  if (s.rated && (!old || (s.over && !old.over))) loadRatings();
  // A link from the analysis (?at=N) opens a finished match's replay at that step.
  const at = new URLSearchParams(location.search).get("at");
  if (!old && s.over && at !== null && /^\d+$/.test(at)) showReplay(+at);
}

// ------------------------------------------------------------------ acting
function lost() {
  connected = false;
  $("conn").className = "lost";
  $("conn").textContent = "Connection lost: retrying… (your last action may not have been sent)";
  if (state) render(false);
}
function found() {
  if (connected) return;
  connected = true;
  $("conn").className = ""; $("conn").textContent = "";
}

let acting = false;  // one action in flight: a double-click sends one request
async function act(body) {
  if (!state || acting) return false;  // no state yet, or the first click is being answered
  acting = true;
  $("error").textContent = "";
  body.seq = state.seq;
  let r, data;
  try {
    r = await fetch(`${api}/actions`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    noteServerTime(r);
    data = await r.json();
  } catch (e) { lost(); return false; } finally { acting = false; }
  if (!r.ok) { $("error").textContent = data.error.message; steps = []; selected = null; render(false); return false; }
  setState(data);
  keepFocus();
  return true;
}

function keepFocus() {
  // The clicked button may now be hidden: focus goes to a harmless control or the board's
  // Tab stop (a checker that may move), never to <body> and never to Resign.
  const at = document.activeElement;
  if (at && at !== document.body && at.offsetParent !== null && !at.disabled) return;
  const next = [...document.querySelectorAll("#controls button")].find((b) => b.offsetParent !== null && !b.disabled && b.id !== "btn-resign");
  const point = document.querySelector('#board [tabindex="0"]');
  if (next) next.focus(); else if (point) point.focus();
}

for (const b of document.querySelectorAll("#controls [data-action]")) b.onclick = () => act({ action: b.dataset.action });
// Resigning asks first, in the page, with "Keep playing" focused: Enter pressed again and
// again never resigns; only "Yes, resign" chosen does.
$("btn-resign").onclick = () => {
  $("resign-q").textContent = `Resign a ${$("resign-level").value}? ${name(1 - state.seat)} would win it.`;
  $("resign-ask").classList.remove("hidden");
  $("resign-no").focus();
};
$("resign-no").onclick = () => { $("resign-ask").classList.add("hidden"); $("btn-resign").focus(); };
$("resign-yes").onclick = () => { $("resign-ask").classList.add("hidden"); act({ action: "resign", level: $("resign-level").value }); };
$("resign-ask").addEventListener("keydown", (e) => { if (e.key === "Escape") $("resign-no").click(); });
$("btn-undo").onclick = () => { steps.pop(); selected = null; render(false); };
$("btn-undo-all").onclick = () => { steps = []; selected = null; render(false); };
$("btn-confirm").onclick = () => act({ action: "move", steps });
$("move-form").onsubmit = async (e) => {
  e.preventDefault();
  if (await act({ action: "move", move: $("move-text").value })) $("move-text").value = "";
};
$("name-form").onsubmit = (e) => { e.preventDefault(); act({ action: "name", name: $("seat-name").value }); };
async function rematch() {
  const r = await fetch(`${api}/rematch`, { method: "POST" });
  const data = await r.json();
  if (!r.ok) { $("error").textContent = data.error.message; return; }
  location.href = `/m/${data.id}`;
}
$("btn-rematch").onclick = rematch;
$("end-rematch").onclick = rematch;
$("home-left").onchange = () => { home = $("home-left").checked ? "left" : "right"; localStorage.setItem("bg-home", home); render(false); };
$("dark").onchange = () => setTheme($("dark").checked);
$("auto-roll").onchange = () => { localStorage.setItem("bg-auto-roll", $("auto-roll").checked ? "on" : "off"); render(false); };
$("sound").onchange = () => { localStorage.setItem("bg-sound", $("sound").checked ? "on" : "off"); beep(440, 60); };
for (const b of document.querySelectorAll("[data-copy]")) {
  b.onclick = () => navigator.clipboard && navigator.clipboard.writeText(b.dataset.copy === "gnubg" ? state.gnubg_id : state.xgid);
}

// ------------------------------------------------------------------ pointer and keyboard on the board
function pointAt(x, y) {
  const el = document.elementFromPoint(x, y);
  const g = el && el.closest("[data-point]");
  return g && $("board").contains(g) ? +g.dataset.point : null;
}
function moveTo(src, dst) {
  const chain = targets(src).get(dst);
  if (!chain) return false;
  steps = steps.concat(chain); selected = null; render(false);
  return true;
}
function choose(p) {
  // A click, tap or Enter on point p: put the picked-up checker there, or pick one up.
  if (selected !== null && p !== selected && moveTo(selected, p)) return;
  if (sources().has(p) && p !== selected) { selected = p; render(false); return; }
  selected = null; render(false);
}
$("board").addEventListener("pointerdown", (e) => {
  if (!state || !state.actions.includes("move") || replayAt !== null) return;
  const p = pointAt(e.clientX, e.clientY);
  if (p === null) return;
  e.preventDefault();
  const before = selected;
  choose(p);
  if (selected !== null && selected !== before) dragFrom = p;
});
document.addEventListener("pointerup", (e) => {
  if (dragFrom === null) return;
  const from = dragFrom; dragFrom = null;
  const p = pointAt(e.clientX, e.clientY);
  if (p !== null && p !== from) moveTo(from, p);
});
$("board").addEventListener("keydown", (e) => {
  const g = e.target.closest && e.target.closest("[data-point]");
  if (!g) return;
  const p = +g.dataset.point;
  if (e.key === "Enter" || e.key === " ") {
    e.preventDefault();
    if (state && state.actions.includes("move") && replayAt === null) choose(p);
  } else walkPoints($("board"), e);
});

// ------------------------------------------------------------------ replay
async function showReplay(at) {
  replayAt = at >= state.seq ? null : Math.max(0, at);
  if (replayAt === null) { render(false); return; }
  const r = await fetch(`${api}/replay/${replayAt}`);
  const v = await r.json();
  const q = new URLSearchParams({ at: replayAt, home });
  const svg = await fetch(`${api}/board.svg?${q}`);
  render(false);
  putBoard(await svg.text(), true);
  $("rp-at").textContent = `${replayAt} / ${state.seq}`;
  $("gnubg-id").textContent = v.gnubg_id;
  $("xgid").textContent = v.xgid;
  // The move log shows the match up to this step, its last line marked.
  renderLog(v.log, v.log.length - 1);
  const last = v.log.length ? v.log[v.log.length - 1] : "";
  $("status").textContent = replayAt === 0 || !last || /^Game \d+, score/.test(last) && v.log.length <= 1
    ? "Start of the match." : `Step ${replayAt}: ${last}`;
}
$("rp-first").onclick = () => showReplay(0);
$("rp-prev").onclick = () => showReplay((replayAt === null ? state.seq : replayAt) - 1);
$("rp-next").onclick = () => showReplay((replayAt === null ? state.seq : replayAt) + 1);
$("rp-last").onclick = () => showReplay(state.seq);

// ------------------------------------------------------------------ the connection
let retry = 1000;
function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}${api}/ws?presence=1`);
  ws.onopen = () => { retry = 1000; found(); if (state) render(false); };
  ws.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.type === "state") setState(m.state);
    else if (m.type === "error") $("error").textContent = m.error.message;
    else if (m.type === "presence") { presence = m; showPresence(); if (state) render(false); }
    else if (m.type === "chat") addChat(m.line);
  };
  ws.onclose = () => { lost(); setTimeout(connect, retry); retry = Math.min(retry * 2, 8000); };
}
fetch(api).then((r) => { noteServerTime(r); return r.json(); }).then(setState).catch(lost);
connect();

// ------------------------------------------------------------------ presence and chat
let presence = null;
function showPresence() {
  if (!presence || !state || state.bot !== null) { $("presence").textContent = ""; return; }
  const other = state.seat === null ? null : 1 - state.seat;
  const here = (seat) => presence.present[seat] ? "is here" : "is away";
  $("presence").textContent = other === null
    ? `${name(0)} ${here(0)}; ${name(1)} ${here(1)}.`
    : !presence.arrived && other === 1 ? `${name(1)} has not opened the link yet.` : `${name(other)} ${here(other)}.`;
}
let chatSeen = 0;
function addChat(line) {
  if (line.seq < chatSeen) return;
  chatSeen = line.seq + 1;
  const li = document.createElement("li");
  li.textContent = `${line.name}: ${line.text}`;  // text, never markup
  $("chat").appendChild(li);
}
fetch(`${api}/chat`).then((r) => r.json()).then((d) => d.lines.forEach(addChat));
fetch(`${api}/presence`).then((r) => r.json()).then((p) => { presence = presence || p; showPresence(); if (state) render(false); });
$("chat-form").onsubmit = async (e) => {
  e.preventDefault();
  const text = $("chat-text").value.trim();
  if (!text) return;
  const r = await fetch(`${api}/chat`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ text }) });
  const data = await r.json();
  if (!r.ok) { $("error").textContent = data.error ? data.error.message : "not sent"; return; }
  $("chat-text").value = "";
  addChat(data);
};
