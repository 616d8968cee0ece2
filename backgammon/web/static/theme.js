"use strict";
// The theme the player chose (or the system's), set before the page is drawn.
(function () {
  const saved = localStorage.getItem("bg-theme");
  const dark = saved ? saved === "dark" : matchMedia("(prefers-color-scheme: dark)").matches;
  document.documentElement.dataset.theme = dark ? "dark" : "light";
})();
function setTheme(dark) {
  document.documentElement.dataset.theme = dark ? "dark" : "light";
  localStorage.setItem("bg-theme", dark ? "dark" : "light");
}
