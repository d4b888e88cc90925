// What the page sends and how it reads the answer: the history of the path shown, the stored
// summary, the conversation's settings, and the server-sent events of /api/chat.
import { path } from "./tree.js";

export const KEY = "mnemo.v1.apikey"; // one key for the server, not per conversation

export function authHeaders() {
  const key = localStorage.getItem(KEY);
  return key ? { Authorization: "Bearer " + key } : {};
}

// The history the model may see: the path shown up to and including ``upTo`` (a message id;
// the whole path when null), without failed exchanges (the server trims it, keeps pins,
// places the summary and says what it dropped). ``ids`` maps the list back to stored messages,
// so a summary's ``covers`` can follow the messages it stands in for.
export function historyFor(conv, upTo, config) {
  let shown = path(conv);
  if (upTo) shown = shown.slice(0, shown.findIndex((m) => m.id === upTo) + 1);
  // A user message whose reply on this branch failed goes with it: the exchange is not whole.
  const kept = shown.filter((m, i) => m.status !== "failed" && m.content.trim() &&
    !(m.role === "user" && shown[i + 1] && shown[i + 1].status === "failed"));
  const limit = (config && config.limits && config.limits.max_messages) || 2000;
  const sent = kept.slice(Math.max(0, kept.length - limit));
  return { ids: sent.map((m) => m.id),
           messages: sent.map((m) => (m.pinned ? { role: m.role, content: m.content, pinned: true }
                                                : { role: m.role, content: m.content })) };
}

// The stored summary, with covers counted in this request's list (null when the messages it
// covered are not the leading ones of this branch).
function summaryFor(conv, ids) {
  const sum = conv.summary;
  if (!sum || !sum.text || !sum.text.trim()) return null;
  const covers = sum.next_id ? ids.indexOf(sum.next_id) : 0;
  if (covers < 0) return null;
  // Messages the summary left out (pinned when it was made), by id: they stay verbatim.
  const kept = (sum.kept_ids || []).map((id) => ids.indexOf(id)).filter((i) => i >= 0 && i < covers);
  return { text: sum.text, covers, kept, signature: sum.signature || null };
}

// Recall is on unless switched off here: conversations stored before it was the default hold
// recall: false without anyone having chosen it, so only a choice made in the panel counts.
export function recallOn(s) {
  return s.recall_chosen ? s.recall !== false : true;
}

// The temperature chosen in the panel; null: the model's own sampling settings (the server's
// preset, else the model's generation_config). Before that default, conversations stored
// temperature 0 without anyone choosing it: a 0 counts only when chosen.
export function temperatureOf(s) {
  if (s.temperature_chosen) return s.temperature;
  return s.temperature > 0 ? s.temperature : null;
}

export function requestBody(conv, history) {
  const s = conv.settings;
  const body = { messages: history.messages, stream: true, conversation_id: conv.id,
                 max_turns: s.max_turns, max_new_tokens: s.max_new_tokens,
                 compact: s.compact !== false };
  body.recall = recallOn(s);
  const summary = summaryFor(conv, history.ids);
  if (summary) body.summary = summary;
  if (s.system && s.system.trim()) body.system = s.system;
  if (s.template && s.template !== "default") body.template = s.template;
  if (s.adapter) body.adapter = s.adapter;
  const t = temperatureOf(s);
  if (t === 0) body.do_sample = false;
  else if (t > 0) { body.do_sample = true; body.temperature = t; }
  return body;
}

// POST ``body`` to /api/chat and read its events: ``onDelta(text)`` per piece; resolves with
// the done event's data, throws with the server's words on an error.
export async function streamChat(body, signal, onDelta) {
  const headers = { "Content-Type": "application/json", ...authHeaders() };
  const resp = await fetch("/api/chat", { method: "POST", headers, signal, body: JSON.stringify(body) });
  if (!resp.ok) {
    let message = `HTTP ${resp.status}`;
    try { message = (await resp.json()).error.message || message; } catch (e) { /* not JSON */ }
    throw new Error(message);
  }
  const reader = resp.body.getReader(), decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const chunk = await reader.read();
    if (chunk.done) throw new Error("the connection closed before the answer finished");
    buffer += decoder.decode(chunk.value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      const name = (/^event: (.*)$/m.exec(block) || [])[1];
      const data = JSON.parse((/^data: (.*)$/m.exec(block) || [])[1] || "null");
      if (name === "delta") onDelta(data.content);
      else if (name === "done") return data;
      else if (name === "error") throw new Error(data.error.message);
    }
  }
}
