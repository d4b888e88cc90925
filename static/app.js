// The chat page. The browser is the memory: every message is stored before it is sent, and the
// server gets the history of the branch shown each turn. Text is only ever inserted as
// textContent or through the sanitising Markdown renderer.
import * as S from "./store.js";
import * as T from "./tree.js";
import { historyFor, requestBody, streamChat } from "./chat.js";
import { render as markdown } from "./markdown.js";
import { emptyState } from "./empty.js";
import { initMemory } from "./memory.js";
import { fileName, titleFrom } from "./names.js";
import { initSettings } from "./settings.js";
import { initShortcuts } from "./shortcuts.js";
import { initSidebar } from "./sidebar.js";
import { initTheme } from "./theme.js";
import { $, banner, button, download, el, mark } from "./ui.js";

window.MnemoStore = S; // for tests and the curious: the page's storage, as the page uses it

const app = { config: null, current: null, controller: null, running: null, query: "", persisted: null };
let sidebar, memory, settings, storageWarned = false;
const sel = (id) => `.msg[data-id="${CSS.escape(id)}"]`;

// -- conversations -------------------------------------------------------------------------
function defaults() {
  const d = (app.config && app.config.defaults) || { max_new_tokens: 256, max_turns: 10 };
  return { system: "", template: "default", adapter: "", max_turns: d.max_turns,
           max_new_tokens: d.max_new_tokens, temperature: null, compact: true, recall: true };
}
app.save = () => S.write(app.current);
function remember(id) {
  try { localStorage.setItem("mnemo.v1.current", id); } catch (e) { /* only a convenience */ }
}
// This tab's name, kept across its reloads (sessionStorage is per tab): a reply this tab was
// writing when it reloaded is cut, whatever the clock says. A duplicated tab copies the
// sessionStorage of a tab that still runs: only a page that left (pagehide) hands its name on.
const TAB = (() => {
  try {
    let id = sessionStorage.getItem("mnemo.tab");
    if (!id || sessionStorage.getItem("mnemo.tab.left") !== id) sessionStorage.setItem("mnemo.tab", id = S.newId());
    sessionStorage.removeItem("mnemo.tab.left");
    addEventListener("pagehide", () => sessionStorage.setItem("mnemo.tab.left", id));
    addEventListener("pageshow", (e) => { if (e.persisted) sessionStorage.removeItem("mnemo.tab.left"); });
    return id;
  } catch (e) { return S.newId(); }
})();
// A page that is going (a reload, a closed tab) saves a reply it is writing as it stands; the
// stream's "network error" that follows is no failure of the reply's.
// beforeunload comes before the browser cancels the page's requests (pagehide comes after);
// a page that stays after all (a cancelled navigation) counts failures again 2 s later.
let leaving = false;
addEventListener("beforeunload", () => {
  leaving = true;
  setTimeout(() => { leaving = false; }, 2000);
  if (app.controller && app.current) S.write(app.current);
});
// A reply left "streaming" or a message left "pending" by a page that was closed, reloaded or
// crashed mid-reply. Another tab may still be writing one (it saves every 2 s): a reply from
// another tab counts as cut once its conversation has not been saved for 10 s.
function settle(conv) {
  const quiet = Date.now() - (conv.updated || 0) >= 10000;
  const mine = (m) => m.tab === TAB; // written by this tab before it reloaded
  for (const m of conv.messages) if (m.status === "streaming" && (quiet || mine(m))) m.status = "stopped";
  for (const m of conv.messages) {
    if (m.status !== "pending") continue;
    const replies = T.children(conv, m.id).filter((r) => r.role === "assistant");
    if (replies.some((r) => r.content && r.status !== "streaming")) m.status = "ok";
    else if (quiet || replies.some(mine)) { m.status = "failed"; m.error = "the page was closed before the reply came"; }
  }
}
// Open a conversation; with ``messageId`` (a search hit), show the branch that holds it. A reply
// being written elsewhere is stopped first, and saved, before anything is read.
app.open = async (id, messageId) => {
  if (app.current && id === app.current.id) {
    if (messageId && !T.path(app.current).some((m) => m.id === messageId) && !app.controller) {
      T.select(app.current, messageId);
      app.save();
    }
    app.render();
    return;
  }
  if (app.controller) { app.stop(); await app.running; }
  const conv = S.load(id);
  if (!conv) return;
  settle(conv);
  if (conv.messages.some((m) => m.status === "streaming" || m.status === "pending")) { // another tab's? look again
    setTimeout(() => {
      if (app.current !== conv || app.controller) return;
      settle(conv);
      if (!conv.messages.some((m) => m.status === "streaming" || m.status === "pending")) {
        S.write(conv, { keepTime: true });
        app.render();
      }
    }, 10500);
  }
  if (messageId && !T.path(conv).some((m) => m.id === messageId)) T.select(conv, messageId);
  conv.used = Date.now();
  S.write(conv, { keepTime: true });
  app.current = conv;
  remember(id);
  app.render();
};
app.newConversation = async () => {
  // An empty conversation this tab just made is reused rather than piled up.
  if (app.current && app.current.id === app.fresh && !app.current.messages.length) { $("input").focus(); return; }
  if (app.controller) { app.stop(); await app.running; }
  app.current = S.create(defaults());
  app.fresh = app.current.id;
  app.save();
  remember(app.current.id);
  app.render();
  $("input").focus();
};
const exportAll = () => download("mnemo-conversations.json", S.exportAll());

S.onError((kind, detail) => {
  if (kind === "merged") { if (detail === app.current && !document.querySelector(".edit-box")) app.render(); return; }
  if (kind === "gone") {
    banner(`"${detail.title}" was deleted in another tab; what this tab added is not saved.`,
           [["Keep it", () => { if (S.write(detail, { restore: true })) app.open(detail.id); }]]);
    return;
  }
  storageWarned = true; // this message stays: the warning about filling up would hide it
  banner(kind === "quota" ? "Browser storage is full: this change was not saved. Export your conversations, then delete some."
    : "Could not save to browser storage.", [["Export all conversations", exportAll]]);
});

// Used space against the quota, asked-for persistence, and a warning well before it is full.
function showStorage() {
  const u = S.usage(), mb = (chars) => (chars * 2 / 1048576).toFixed(chars * 2 < 1048576 ? 2 : 1);
  const kept = app.persisted === true ? "kept persistently" : "not persistent, so export what matters";
  const pct = u.fraction < 0.01 ? "under 1 %" : `${Math.round(u.fraction * 100)} %`;
  $("storage").textContent = `Storage: ${mb(u.chars)} MB of about ${mb(u.quota)} MB used (${pct}); ${kept}.`;
  if (u.fraction >= 0.8 && !storageWarned) {
    storageWarned = true;
    banner(`Browser storage is ${Math.round(u.fraction * 100)} % full. Export your conversations and delete old ones before it fills.`,
           [["Export all conversations", exportAll]]);
  }
}

// -- messages ------------------------------------------------------------------------------
// The element with focus, as something that survives a re-render: its message (by id, else by
// place: a version switch shows another message there) and its label.
function focusKey() {
  const a = document.activeElement, msg = a && a.closest && a.closest(".msg");
  if (!msg || (a.tagName !== "BUTTON" && !a.classList.contains("edit-box"))) return null;
  const label = a.tagName === "BUTTON" ? a.getAttribute("aria-label") || a.textContent : "Edit";
  return { id: msg.dataset.id, at: [...msg.parentNode.children].indexOf(msg), label };
}
const SWAPS = [["Previous version", "Next version"], ["Pin", "Unpin"]]; // one control, two labels
function refocus(key) {
  if (!key) return;
  const msg = document.querySelector(sel(key.id)) || $("messages").children[key.at];
  const buttons = msg ? [...msg.querySelectorAll("button")].filter((b) => !b.disabled) : [];
  const label = (b) => b.getAttribute("aria-label") || b.textContent;
  const pair = SWAPS.find((p) => p.includes(key.label)) || [];
  (buttons.find((b) => label(b) === key.label) || buttons.find((b) => pair.includes(label(b))) ||
   buttons[0] || $("input")).focus();
}
app.render = () => {
  const conv = app.current, focus = focusKey();
  $("conv-title").textContent = conv.title;
  document.title = `${conv.title} · Mnemo`;
  settings.fill();
  memory.fill();
  sidebar.renderList();
  showStorage();
  const box = $("messages"), shown = T.path(conv);
  box.replaceChildren(...shown.map((m, i) => renderMessage(m, i === shown.length - 1)));
  if (!shown.length) box.appendChild(emptyState(app.config && app.config.model));
  const first = app.query && mark(box, app.query) ? box.querySelector("mark") : null;
  if (first) first.scrollIntoView({ block: "center" });
  else box.scrollTop = box.scrollHeight;
  refocus(focus);
};

function renderMessage(m, last) {
  const div = el("article", `msg ${m.role}${m.status === "failed" ? " failed" : ""}${m.pinned ? " pinned" : ""}`);
  div.dataset.id = m.id;
  div.setAttribute("aria-label", m.role === "user" ? "You" : "Assistant");
  if (m.status === "streaming") div.setAttribute("aria-busy", "true");
  const body = el("div", "body");
  if (m.role === "assistant") body.appendChild(markdown(m.content));
  else body.textContent = m.content;
  div.appendChild(body);
  const meta = el("div", "meta");
  const versions = T.versions(app.current, m);
  if (versions.length > 1) {
    const k = versions.indexOf(m), nav = el("span", "versions");
    nav.setAttribute("role", "group");
    nav.setAttribute("aria-label", `Version ${k + 1} of ${versions.length}`);
    const busy = Boolean(app.controller); // the branch being written stays shown
    button(nav, "<", () => switchTo(versions[k - 1]), "Previous version").disabled = busy || k === 0;
    nav.appendChild(el("span", "", `${k + 1}/${versions.length}`));
    button(nav, ">", () => switchTo(versions[k + 1]), "Next version").disabled = busy || k === versions.length - 1;
    meta.appendChild(nav);
  }
  if (m.status === "failed") {
    meta.appendChild(el("span", "error", "Failed: " + (m.error || "unknown error")));
    if (m.role === "user") button(meta, "Retry", () => retry(m));
    else if (last) button(meta, "Retry", regenerate);
  }
  if (m.status === "stopped") meta.appendChild(el("span", "cut", "cut short: stopped or interrupted"));
  if (m.pinned) meta.appendChild(el("span", "pin-mark", "pinned"));
  if (m.report) meta.appendChild(report(m.report, meta));
  if (m.compaction && m.compaction.status === "failed") {
    meta.appendChild(el("span", "warn", "summary failed: " + m.compaction.reason));
  }
  if (m.finish_reason === "length" && m.status === "ok") meta.appendChild(el("span", "warn cut", "cut at the token limit"));
  if (m.role === "assistant" && last && m.content.trim() &&
      ((m.finish_reason === "length" && m.status === "ok") || m.status === "stopped")) {
    button(meta, "Continue", () => generate(m.parent, m), "Continue this reply");
  }
  const actions = el("span", "actions"); // shown on hover and focus
  actions.setAttribute("role", "group");
  actions.setAttribute("aria-label", "Message actions");
  button(actions, "Copy", () => copy(m.content), "Copy message");
  if (m.role === "user" && m.status !== "failed") button(actions, "Edit", () => edit(m, div)).disabled = Boolean(app.controller);
  if (m.status !== "failed" && m.status !== "streaming") button(actions, m.pinned ? "Unpin" : "Pin", () => togglePin(m));
  if (m.role === "assistant" && last && m.status !== "failed") button(actions, "Regenerate", regenerate);
  if (m.usage) {
    actions.appendChild(el("span", "usage", `tokens: ${m.usage.prompt_tokens} in, ${m.usage.completion_tokens} out`));
  }
  meta.appendChild(actions);
  div.appendChild(meta);
  return div;
}
function report(r, meta) {
  const parts = [`history: ${r.used}/${r.received} messages used`];
  if (r.pinned && r.pinned.length) parts.push(`${r.pinned.length} pinned`);
  if (r.recalled && r.recalled.length) parts.push(`${r.recalled.length} recalled`);
  if (r.summarised) parts.push(`${r.summarised} summarised`);
  const lost = r.lost !== undefined ? r.lost : r.dropped;
  if (lost) meta.appendChild(el("span", "warn lost", `${lost} older message(s) not seen by the model and in no summary`));
  return el("span", "report", parts.join(", "));
}

function setBusy(busy) {
  $("stop").hidden = !busy;
  $("send").disabled = busy;
}
app.busy = () => Boolean(app.controller);
app.stop = () => { if (app.controller) app.controller.abort(); };
function announce(text) { $("announce").textContent = text; }
async function copy(text) {
  try { await navigator.clipboard.writeText(text); announce("Copied."); }
  catch (e) { banner("The browser did not allow copying."); }
}
function switchTo(m) {
  if (app.controller || !m) return;
  T.select(app.current, m.id);
  app.save();
  app.render();
}

async function send(text) {
  if (app.controller) return;
  const conv = app.current, title = conv.title;
  const user = T.add(conv, conv.leaf, { id: S.newId(), role: "user", content: text, status: "pending" });
  if (conv.title === "New chat") conv.title = titleFrom(text);
  if (!app.save()) { T.drop(conv, user.id); conv.title = title; return false; } // keep it in the input box
  app.render();
  await generate(user.id);
  return true;
}

// Ask for a reply to ``userId`` (a new version when it has one already), or, with ``cont``,
// continue that reply where the token limit cut it.
function generate(userId, cont) {
  if (app.controller) return null;
  app.running = reply(userId, cont);
  return app.running;
}
async function reply(userId, cont) {
  const conv = app.current, user = T.byId(conv, userId), shownBefore = conv.leaf;
  const earlier = T.children(conv, userId).filter((m) => m.role === "assistant" && m !== cont);
  const reply = cont || T.addReply(conv, userId, { id: S.newId(), role: "assistant", content: "", status: "streaming", tab: TAB });
  const before = reply.content, history = historyFor(conv, cont ? reply.id : userId, app.config);
  const body = requestBody(conv, history);
  if (cont) body.continue = true;
  reply.status = "streaming";
  reply.tab = TAB;
  app.controller = new AbortController();
  setBusy(true);
  S.write(conv); // saved before the wait for the first token, and every 2 s while it lasts
  const beat = setInterval(() => S.write(conv), 2000);
  app.render();
  let failure = null, lastSave = 0, frame = 0;
  const paint = () => {
    frame = 0;
    const node = app.current === conv && document.querySelector(`${sel(reply.id)} .body`);
    if (node) node.replaceChildren(markdown(reply.content)); // this reply only, once a frame
  };
  try {
    const data = await streamChat(body, app.controller.signal, (text) => {
      reply.content += text;
      if (!frame) frame = requestAnimationFrame(paint);
      if (Date.now() - lastSave > 500) { S.write(conv); lastSave = Date.now(); }
    });
    reply.content = before + data.message.content;
    reply.report = data.history;
    if (cont && reply.usage) {
      const out = reply.usage.completion_tokens + data.usage.completion_tokens;
      reply.usage = { ...data.usage, completion_tokens: out, total_tokens: data.usage.prompt_tokens + out };
    } else reply.usage = data.usage;
    reply.finish_reason = data.finish_reason;
    reply.status = "ok";
    user.status = "ok";
    delete user.error;
    if (data.compaction && data.compaction.status === "failed") reply.compaction = data.compaction;
    if (data.summary) {
      conv.summary = { text: data.summary.text, signature: data.summary.signature,
                       next_id: history.ids[data.summary.covers] || null,
                       kept_ids: (data.summary.kept || []).map((i) => history.ids[i]), updated: Date.now() };
    }
    announce("Assistant: " + reply.content);
  } catch (err) {
    if (err.name === "AbortError") { reply.status = "stopped"; user.status = "ok"; announce("Stopped."); }
    // a page that is going: the reply stays "streaming", marked cut at the next load
    else if (!leaving) failure = err.message || String(err);
  }
  if (frame) cancelAnimationFrame(frame);
  clearInterval(beat);
  if (failure !== null) {
    announce("Failed: " + failure);
    if (cont) { reply.status = reply.content === before ? "ok" : "stopped"; banner("Continuing failed: " + failure); }
    else if (reply.content) {
      reply.status = "failed"; reply.error = failure;
      if (!earlier.length) { user.status = "failed"; user.error = failure; }
    } else {
      T.drop(conv, reply.id);
      if (earlier.length) { conv.leaf = shownBefore; banner("A new reply failed: " + failure); }
      else { user.status = "failed"; user.error = failure; }
    }
  }
  app.controller = null;
  setBusy(false);
  S.write(conv);
  if (app.current === conv) app.render();
}

async function retry(user) {
  // Drop a failed partial reply, if any, and send the very same message again.
  for (const m of T.children(app.current, user.id)) if (m.status === "failed" && m.role === "assistant") T.drop(app.current, m.id);
  user.status = "pending";
  delete user.error;
  app.save();
  await generate(user.id);
}
async function regenerate() {
  const shown = T.path(app.current), last = shown[shown.length - 1];
  if (app.controller || !last || last.role !== "assistant" || document.querySelector(".edit-box")) return;
  if (last.status === "failed") T.drop(app.current, last.id); // a failed version is not worth keeping
  await generate(last.parent); // a new version: the old reply stays, one click away
}
app.regenerate = regenerate;
app.copyLast = () => {
  const reply = T.path(app.current).filter((m) => m.role === "assistant").pop();
  if (reply) copy(reply.content);
};

// Edit in place: saving adds a new version of the message (the old one and its replies stay).
function edit(m, div) {
  if (app.controller) return;
  const body = div.querySelector(".body"), box = el("textarea", "edit-box");
  box.value = m.content;
  box.setAttribute("aria-label", "Edit your message");
  box.rows = Math.min(12, m.content.split("\n").length + 1);
  const bar = el("div", "edit-bar");
  const done = async () => {
    const text = box.value;
    if (!text.trim() || app.controller) return;
    if (text === m.content) { app.render(); return; }
    const leaf = app.current.leaf;
    const user = T.add(app.current, m.parent, { id: S.newId(), role: "user", content: text, status: "pending" });
    if (!app.save()) { T.drop(app.current, user.id); app.current.leaf = leaf; return; }
    app.render();
    await generate(user.id);
  };
  button(bar, "Save and send", done);
  button(bar, "Cancel", () => app.render());
  box.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing && e.keyCode !== 229) { e.preventDefault(); done(); }
    else if (e.key === "Escape" && !e.shiftKey) { e.preventDefault(); e.stopPropagation(); app.render(); }
  });
  body.replaceChildren(box, bar);
  box.focus();
}
app.editLast = () => {
  const user = T.path(app.current).filter((m) => m.role === "user" && m.status !== "failed").pop();
  const div = user && document.querySelector(sel(user.id));
  if (div && !document.querySelector(".edit-box")) edit(user, div);
};

function togglePin(m) {
  m.pinned = !m.pinned;
  if (!m.pinned) delete m.pinned;
  app.save();
  app.render();
}

// -- wiring --------------------------------------------------------------------------------
// On a phone the conversation list is a drawer: it takes focus when it opens, Esc closes it,
// and focus goes back to the button that opened it.
const drawer = () => matchMedia("(max-width: 700px)").matches;
app.showSidebar = (focus) => {
  document.body.classList.add("sidebar-open");
  if (drawer()) document.querySelector("main").inert = true; // focus stays in the drawer
  $("show-sidebar").setAttribute("aria-expanded", "true");
  (focus || $("search")).focus();
};
app.hideSidebar = () => {
  if (!document.body.classList.contains("sidebar-open")) return;
  document.body.classList.remove("sidebar-open");
  document.querySelector("main").inert = false;
  $("show-sidebar").setAttribute("aria-expanded", "false");
  if (drawer()) $("show-sidebar").focus();
};

function wire() {
  $("composer").addEventListener("submit", async (e) => {
    e.preventDefault();
    const text = $("input").value;
    if (!text.trim() || app.controller) return;
    $("input").value = ""; // a second Enter while this one waits sends nothing
    let sent = false;
    try {
      await app.ready; // typed before the page finished loading: sent once it has
      sent = (await send(text)) !== false;
    } finally {
      if (!sent && !$("input").value) $("input").value = text; // never lost
    }
  });
  $("input").addEventListener("keydown", (e) => {
    // Enter during IME composition (Chinese input) confirms the candidate, it does not send.
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
      e.preventDefault();
      $("composer").requestSubmit();
    }
  });
  $("messages").addEventListener("click", (e) => {
    const btn = e.target.closest(".copy-code");
    if (btn) copy(btn.closest(".code-block").querySelector("pre").textContent);
  });
  $("stop").onclick = app.stop;
  $("new-conv").onclick = app.newConversation;
  $("rename-conv").onclick = () => sidebar.rename(app.current.id);
  $("delete-conv").onclick = () => sidebar.remove(app.current.id);
  $("export-json").onclick = () => { closeMenu(true); download(fileName(app.current, "json"), app.current); };
  $("export-md").onclick = () => { closeMenu(true); download(fileName(app.current, "md"),
    `# ${app.current.title}\n\n` + T.path(app.current).map((m) => `**${m.role}:**\n\n${m.content}\n`).join("\n"),
    "text/markdown"); };
  // The Export menu closes on a choice (focus back on its button), Escape, a click elsewhere
  // and a Tab out of it.
  const closeMenu = (refocus) => {
    $("export-menu").open = false;
    if (refocus) $("export-menu").querySelector("summary").focus();
  };
  $("export-menu").addEventListener("keydown", (e) => {
    if (e.key === "Escape" && $("export-menu").open) { e.stopPropagation(); closeMenu(true); }
  });
  $("export-menu").addEventListener("focusout", (e) => {
    if (e.relatedTarget && !$("export-menu").contains(e.relatedTarget)) closeMenu();
  });
  document.addEventListener("click", (e) => { if (!e.target.closest("#export-menu")) closeMenu(); });
  $("export-all").onclick = exportAll;
  $("import-label").addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") { e.preventDefault(); $("import-file").click(); }
  });
  $("import-file").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    try {
      const n = S.importData(JSON.parse(await file.text()));
      banner(`Imported ${n.imported} conversation(s)` + (n.same ? `; ${n.same} already here unchanged.` : "."));
    }
    catch (err) { banner("Import failed: " + err.message); }
    e.target.value = "";
    sidebar.renderList();
  });
  for (const [button, panel] of [["toggle-settings", "settings"], ["toggle-memory", "memory"]]) {
    $(button).onclick = () => {
      $(panel).hidden = !$(panel).hidden;
      $(button).setAttribute("aria-expanded", String(!$(panel).hidden));
    };
  }
  $("show-sidebar").onclick = () => app.showSidebar();
  $("toggle-sidebar").onclick = app.hideSidebar;
  $("sidebar").addEventListener("keydown", (e) => {
    if (e.key === "Escape" && !e.shiftKey && drawer()) { e.stopPropagation(); app.hideSidebar(); }
  });
  // Another tab changed a conversation: refresh the list, and merge it into the open one (even
  // while this tab streams into it: that tab may have written from a stale copy of this one).
  window.addEventListener("storage", (e) => {
    if (!e.key || !e.key.startsWith(S.PREFIX)) return;
    const id = e.key.slice(S.PREFIX.length);
    if (app.current && id === app.current.id) {
      if (e.newValue === null && !app.controller) {
        const rest = S.list();
        if (rest.length) app.open(rest[0].id); else app.newConversation();
        return;
      }
      if (S.absorb(app.current) && !document.querySelector(".edit-box")) app.render();
    }
    sidebar.renderList();
    showStorage();
  });
}

async function start() {
  S.migrate();
  initTheme();
  settings = initSettings(app);
  sidebar = initSidebar(app);
  memory = initMemory(app);
  initShortcuts(app);
  app.ready = openLast(); // the server's config and the last conversation
  wire();
  // Ask the browser not to evict these conversations under storage pressure.
  if (navigator.storage && navigator.storage.persist) {
    navigator.storage.persist().then((granted) => {
      app.persisted = window.mnemoPersisted = granted;
      if (app.current) showStorage();
    }, () => {});
  }
  await app.ready;
}
async function openLast() {
  await settings.load();
  const last = localStorage.getItem("mnemo.v1.current");
  const convs = S.list();
  if (last && S.read(last)) await app.open(last);
  else if (convs.length) await app.open(convs[0].id);
  else await app.newConversation();
}
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
