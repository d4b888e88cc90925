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
             max_new_tokens: d.max_new_tokens, temperature: 0 };
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
    renderList();
    const box = $("messages");
    box.replaceChildren();
    current.messages.forEach((m, i) => box.appendChild(renderMessage(m, i)));
    box.scrollTop = box.scrollHeight;
  }
  function renderMessage(m, index) {
    const div = el("div", "msg " + m.role + (m.status === "failed" ? " failed" : ""));
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
    if (m.report) {
      meta.appendChild(el("span", "report",
        `history: ${m.report.used}/${m.report.received} messages used` +
        (m.report.dropped ? `, ${m.report.dropped} dropped` : "")));
    }
    if (m.usage) {
      meta.appendChild(el("span", "usage",
        `tokens: ${m.usage.prompt_tokens} in, ${m.usage.completion_tokens} out`));
    }
    addButton(meta, "Copy", () => navigator.clipboard && navigator.clipboard.writeText(m.content));
    if (m.role === "user" && m.status !== "failed") addButton(meta, "Edit", () => edit(index));
    if (m.role === "assistant" && index === current.messages.length - 1) addButton(meta, "Regenerate", regenerate);
    div.appendChild(meta);
    return div;
  }
  function addButton(parent, label, fn) {
    const b = el("button", "", label); b.type = "button"; b.onclick = fn; parent.appendChild(b);
  }

  // The history the model should see: no failed exchange, at most max_turns exchanges.
  function historyFor(upTo) {
    const msgs = current.messages.slice(0, upTo + 1).filter((m) => m.status !== "failed" && m.content.trim());
    const users = msgs.map((m, i) => (m.role === "user" ? i : -1)).filter((i) => i >= 0);
    const start = users.length > current.settings.max_turns ? users[users.length - current.settings.max_turns] : 0;
    return msgs.slice(start).map((m) => ({ role: m.role, content: m.content }));
  }

  function requestBody(history) {
    const s = current.settings;
    const body = { messages: history, stream: true, conversation_id: current.id,
                   max_turns: s.max_turns, max_new_tokens: s.max_new_tokens };
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
      const resp = await fetch("/api/chat", { method: "POST", headers, signal: controller.signal,
                                              body: JSON.stringify(requestBody(historyFor(userIndex))) });
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
    await loadConfig();
    const last = localStorage.getItem("mnemo.v1.current");
    const convs = S.list();
    if (last && S.read(last)) open(last);
    else if (convs.length) open(convs[0].id);
    else newConversation();
  }
  document.addEventListener("DOMContentLoaded", start);
})();
