// Conversations in localStorage: one versioned key per conversation ("mnemo.v1.conv.<id>"),
// so two tabs writing different conversations never touch the same key, and a later format
// can migrate key by key. Every write is guarded: a full storage reports, never corrupts.
"use strict";
(function () {
  const PREFIX = "mnemo.v1.conv.";
  const listeners = [];

  function newId() {
    return Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 10);
  }

  function isQuota(err) {
    return err && (err.name === "QuotaExceededError" || err.code === 22 || err.code === 1014);
  }

  function write(conv) {
    conv.updated = Date.now();
    try {
      localStorage.setItem(PREFIX + conv.id, JSON.stringify(conv));
      return true;
    } catch (err) {
      listeners.forEach((fn) => fn(isQuota(err) ? "quota" : "error", err));
      return false;
    }
  }

  function read(id) {
    try {
      const raw = localStorage.getItem(PREFIX + id);
      return raw ? JSON.parse(raw) : null;
    } catch (err) {
      return null; // an unreadable entry is left untouched for export, never overwritten here
    }
  }

  function list() {
    const out = [];
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (key && key.startsWith(PREFIX)) {
        const conv = read(key.slice(PREFIX.length));
        if (conv) out.push(conv);
      }
    }
    return out.sort((a, b) => b.updated - a.updated);
  }

  function create(settings) {
    const now = Date.now();
    return { id: newId(), title: "New chat", created: now, updated: now, settings, messages: [] };
  }

  function remove(id) { localStorage.removeItem(PREFIX + id); }

  function exportAll() { return { format: "mnemo.conversations", version: 1, conversations: list() }; }

  function importData(data) {
    const convs = Array.isArray(data) ? data : data && data.conversations ? data.conversations : [data];
    let count = 0;
    for (const conv of convs) {
      if (!conv || typeof conv.id !== "string" || !Array.isArray(conv.messages)) {
        throw new Error("not a Mnemo conversation export");
      }
      const updated = conv.updated;
      if (!write(conv)) return count;
      conv.updated = updated; // keep the exported timestamp exactly
      try { localStorage.setItem(PREFIX + conv.id, JSON.stringify(conv)); } catch (e) { /* written above */ }
      count++;
    }
    return count;
  }

  window.MnemoStore = {
    PREFIX, newId, read, write, list, create, remove, exportAll, importData,
    onError(fn) { listeners.push(fn); },
  };
})();
