// Light, dark or the system's setting (the default). The choice is kept in this browser; the
// colours are CSS variables chosen by color-scheme (style.css), and the code theme (highlight.js a11y-light or a11y-dark) follows.
import { $ } from "./ui.js";

const KEY = "mnemo.theme";

export function applyTheme(theme) {
  const root = document.documentElement;
  if (theme === "light" || theme === "dark") root.dataset.theme = theme;
  else delete root.dataset.theme;
  const media = { light: ["all", "not all"], dark: ["not all", "all"] }[theme] ||
    ["not all and (prefers-color-scheme: dark)", "(prefers-color-scheme: dark)"];
  $("hl-light").media = media[0];
  $("hl-dark").media = media[1];
}

export function initTheme() {
  const saved = localStorage.getItem(KEY) || "system";
  $("theme").value = saved;
  applyTheme(saved);
  $("theme").addEventListener("change", (e) => {
    try { localStorage.setItem(KEY, e.target.value); } catch (err) { /* only a preference */ }
    applyTheme(e.target.value);
  });
}
