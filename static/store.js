// Conversations in localStorage: one key per conversation ("mnemo.v2.conv.<id>"), so two tabs
// writing different conversations never touch the same key. Format 2 keeps branches (see
// tree.js); conversations stored by format 1 ("mnemo.v1.conv.<id>") are migrated key by key,
// and an old key is removed only after its new one is written. Every write is guarded: a full
// storage reports, never corrupts.
import { upgrade } from "./tree.js";

export const PREFIX = "mnemo.v2.conv.";
const OLD_PREFIX = "mnemo.v1.conv.";
export const VERSION = 2;
// localStorage holds about 5 Mi UTF-16 code units per origin (Chromium, Firefox, Safari).
export const QUOTA_CHARS = 5 * 1024 * 1024;
const listeners = [];

export function newId() {
  return Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 10);
}

function isQuota(err) {
  return err && (err.name === "QuotaExceededError" || err.code === 22 || err.code === 1014);
}

function put(key, value) {
  try {
    localStorage.setItem(key, value);
    return true;
  } catch (err) {
    listeners.forEach((fn) => fn(isQuota(err) ? "quota" : "error", err));
    return false;
  }
}

// ``keepTime``: an import or a migration keeps the stored timestamps exactly.
export function write(conv, { keepTime = false } = {}) {
  if (!keepTime) conv.updated = conv.used = Date.now();
  if (!put(PREFIX + conv.id, JSON.stringify(conv))) return false;
  localStorage.removeItem(OLD_PREFIX + conv.id);
  return true;
}

function parse(raw) {
  try {
    const conv = raw ? JSON.parse(raw) : null;
    return conv && Array.isArray(conv.messages) ? upgrade(conv) : null;
  } catch (err) {
    return null; // an unreadable entry is left untouched for export, never overwritten here
  }
}

export function read(id) {
  return parse(localStorage.getItem(PREFIX + id)) || parse(localStorage.getItem(OLD_PREFIX + id));
}

function ids() {
  const out = new Set();
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i) || "";
    if (key.startsWith(PREFIX)) out.add(key.slice(PREFIX.length));
    else if (key.startsWith(OLD_PREFIX)) out.add(key.slice(OLD_PREFIX.length));
  }
  return [...out];
}

// Most recently used first.
export function list() {
  return ids().map(read).filter(Boolean).sort((a, b) => (b.used || b.updated) - (a.used || a.updated));
}

// Move every format-1 conversation to format 2. One that does not fit stays where it is, still
// readable (``read`` upgrades it in memory); returns how many moved.
export function migrate() {
  let moved = 0;
  for (let i = localStorage.length - 1; i >= 0; i--) {
    const key = localStorage.key(i) || "";
    if (!key.startsWith(OLD_PREFIX)) continue;
    const conv = parse(localStorage.getItem(key));
    if (conv && write(conv, { keepTime: true })) moved++;
  }
  return moved;
}

export function create(settings) {
  const now = Date.now();
  return { version: VERSION, id: newId(), title: "New chat", created: now, updated: now, used: now,
           settings, messages: [], leaf: null };
}

export function remove(id) {
  localStorage.removeItem(PREFIX + id);
  localStorage.removeItem(OLD_PREFIX + id);
}

export function exportAll() {
  return { format: "mnemo.conversations", version: VERSION, conversations: list() };
}

// Accepts an export of either format, a list of conversations, or one conversation.
export function importData(data) {
  const convs = Array.isArray(data) ? data : data && data.conversations ? data.conversations : [data];
  for (const conv of convs) {
    if (!conv || typeof conv.id !== "string" || !Array.isArray(conv.messages)) {
      throw new Error("not a Mnemo conversation export");
    }
  }
  let count = 0;
  for (const conv of convs) {
    if (!write(upgrade(conv), { keepTime: true })) return count;
    count++;
  }
  return count;
}

// Characters this origin keeps in localStorage (keys and values), against the usual quota.
export function usage() {
  let chars = 0;
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i) || "";
    chars += key.length + (localStorage.getItem(key) || "").length;
  }
  return { chars, quota: QUOTA_CHARS, fraction: chars / QUOTA_CHARS };
}

export function onError(fn) { listeners.push(fn); }
