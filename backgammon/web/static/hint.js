"use strict";
// Hints on the match page: the bot's advice (GET /api/engine/hint) at the depth the player
// picks, for the seat's own decisions against the bot; between two people only once the
// match is over, on the positions of its replay.  It reads board.js's `state` and
// `replayAt` and follows the gnubg ID the page shows; it changes nothing there.
(function () {
  const el = (id) => document.getElementById(id);
  const box = el("hint-box"), on = el("hints"), depth = el("hint-depth"), out = el("hint-out");
  on.checked = localStorage.getItem("bg-hints") === "on";
  depth.value = localStorage.getItem("bg-hint-depth") || "1";
  let asked = "";
  const RETRIES = 3;

  function esc(t) { const d = document.createElement("div"); d.textContent = String(t); return d.innerHTML; }
  const signed = (x) => (x >= 0 ? "+" : "−") + Math.abs(x).toFixed(3);

  function wanted() {
    // The gnubg ID to advise on now, or why there is none.
    if (typeof state === "undefined" || !state) return { why: "" };
    if (state.rated && !state.over) return { why: "No engine help in a rated match until it ends." };
    if (state.bot === null && !state.over) return { why: "Hints are off between two people until the match ends." };
    if (state.over) {
      if (typeof replayAt === "undefined" || replayAt === null) return { why: "Step through the replay to get hints on its positions." };
      return { id: el("gnubg-id").textContent };
    }
    if (state.seat === null || state.turn !== state.seat) return { why: "Hints come on your turn." };
    return { id: state.gnubg_id };
  }
  function render(h) {
    if (h.kind === "plays") {
      if (!h.plays.length) return "No legal play: the turn passes.";
      const best = h.plays[0].equity;
      return `<p>Best plays of ${h.dice.join("-")} at ${h.plies}-ply (EMG):</p><ol>` +
        h.plays.map((p, i) => `<li><b>${esc(p.move)}</b> ${signed(p.equity)}${i ? ` (${signed(p.equity - best)})` : ""}</li>`).join("") + "</ol>";
    }
    const c = h.cube;
    if (!c.may_double && !state.over && state.phase === "roll") return "You cannot double now: roll.";
    const words = `${c.action === "double" ? "double" : "no double"}, ${c.response}`;
    const v = (x) => (state.length ? `${(100 * x).toFixed(1)}%` : signed(x));
    return `<p>Cube at ${h.plies}-ply: <b>${esc(words)}</b>.</p><p class="note">For the doubler${state.length ? " (match winning chance)" : ""}: ` +
      `no double ${v(c.no_double)}, double/take ${v(c.double_take)}, double/pass ${v(c.double_pass)}.</p>`;
  }
  async function update() {
    if (typeof state === "undefined" || !state) return;
    box.classList.remove("hidden");
    const w = wanted();
    on.disabled = (state.bot === null || state.rated) && !state.over;
    depth.disabled = on.disabled;
    if (!on.checked || !w.id) { asked = ""; out.textContent = on.checked ? w.why : ""; return; }
    const key = `${w.id}|${depth.value}`;
    if (key === asked) return;
    asked = key;
    out.textContent = "Thinking…";
    // A slow engine (503: no answer in time, e.g. still starting) is asked again, a few
    // times, saying so, before the page gives up.
    for (let attempt = 1; ; attempt++) {
      try {
        const q = new URLSearchParams({ gnubgid: w.id, plies: depth.value, count: 5 });
        const r = await fetch(`/api/engine/hint?${q}`);
        const h = await r.json();
        if (asked !== key) return;
        if (r.status === 503 && attempt < RETRIES) {
          out.textContent = `The engine is slow to answer: asking again (${attempt + 1} of ${RETRIES})…`;
          await new Promise((ok) => setTimeout(ok, 1000 * attempt));
          if (asked !== key) return;
          continue;
        }
        out.innerHTML = r.ok ? render(h) : r.status === 422 ? "Nothing to decide here." : esc(h.error.message);
      } catch (e) { if (asked === key) { out.textContent = "No hint: the server cannot be reached."; asked = ""; } }
      return;
    }
  }
  on.onchange = () => { localStorage.setItem("bg-hints", on.checked ? "on" : "off"); asked = ""; update(); };
  depth.onchange = () => { localStorage.setItem("bg-hint-depth", depth.value); update(); };
  new MutationObserver(update).observe(el("gnubg-id"), { childList: true, characterData: true, subtree: true });
  new MutationObserver(update).observe(el("status"), { childList: true, characterData: true, subtree: true });
})();
