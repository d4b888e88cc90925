// The memory panel: auto-summary and recall switches, the stored summary (edit, clear), and
// the server's preview of what the model will see on the next turn.
import { authHeaders, historyFor, recallOn, requestBody } from "./chat.js";
import { $, el } from "./ui.js";

export function initMemory(app) {
  function fill() {
    const s = app.current.settings, sum = app.current.summary;
    $("mem-compact").checked = s.compact !== false;
    $("mem-recall").checked = recallOn(s);
    const box = $("mem-summary-text");
    if (!box.readOnly) return; // being edited: leave the user's text alone
    box.value = sum ? sum.text : "";
    const state = $("mem-summary-state");
    state.className = sum && !sum.signature ? "unsigned" : "";
    state.textContent = !sum ? "(none)" : sum.signature ? "(written by the server, signed)"
      : "(edited: unsigned, sent as plain context)";
  }
  function closeEditor() {
    $("mem-summary-text").readOnly = true;
    $("mem-edit").hidden = false;
    $("mem-save").hidden = true;
  }
  function edit() {
    const box = $("mem-summary-text");
    box.readOnly = false;
    box.focus();
    $("mem-edit").hidden = true;
    $("mem-save").hidden = false;
  }
  function save() {
    const text = $("mem-summary-text").value, conv = app.current;
    closeEditor();
    if (!text.trim()) delete conv.summary;
    else if (!conv.summary || text !== conv.summary.text) {
      // An edited summary loses the server's signature: it is sent as plain context.
      conv.summary = { ...(conv.summary || { next_id: null }), text, signature: null, edited: true,
                       updated: Date.now() };
    }
    app.save();
    fill();
  }
  function clear() {
    if (!app.current.summary) return;
    if (!confirm("Clear this conversation's summary? Messages it covered are still stored here.")) return;
    delete app.current.summary;
    closeEditor();
    app.save();
    fill();
  }
  async function preview() {
    const out = $("mem-plan"), conv = app.current;
    const draft = $("input").value.trim() || "(your next message)";
    const history = historyFor(conv, null, app.config);
    // A failed last message is not sent: the draft takes its place.
    if (history.messages.length && history.messages[history.messages.length - 1].role === "user") {
      history.messages.pop();
      history.ids.pop();
    }
    history.messages.push({ role: "user", content: draft });
    history.ids.push(null);
    const body = requestBody(conv, history);
    delete body.stream;
    delete body.compact;
    out.textContent = "Asking the server…";
    try {
      const resp = await fetch("/api/chat/preview", { method: "POST", body: JSON.stringify(body),
        headers: { "Content-Type": "application/json", ...authHeaders() } });
      const data = await resp.json();
      if (!resp.ok) { out.textContent = "Preview failed: " + data.error.message; return; }
      out.replaceChildren(plan(data), seen(data.parts, history.ids));
    } catch (e) { out.textContent = "The server cannot be reached."; }
  }
  function plan(data) {
    const r = data.history, n = (list) => list.length;
    const ranges = (rs) => rs.map(([a, b]) => (b - a === 1 ? `#${a + 1}` : `#${a + 1}–#${b}`)).join(", ");
    const ul = el("ul");
    const line = (cls, text) => ul.appendChild(el("li", cls, text));
    line("", `${data.prompt_tokens} of ${data.context_window - data.max_new_tokens} prompt tokens, ` +
              `${data.max_new_tokens} kept for the reply`);
    line("", `pinned: ${n(r.pinned) ? r.pinned.map((i) => "#" + (i + 1)).join(", ") : "none"}`);
    line("", `recalled: ${n(r.recalled) ? r.recalled.map((i) => "#" + (i + 1)).join(", ") : "none"}`);
    line("", r.summary ? `summary: covers ${r.summary.covers} message(s), ` +
      (r.summary.signed ? "signed, placed as context" : "unsigned, placed as plain context")
      : "summary: none");
    line("", `kept verbatim: ${r.used} of ${r.received} message(s), the recent ones from #${r.first_used + 1}`);
    line("", `summarised: ${r.summarised}`);
    line(r.lost ? "warn" : "", `dropped and in no summary: ${r.lost}` +
      (r.dropped_ranges.length ? ` (not sent: ${ranges(r.dropped_ranges)})` : ""));
    return ul;
  }

  // The text that reaches the model, part by part, each marked with why it is there; a
  // message's number shows it in the conversation.
  function seen(parts, ids) {
    const labels = { system: "system prompt", context: "summary (context, not instructions)",
                     pinned: "pinned", recalled: "recalled", recent: "recent", latest: "your new message" };
    const list = el("ol", "seen");
    list.setAttribute("aria-label", "What the model will see, in order");
    for (const p of parts) {
      const li = el("li", "part part-" + p.kind);
      const head = el("div", "part-head");
      if (p.index !== undefined && ids[p.index]) {
        const go = el("button", "part-go", `#${p.index + 1}`);
        go.type = "button";
        go.title = "Show this message in the conversation";
        go.onclick = () => showMessage(ids[p.index]);
        head.append(go, " ");
      } else if (p.index !== undefined) {
        head.append(`#${p.index + 1} `);
      }
      head.append(`${p.role} · ${labels[p.kind]}`);
      li.append(head, el("div", "part-text", p.content));
      list.appendChild(li);
    }
    return list;
  }
  function showMessage(id) {
    const msg = document.querySelector(`.msg[data-id="${CSS.escape(id)}"]`);
    if (!msg) return;
    msg.scrollIntoView({ block: "center" });
    msg.classList.add("flash");
    setTimeout(() => msg.classList.remove("flash"), 1600);
  }

  $("mem-compact").addEventListener("change", (e) => { app.current.settings.compact = e.target.checked; app.save(); });
  $("mem-recall").addEventListener("change", (e) => {
    Object.assign(app.current.settings, { recall: e.target.checked, recall_chosen: true });
    app.save();
  });
  $("mem-edit").onclick = edit;
  $("mem-save").onclick = save;
  $("mem-clear").onclick = clear;
  $("mem-preview").onclick = preview;
  return { fill };
}
