// The conversation's settings form, the server's config (presets, adapters, limits), and the
// API key for servers that need one (kept in this browser, not per conversation).
import { KEY, authHeaders, temperatureOf } from "./chat.js";
import { $, banner, el } from "./ui.js";

export function initSettings(app) {
  let configProblem = false; // the banner shows why the server's config is missing
  async function loadConfig() {
    let problem;
    try {
      const resp = await fetch("/api/config", { headers: authHeaders() });
      if (resp.ok) app.config = await resp.json();
      else problem = resp.status === 401 ? "This server needs an API key: enter it under Settings."
        : "The server is not ready yet; defaults are used until it is.";
    } catch (e) { problem = "The server cannot be reached; your conversations are still here."; }
    if (problem) banner(problem);
    else if (configProblem) $("banner").hidden = true;
    configProblem = Boolean(problem);
  }
  function options(select, names, value, first) {
    select.replaceChildren();
    if (first) select.appendChild(Object.assign(el("option", "", first[1]), { value: first[0] }));
    for (const name of names) select.appendChild(Object.assign(el("option", "", name), { value: name }));
    // a conversation's choice this server does not offer (an adapter no longer served) stays
    // visible, named as such, rather than a blank select: the server's 400 says the same
    if (value && !names.includes(value)) {
      select.appendChild(Object.assign(el("option", "", `${value} (not served here)`), { value }));
    }
    select.value = value;
  }
  // A field being edited keeps what is typed: a re-render (another tab's write, merged while
  // this one streams, every 500 ms) must not put the stored value back under the cursor; the
  // edit is read on its change event.
  const editing = (id) => document.activeElement === $(id);
  function setValue(id, value) {
    if (!editing(id)) $(id).value = value;
  }
  function fillSettings() {
    const s = app.current.settings, c = app.config || {};
    if (!editing("set-template")) {
      options($("set-template"), Object.keys(c.presets || { default: 1 }), s.template || "default");
    }
    if (!editing("set-adapter")) {
      options($("set-adapter"), c.adapters || [], s.adapter || "", ["", "(base model)"]);
    }
    // no adapter served and none chosen: nothing to pick, so no select
    $("set-adapter").closest("label").hidden = !(c.adapters || []).length && !s.adapter;
    setValue("set-max-turns", s.max_turns);
    setValue("set-max-new", s.max_new_tokens);
    const t = temperatureOf(s);
    if (!editing("set-temperature")) {
      $("set-temperature").value = t === null ? "" : t;
      $("set-temperature").setCustomValidity("");
    }
    setValue("set-system", s.system || "");
    setValue("set-apikey", localStorage.getItem(KEY) || "");
  }
  // Only the setting whose input changed is written: the form may hold a stale value of another
  // (a change another tab made while this tab did not re-render), which must not revert it.
  const READERS = {
    "set-template": (s) => { s.template = $("set-template").value; },
    "set-adapter": (s) => { s.adapter = $("set-adapter").value; },
    "set-max-turns": (s) => { s.max_turns = Math.round(num("set-max-turns", s.max_turns)); },
    "set-max-new": (s) => { s.max_new_tokens = Math.round(num("set-max-new", s.max_new_tokens)); },
    "set-temperature": (s) => {
      const input = $("set-temperature"), raw = input.value.trim(), v = Number(raw);
      if (input.validity.badInput || (raw !== "" && !(v >= 0 && v <= 5))) { // "1,5", "7": said, not saved
        input.setCustomValidity("A number from 0 to 5 (0: greedy), or empty for the model's default.");
        input.reportValidity();
        return false;
      }
      input.setCustomValidity("");
      s.temperature = raw === "" ? null : v;
      s.temperature_chosen = true;
    },
    "set-system": (s) => { s.system = $("set-system").value; },
  };
  function num(id, fallback) {
    const v = Number($(id).value);
    return Number.isFinite(v) && v > 0 ? v : fallback;
  }
  function readSettings(event) {
    const read = READERS[event.target.id];
    if (!read) return;
    if (read(app.current.settings) !== false) app.save();
  }

  $("settings").addEventListener("change", readSettings);
  $("set-apikey").addEventListener("change", async (e) => {
    const key = e.target.value.trim();
    if (key) localStorage.setItem(KEY, key); else localStorage.removeItem(KEY);
    await loadConfig();
    if (app.current) fillSettings();
  });
  return { load: loadConfig, fill: fillSettings };
}
