// Conversations in localStorage: one key per conversation ("mnemo.v2.conv.<id>"). Format 2 keeps
// branches (see tree.js); conversations stored by format 1 ("mnemo.v1.conv.<id>") are migrated
// key by key, and an old key is removed only after its new one is written.
//
// Two tabs may change one conversation (one streams a reply while the other sends, renames or
// pins): a write is a three-way merge of this tab's copy with the stored one, against the
// version this tab loaded (``load``), so neither tab's changes are lost. Every write is guarded:
// a full storage reports, never corrupts.
import { upgrade } from "./tree.js";

export const PREFIX = "mnemo.v2.conv.";
const OLD_PREFIX = "mnemo.v1.conv.";
export const VERSION = 2;
// localStorage holds 5 Mi UTF-16 code units per origin, keys included (Chromium, Firefox).
export const QUOTA_CHARS = 5 * 1024 * 1024;
const listeners = [];
const bases = new Map(); // id -> the stored text this tab's copy was loaded from or last wrote
const removed = new Set(); // ids deleted in this tab: a late write must not bring them back

export function newId() {
  return Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 10);
}

function isQuota(err) {
  return err && (err.name === "QuotaExceededError" || err.code === 22 || err.code === 1014);
}

function emit(kind, detail) { listeners.forEach((fn) => fn(kind, detail)); }

function put(key, value) {
  try {
    localStorage.setItem(key, value);
    return true;
  } catch (err) {
    emit(isQuota(err) ? "quota" : "error", err);
    return false;
  }
}

function parse(raw) {
  try {
    const conv = raw ? JSON.parse(raw) : null;
    return conv && typeof conv === "object" && typeof conv.id === "string" && Array.isArray(conv.messages)
      ? upgrade(conv) : null;
  } catch (err) {
    return null; // unreadable: left untouched in storage, and exported as it is (exportAll)
  }
}

const storedText = (id) => localStorage.getItem(PREFIX + id) || localStorage.getItem(OLD_PREFIX + id);

// A copy to read (lists, search); ``load`` is for the copy this tab will change and write.
export function read(id) { return parse(storedText(id)); }

export function load(id) {
  const raw = storedText(id), conv = parse(raw);
  if (conv) bases.set(id, JSON.stringify(conv));
  return conv;
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// Three-way merge into ``mine`` (in place): whatever only the other side changed since ``base``
// is taken from ``theirs``; what this tab changed stays. Returns whether anything came in.
function merge(mine, base, theirs) {
  let changed = false;
  for (const key of new Set([...Object.keys(theirs), ...Object.keys(base)])) {
    if (key === "messages" || key === "updated" || key === "used") continue;
    if (same(mine[key], base[key]) && !same(theirs[key], base[key])) {
      if (theirs[key] === undefined) delete mine[key]; else mine[key] = theirs[key];
      changed = true;
    }
  }
  const b = new Map(base.messages.map((m) => [m.id, m]));
  const t = new Map(theirs.messages.map((m) => [m.id, m]));
  const out = [];
  for (const m of mine.messages) {
    const was = b.get(m.id), now = t.get(m.id);
    if (was && !now) { // removed there: gone, unless changed here
      if (!same(m, was)) out.push(m); else changed = true;
    } else if (was && now && same(m, was) && !same(now, was)) {
      for (const key of Object.keys(m)) delete m[key]; // in place: the page holds references
      Object.assign(m, now);
      out.push(m);
      changed = true;
    } else out.push(m);
  }
  const mineIds = new Set(mine.messages.map((m) => m.id));
  for (const m of theirs.messages) {
    if (!mineIds.has(m.id) && !b.has(m.id)) { out.push(m); changed = true; } // added there
  }
  mine.messages = out;
  upgrade(mine); // a parent removed on one side, the leaf: made consistent again
  return changed;
}

// ``keepTime``: an import or a migration keeps the stored timestamps exactly. ``restore``: write
// a conversation this tab deleted (Undo). A conversation deleted in another tab is not brought
// back by a late write here: that is reported ("gone").
export function write(conv, { keepTime = false, restore = false } = {}) {
  if (removed.has(conv.id) && !restore) return false;
  removed.delete(conv.id);
  const base = bases.get(conv.id), raw = localStorage.getItem(PREFIX + conv.id);
  if (base && !raw && !localStorage.getItem(OLD_PREFIX + conv.id) && !restore) {
    emit("gone", conv);
    return false;
  }
  if (!base && raw && restore) return false; // brought back meanwhile (another tab): keep that
  if (base && raw && raw !== base && merge(conv, JSON.parse(base), parse(raw))) emit("merged", conv);
  if (!keepTime) conv.updated = conv.used = Date.now();
  const text = JSON.stringify(conv);
  if (!put(PREFIX + conv.id, text)) return false;
  bases.set(conv.id, text);
  localStorage.removeItem(OLD_PREFIX + conv.id);
  return true;
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
// readable (``read`` upgrades it in memory); returns how many moved. A format-1 key beside a
// format-2 one (an old page still open in another tab) is left alone: the newer one is used.
export function migrate() {
  let moved = 0;
  for (let i = localStorage.length - 1; i >= 0; i--) {
    const key = localStorage.key(i) || "";
    if (!key.startsWith(OLD_PREFIX) || localStorage.getItem(PREFIX + key.slice(OLD_PREFIX.length))) continue;
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
  removed.add(id);
  bases.delete(id);
  localStorage.removeItem(PREFIX + id);
  localStorage.removeItem(OLD_PREFIX + id);
}

// Every conversation, and any stored entry that could not be read, as it is.
export function exportAll() {
  const unreadable = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i) || "";
    if ((key.startsWith(PREFIX) || key.startsWith(OLD_PREFIX)) && !parse(localStorage.getItem(key))) {
      unreadable.push({ key, text: localStorage.getItem(key) });
    }
  }
  const out = { format: "mnemo.conversations", version: VERSION, conversations: list() };
  if (unreadable.length) out.unreadable = unreadable;
  return out;
}

// Accepts an export of either format, a list of conversations, or one conversation. A
// conversation already here unchanged is skipped; one that differs from the copy here is
// imported beside it, under a new id, so neither is lost. Returns {imported, same}.
export function importData(data) {
  const convs = Array.isArray(data) ? data : data && data.conversations ? data.conversations : [data];
  for (const conv of convs) {
    if (!conv || typeof conv.id !== "string" || !Array.isArray(conv.messages)) {
      throw new Error("not a Mnemo conversation export");
    }
  }
  const result = { imported: 0, same: 0 };
  // What a conversation says, whatever its ids and title suffix: an import of a copy already
  // here (under its id or as an earlier import) is skipped.
  const gist = (c) => JSON.stringify([c.title.replace(/ \(imported\)$/, ""), c.summary || null,
    c.messages.map((m) => [m.role, m.content, m.status || null])]);
  const known = new Set(list().map(gist));
  for (const raw of convs) {
    if (!raw.id) raw.id = newId();
    const conv = upgrade(raw), here = read(conv.id);
    if (known.has(gist(conv))) { result.same++; continue; }
    if (here) { conv.id = newId(); conv.title += " (imported)"; }
    removed.delete(conv.id);
    if (!write(conv, { keepTime: true, restore: true })) return result;
    known.add(gist(conv));
    result.imported++;
  }
  return result;
}

// Characters this origin keeps in localStorage (keys and values), against the quota.
export function usage() {
  let chars = 0;
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i) || "";
    chars += key.length + (localStorage.getItem(key) || "").length;
  }
  return { chars, quota: QUOTA_CHARS, fraction: chars / QUOTA_CHARS };
}

export function onError(fn) { listeners.push(fn); }
