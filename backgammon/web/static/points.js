"use strict";
// The board's points as one Tab stop (the match page and the editor): Tab enters the board on
// one point and leaves it for the controls; the arrow keys walk the points (0 tray ... 25 bar).
function oneTabStop(board, preferred) {
  const points = [...board.querySelectorAll("[data-point][tabindex]")];
  if (!points.length) return null;
  const at = board.contains(document.activeElement) ? document.activeElement.closest("[data-point]") : null;
  const stop = at || points.find((g) => preferred !== undefined && preferred !== null && +g.dataset.point === preferred) || points[0];
  for (const g of points) g.setAttribute("tabindex", g === stop ? "0" : "-1");
  return stop;
}
function walkPoints(board, e) {
  // An arrow key on a point moves the focus (and the Tab stop) to the next or previous point.
  const g = e.target.closest && e.target.closest("[data-point]");
  if (!g || !["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"].includes(e.key)) return false;
  e.preventDefault();
  const p = +g.dataset.point;
  const next = board.querySelector(`g[data-point="${(p + (e.key === "ArrowRight" || e.key === "ArrowUp" ? 1 : 25)) % 26}"]`);
  if (next) { g.setAttribute("tabindex", "-1"); next.setAttribute("tabindex", "0"); next.focus(); }
  return true;
}
