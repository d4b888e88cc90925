// The chat page. The browser is the memory: every message is stored before it is sent, and the
// server gets the trimmed history each turn. Text is only ever inserted as textContent.
"use strict";
(function () {
  const S = window.MnemoStore, MD = window.MnemoMarkdown;
  const $ = (id) => document.getElementById(id);
  let config = null, current = null, controller = null;

  // -- helpers -------------------------------------------------------------------------
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function banner(text, withExport) {
    const b = $("banner");
    b.replaceChildren(el("span", "", text));
    if (withExport) {
      const btn = el("button", "", "Export all conversations");
      btn.type = "button"; btn.onclick = () => download("mnemo-conversations.json", S.exportAll());
      b.appendChild(btn);
    }
    const close = el("button", "", "×"); close.type = "button"; close.onclick = () => { b.hidden = true; };
    b.appendChild(close);
    b.hidden = false;
  }
  function download(name, data, type) {
    const blob = new Blob([typeof data === "string" ? data : JSON.stringify(data, null, 2)],
                          { type: type || "application/json" });
    const a = el("a"); a.href = URL.createObjectURL(blob); a.download = name;
    document.body.appendChild(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }
  function defaults() {
    const d = (config && config.defaults) || { max_new_tokens: 256, max_turns: 10 };
    return { system: "", template: "default", adapter: "", max_turns: d.max_turns,
             max_new_tokens: d.max_new_tokens, temperature: 0, compact: true, recall: false };
  }
  function save() { return S.write(current); }
  function remember(id) {
    try { localStorage.setItem("mnemo.v1.current", id); } catch (e) { /* only a convenience */ }
  }

  S.onError((kind) => {
    if (kind === "quota") banner("Browser storage is full: this change was not saved. Export your conversations, then delete some.", true);
    else banner("Could not save to browser storage.", true);
  });

  // -- sidebar -------------------------------------------------------------------------
  function renderList() {
    const ul = $("conv-list");
    ul.replaceChildren();
    for (const conv of S.list()) {
      const li = el("li", conv.id === current.id ? "active" : "", conv.title);
      li.dataset.id = conv.id;
      li.onclick = () => { open(conv.id); document.body.classList.remove("sidebar-open"); };
      ul.appendChild(li);
    }
  }
  function open(id) {
    const conv = S.read(id);
    if (!conv) return;
    current = conv;
    remember(id);
    render();
  }
  function newConversation() {
    current = S.create(defaults());
    save();
    remember(current.id);
    render();
  }

  // -- settings ------------------------------------------------------------------------
  const KEY = "mnemo.v1.apikey"; // one key for the server, not per conversation
  function authHeaders() {
    const key = localStorage.getItem(KEY);
    return key ? { Authorization: "Bearer " + key } : {};
  }
  let configProblem = false; // the banner shows why the server's config is missing
  async function loadConfig() {
    let problem;
    try {
      const resp = await fetch("/api/config", { headers: authHeaders() });
      if (resp.ok) config = await resp.json();
      else problem = resp.status === 401 ? "This server needs an API key: enter it under Settings."
        : "The server is not ready yet; defaults are used until it is.";
    } catch (e) { problem = "The server cannot be reached; your conversations are still here."; }
    if (problem) banner(problem);
    else if (configProblem) $("banner").hidden = true;
    configProblem = Boolean(problem);
  }
  function fillSettings() {
    const s = current.settings;
    const tpl = $("set-template"); tpl.replaceChildren();
    for (const name of Object.keys((config && config.presets) || { default: 1 })) {
      const o = el("option", "", name); o.value = name; tpl.appendChild(o);
    }
    tpl.value = s.template || "default";
    const ad = $("set-adapter"); ad.replaceChildren();
    const none = el("option", "", "(base model)"); none.value = ""; ad.appendChild(none);
    for (const name of (config && config.adapters) || []) {
      const o = el("option", "", name); o.value = name; ad.appendChild(o);
    }
    ad.value = s.adapter || "";
    $("set-max-turns").value = s.max_turns;
    $("set-max-new").value = s.max_new_tokens;
    $("set-temperature").value = s.temperature;
    $("set-system").value = s.system || "";
    $("set-apikey").value = localStorage.getItem(KEY) || "";
  }
  function readSettings() {
    const num = (id, fallback) => { const v = Number($(id).value); return Number.isFinite(v) && v > 0 ? v : fallback; };
    const s = current.settings;
    s.template = $("set-template").value;
    s.adapter = $("set-adapter").value;
    s.max_turns = Math.round(num("set-max-turns", s.max_turns));
    s.max_new_tokens = Math.round(num("set-max-new", s.max_new_tokens));
    s.temperature = Math.max(0, Number($("set-temperature").value) || 0);
    s.system = $("set-system").value;
    save();
  }

  // -- messages ------------------------------------------------------------------------
  function render() {
    $("conv-title").textContent = current.title;
    fillSettings();
    fillMemory();
    renderList();
    const box = $("messages");
    box.replaceChildren();
    current.messages.forEach((m, i) => box.appendChild(renderMessage(m, i)));
    box.scrollTop = box.scrollHeight;
  }
  function renderMessage(m, index) {
    const div = el("div", "msg " + m.role + (m.status === "failed" ? " failed" : "") +
                   (m.pinned ? " pinned" : ""));
    div.dataset.index = index;
    const body = el("div", "body");
    if (m.role === "assistant") body.appendChild(MD.render(m.content));
    else body.textContent = m.content;
    div.appendChild(body);
    const meta = el("div", "meta");
    if (m.status === "failed") {
      meta.appendChild(el("span", "error", "Failed: " + (m.error || "unknown error")));
      if (m.role === "user") addButton(meta, "Retry", () => retry(index));
    }
    if (m.status === "stopped") meta.appendChild(el("span", "", "stopped"));
    if (m.pinned) meta.appendChild(el("span", "pin-mark", "📌 pinned"));
    if (m.report) {
      const r = m.report, parts = [`history: ${r.used}/${r.received} messages used`];
      if (r.pinned && r.pinned.length) parts.push(`${r.pinned.length} pinned`);
      if (r.recalled && r.recalled.length) parts.push(`${r.recalled.length} recalled`);
      if (r.summarised) parts.push(`${r.summarised} summarised`);
      meta.appendChild(el("span", "report", parts.join(", ")));
      const lost = r.lost !== undefined ? r.lost : r.dropped;
      if (lost) meta.appendChild(el("span", "warn lost", `${lost} older message(s) not seen by the model and in no summary`));
    }
    if (m.compaction && m.compaction.status === "failed") {
      meta.appendChild(el("span", "warn", "summary failed: " + m.compaction.reason));
    }
    if (m.usage) {
      meta.appendChild(el("span", "usage",
        `tokens: ${m.usage.prompt_tokens} in, ${m.usage.completion_tokens} out`));
    }
    addButton(meta, "Copy", () => navigator.clipboard && navigator.clipboard.writeText(m.content));
    if (m.role === "user" && m.status !== "failed") addButton(meta, "Edit", () => edit(index));
    if (m.status !== "failed" && m.status !== "streaming") {
      addButton(meta, m.pinned ? "Unpin" : "Pin", () => togglePin(index));
    }
    if (m.role === "assistant" && index === current.messages.length - 1) addButton(meta, "Regenerate", regenerate);
    div.appendChild(meta);
    return div;
  }
  function addButton(parent, label, fn) {
    const b = el("button", "", label); b.type = "button"; b.onclick = fn; parent.appendChild(b);
  }

  // The history the model may see: every message but failed exchanges (the server trims it,
  // keeps pins, places the summary and says what it dropped). ``ids`` maps the list back to
  // stored messages, so a summary's ``covers`` can follow the messages it stands in for.
  function historyFor(upTo, conv) {
    conv = conv || current;
    const kept = conv.messages.slice(0, upTo + 1).filter((m) => m.status !== "failed" && m.content.trim());
    const limit = (config && config.limits && config.limits.max_messages) || 2000;
    const sent = kept.slice(Math.max(0, kept.length - limit));
    return { ids: sent.map((m) => m.id),
             messages: sent.map((m) => (m.pinned ? { role: m.role, content: m.content, pinned: true }
                                                  : { role: m.role, content: m.content })) };
  }

  // The stored summary, with covers counted in this request's list (null when the messages
  // it covered are no longer the leading ones).
  function summaryFor(ids, conv) {
    const sum = (conv || current).summary;
    if (!sum || !sum.text || !sum.text.trim()) return null;
    const covers = sum.next_id ? ids.indexOf(sum.next_id) : 0;
    if (covers < 0) return null;
    // Messages the summary left out (pinned when it was made), by id: they stay verbatim.
    const kept = (sum.kept_ids || []).map((id) => ids.indexOf(id)).filter((i) => i >= 0 && i < covers);
    return { text: sum.text, covers, kept, signature: sum.signature || null };
  }

  function requestBody(history, conv) {
    conv = conv || current;
    const s = conv.settings;
    const body = { messages: history.messages, stream: true, conversation_id: conv.id,
                   max_turns: s.max_turns, max_new_tokens: s.max_new_tokens,
                   compact: s.compact !== false };
    if (s.recall) body.recall = true;
    const summary = summaryFor(history.ids, conv);
    if (summary) body.summary = summary;
    if (s.system && s.system.trim()) body.system = s.system;
    if (s.template && s.template !== "default") body.template = s.template;
    if (s.adapter) body.adapter = s.adapter;
    if (s.temperature > 0) { body.do_sample = true; body.temperature = s.temperature; }
    return body;
  }

  async function send(text) {
    if (controller) return;
    current.messages.push({ id: S.newId(), role: "user", content: text, status: "pending" });
    if (current.title === "New chat") current.title = text.slice(0, 40);
    if (!save()) { current.messages.pop(); return false; } // keep it in the input box
    render();
    await generate(current.messages.length - 1);
    return true;
  }

  async function generate(userIndex) {
    const conv = current, user = conv.messages[userIndex];
    const reply = { id: S.newId(), role: "assistant", content: "", status: "streaming" };
    conv.messages.splice(userIndex + 1, 0, reply);
    controller = new AbortController();
    $("stop").hidden = false; $("send").disabled = true;
    render();
    const node = () => document.querySelector(`.msg[data-index="${userIndex + 1}"] .body`);
    let failure = null, lastSave = 0;
    try {
      const headers = { "Content-Type": "application/json", ...authHeaders() };
      const history = historyFor(userIndex, conv);
      const resp = await fetch("/api/chat", { method: "POST", headers, signal: controller.signal,
                                              body: JSON.stringify(requestBody(history, conv)) });
      if (!resp.ok) {
        let message = `HTTP ${resp.status}`;
        try { message = (await resp.json()).error.message || message; } catch (e) { /* not JSON */ }
        throw new Error(message);
      }
      const reader = resp.body.getReader(), decoder = new TextDecoder();
      let buffer = "", done = false;
      while (!done) {
        const chunk = await reader.read();
        if (chunk.done) break;
        buffer += decoder.decode(chunk.value, { stream: true });
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut); buffer = buffer.slice(cut + 2);
          const name = (/^event: (.*)$/m.exec(block) || [])[1];
          const data = JSON.parse((/^data: (.*)$/m.exec(block) || [])[1] || "null");
          if (name === "delta") {
            reply.content += data.content;
            const n = node(); if (n) n.replaceChildren(MD.render(reply.content));
            if (Date.now() - lastSave > 500) { save(); lastSave = Date.now(); }
          } else if (name === "done") {
            reply.content = data.message.content; reply.report = data.history; reply.usage = data.usage;
            reply.finish_reason = data.finish_reason; reply.status = "ok"; user.status = "ok"; done = true;
            if (data.compaction && data.compaction.status === "failed") reply.compaction = data.compaction;
            if (data.summary) {
              conv.summary = { text: data.summary.text, signature: data.summary.signature,
                               next_id: history.ids[data.summary.covers] || null,
                               kept_ids: (data.summary.kept || []).map((i) => history.ids[i]),
                               updated: Date.now() };
            }
          } else if (name === "error") {
            throw new Error(data.error.message);
          }
        }
      }
      if (!done) throw new Error("the connection closed before the answer finished");
    } catch (err) {
      if (err.name === "AbortError") {
        reply.status = "stopped"; user.status = "ok";
      } else {
        failure = err.message || String(err);
      }
    }
    if (failure !== null) {
      user.status = "failed"; user.error = failure;
      if (reply.content) { reply.status = "failed"; reply.error = failure; }
      else conv.messages.splice(userIndex + 1, 1);
    }
    controller = null;
    $("stop").hidden = true; $("send").disabled = false;
    S.write(conv);
    if (current.id === conv.id) render();
  }

  async function retry(index) {
    const user = current.messages[index];
    // Drop the failed partial reply, if any, and resend the very same user message.
    if (current.messages[index + 1] && current.messages[index + 1].role === "assistant" &&
        current.messages[index + 1].status === "failed") current.messages.splice(index + 1, 1);
    user.status = "pending"; delete user.error;
    save();
    await generate(index);
  }
  async function regenerate() {
    const last = current.messages.length - 1;
    if (controller || last < 1 || current.messages[last].role !== "assistant") return;
    current.messages.pop();
    save();
    await generate(last - 1);
  }
  function edit(index) {
    const m = current.messages[index];
    const text = prompt("Edit your message (later messages will be replaced):", m.content);
    if (text === null || !text.trim()) return;
    current.messages = current.messages.slice(0, index);
    save();
    send(text);
  }

  function togglePin(index) {
    const m = current.messages[index];
    m.pinned = !m.pinned;
    if (!m.pinned) delete m.pinned;
    save(); render();
  }

  // -- memory panel ----------------------------------------------------------------------
  function fillMemory() {
    const s = current.settings, sum = current.summary;
    $("mem-compact").checked = s.compact !== false;
    $("mem-recall").checked = Boolean(s.recall);
    const box = $("mem-summary-text");
    if (!box.readOnly) return; // being edited: leave the user's text alone
    box.value = sum ? sum.text : "";
    const state = $("mem-summary-state");
    state.className = sum && !sum.signature ? "unsigned" : "";
    state.textContent = !sum ? "(none)" : sum.signature ? "(written by the server, signed)"
      : "(edited: unsigned, sent as plain context)";
  }
  function editSummary() {
    const box = $("mem-summary-text");
    box.readOnly = false; box.focus();
    $("mem-edit").hidden = true; $("mem-save").hidden = false;
  }
  function saveSummary() {
    const box = $("mem-summary-text"), text = box.value;
    box.readOnly = true; $("mem-edit").hidden = false; $("mem-save").hidden = true;
    if (!text.trim()) { delete current.summary; }
    else if (!current.summary || text !== current.summary.text) {
      // An edited summary loses the server's signature: it is sent as plain context.
      current.summary = { ...(current.summary || { next_id: null }), text, signature: null, edited: true,
                          updated: Date.now() };
    }
    save(); fillMemory();
  }
  function clearSummary() {
    if (!current.summary) return;
    if (!confirm("Clear this conversation's summary? Messages it covered are still stored here.")) return;
    delete current.summary;
    $("mem-summary-text").readOnly = true; $("mem-edit").hidden = false; $("mem-save").hidden = true;
    save(); fillMemory();
  }
  async function previewPlan() {
    const out = $("mem-plan");
    const draft = $("input").value.trim() || "(your next message)";
    const history = historyFor(current.messages.length - 1);
    history.messages.push({ role: "user", content: draft });
    history.ids.push(null);
    if (history.messages.length > 1 && history.messages[history.messages.length - 2].role === "user" &&
        current.messages.length && current.messages[current.messages.length - 1].status === "failed") {
      history.messages.splice(-2, 1); history.ids.splice(-2, 1);
    }
    const body = requestBody(history);
    delete body.stream; delete body.compact;
    out.textContent = "Asking the server…";
    try {
      const resp = await fetch("/api/chat/preview", { method: "POST", body: JSON.stringify(body),
        headers: { "Content-Type": "application/json", ...authHeaders() } });
      const data = await resp.json();
      if (!resp.ok) { out.textContent = "Preview failed: " + data.error.message; return; }
      const r = data.history, n = (list) => list.length;
      const ranges = (rs) => rs.map(([a, b]) => (b - a === 1 ? `#${a + 1}` : `#${a + 1}–#${b}`)).join(", ");
      const ul = el("ul");
      const line = (cls, text) => ul.appendChild(el("li", cls, text));
      line("", `${data.prompt_tokens} of ${data.context_window - data.max_new_tokens} prompt tokens, ` +
                `${data.max_new_tokens} kept for the reply`);
      line("", `pinned: ${n(r.pinned) ? r.pinned.map((i) => "#" + (i + 1)).join(", ") : "none"}`);
      line("", `recalled: ${n(r.recalled) ? r.recalled.map((i) => "#" + (i + 1)).join(", ") : "none"}`);
      line("", r.summary ? `summary: covers ${r.summary.covers} message(s), ` +
        (r.summary.signed ? "signed, placed as system context" : "unsigned, placed as plain context")
        : "summary: none");
      line("", `kept verbatim: ${r.used} of ${r.received} message(s), the recent ones from #${r.first_used + 1}`);
      line("", `summarised: ${r.summarised}`);
      line(r.lost ? "warn" : "", `dropped and in no summary: ${r.lost}` +
        (r.dropped_ranges.length ? ` (not sent: ${ranges(r.dropped_ranges)})` : ""));
      out.replaceChildren(ul);
    } catch (e) { out.textContent = "The server cannot be reached."; }
  }

  // -- wiring ----------------------------------------------------------------------------
  function wire() {
    $("composer").addEventListener("submit", async (e) => {
      e.preventDefault();
      const text = $("input").value;
      if (!text.trim() || controller) return;
      $("input").value = "";
      if ((await send(text)) === false) $("input").value = text;
    });
    $("input").addEventListener("keydown", (e) => {
      // Enter during IME composition (Chinese input) confirms the candidate, it does not send.
      if (e.key === "Enter" && !e.shiftKey && !e.isComposing && e.keyCode !== 229) {
        e.preventDefault();
        $("composer").requestSubmit();
      }
    });
    $("stop").onclick = () => controller && controller.abort();
    $("new-conv").onclick = newConversation;
    $("rename-conv").onclick = () => {
      const title = prompt("Rename conversation", current.title);
      if (title && title.trim()) { current.title = title.trim(); save(); render(); }
    };
    $("delete-conv").onclick = () => {
      if (!confirm(`Delete "${current.title}"? Export it first if you want to keep it.`)) return;
      S.remove(current.id);
      const rest = S.list();
      if (rest.length) open(rest[0].id); else newConversation();
    };
    $("export-json").onclick = () => download(`mnemo-${current.id}.json`, current);
    $("export-md").onclick = () => download(`mnemo-${current.id}.md`,
      `# ${current.title}\n\n` + current.messages.map((m) => `**${m.role}:**\n\n${m.content}\n`).join("\n"),
      "text/markdown");
    $("export-all").onclick = () => download("mnemo-conversations.json", S.exportAll());
    $("import-file").addEventListener("change", async (e) => {
      const file = e.target.files[0];
      if (!file) return;
      try {
        const n = S.importData(JSON.parse(await file.text()));
        banner(`Imported ${n} conversation(s).`);
      } catch (err) { banner("Import failed: " + err.message); }
      e.target.value = "";
      renderList();
    });
    $("toggle-settings").onclick = () => { $("settings").hidden = !$("settings").hidden; };
    $("toggle-memory").onclick = () => { $("memory").hidden = !$("memory").hidden; };
    $("mem-compact").addEventListener("change", (e) => { current.settings.compact = e.target.checked; save(); });
    $("mem-recall").addEventListener("change", (e) => { current.settings.recall = e.target.checked; save(); });
    $("mem-edit").onclick = editSummary;
    $("mem-save").onclick = saveSummary;
    $("mem-clear").onclick = clearSummary;
    $("mem-preview").onclick = previewPlan;
    $("settings").addEventListener("change", readSettings);
    $("set-apikey").addEventListener("change", async (e) => {
      const key = e.target.value.trim();
      if (key) localStorage.setItem(KEY, key); else localStorage.removeItem(KEY);
      await loadConfig();
      if (current) fillSettings();
    });
    $("show-sidebar").onclick = () => document.body.classList.toggle("sidebar-open");
    $("toggle-sidebar").onclick = () => document.body.classList.remove("sidebar-open");
    // Another tab changed a conversation: refresh the list, and this one if it is open here
    // and not being written by this tab right now.
    window.addEventListener("storage", (e) => {
      if (!e.key || !e.key.startsWith(S.PREFIX)) return;
      const id = e.key.slice(S.PREFIX.length);
      if (current && id === current.id && !controller) {
        const fresh = S.read(id);
        if (fresh) { current = fresh; render(); return; }
        if (e.newValue === null) { const rest = S.list(); if (rest.length) { open(rest[0].id); return; } newConversation(); return; }
      }
      renderList();
    });
  }

  async function start() {
    wire();
    // Ask the browser not to evict these conversations under storage pressure.
    if (navigator.storage && navigator.storage.persist) {
      navigator.storage.persist().then((granted) => { window.mnemoPersisted = granted; }, () => {});
    }
    await loadConfig();
    const last = localStorage.getItem("mnemo.v1.current");
    const convs = S.list();
    if (last && S.read(last)) open(last);
    else if (convs.length) open(convs[0].id);
    else newConversation();
  }
  document.addEventListener("DOMContentLoaded", start);
})();
