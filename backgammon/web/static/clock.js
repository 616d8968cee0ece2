"use strict";
// The match clock beside the names (issue 67): each seat's reserve as m:ss, the running
// seat's delay counting down first and then its reserve, ticking each second.  The server
// decides the time; the page only counts from the state's `since` and `deadline`, read
// against the server's time: the HTTP Date header of its answers gives the offset from the
// page's own clock, never less than the state's `since` says (an action is made at or
// before the moment its state is read).
let serverOffset = 0;      // seconds to add to the page's clock to get the server's
let offsetFromDate = null; // the offset the last HTTP Date header gave
let sinceBound = -Infinity; // the least offset the states' `since` allow
let lastSince = null;
let clockTimer = null;

function noteServerTime(response) {
  // The Date header has whole seconds: the server's time is about half a second past it.
  const date = Date.parse(response.headers.get("Date") || "");
  if (!Number.isNaN(date)) offsetFromDate = (date + 500 - Date.now()) / 1000;
}
function serverNow() { return Date.now() / 1000 + serverOffset; }

function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

const CLOSED = {
  withdrawn: "Closed: the host withdrew the invitation.",
  expired: "Closed: the invitation expired, no one took it.",
  abandoned: "Closed: abandoned, both players left the match.",
};
function clockEndText(s) {
  // What ended the match other than play: a seat's time, or a close (null: neither).
  if (s.closed) return CLOSED[s.closed] || `Closed (${s.closed}).`;
  if (s.lost_on_time !== null && s.lost_on_time !== undefined) {
    return `${s.names[s.lost_on_time]} lost on time: ${s.names[1 - s.lost_on_time]} wins the match.`;
  }
  return null;
}

function showClock() {
  // Called at each state; the seconds tick on from a timer while a clock runs.
  const s = state, box = $("clock"), c = s.clock;
  if (!c) { box.classList.add("hidden"); box.textContent = ""; clearInterval(clockTimer); clockTimer = null; return; }
  // The state's own time: a new `since` is not later than the server's now as it arrives.
  if (c.since !== lastSince) { lastSince = c.since; sinceBound = Math.max(sinceBound, c.since - Date.now() / 1000); }
  serverOffset = Math.max(offsetFromDate ?? -Infinity, sinceBound);
  box.classList.remove("hidden");
  tickClock();
  if (c.running !== null && !s.over && !clockTimer) clockTimer = setInterval(tickClock, 250);
  if ((c.running === null || s.over) && clockTimer) { clearInterval(clockTimer); clockTimer = null; }
}

function tickClock() {
  const s = state, c = s.clock;
  if (!c) return;
  const now = serverNow();
  const lines = [0, 1].map((seat) => {
    let reserve = c.reserve[seat], delay = null;
    if (seat === c.running && !s.over) {
      const gone = now - c.since;
      delay = c.delay - gone;
      reserve = delay > 0 ? c.reserve[seat] : (c.deadline ?? now) - now;
    }
    const running = delay !== null;
    const text = `${s.names[seat]} ${clockText(reserve)}` + (running && delay > 0 ? ` · delay ${clockText(delay)}` : "");
    return { seat, running, text };
  });
  const box = $("clock");
  for (const l of lines) {
    let el = box.querySelector(`[data-seat="${l.seat}"]`);
    if (!el) { el = document.createElement("div"); el.dataset.seat = String(l.seat); box.appendChild(el); }
    el.textContent = (l.running ? "▶ " : "") + l.text;
    el.classList.toggle("running", l.running);
  }
}
