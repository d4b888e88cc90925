// Conversations in localStorage: one key per conversation ("mnemo.v2.conv.<id>"). Format 2 keeps
// branches (see tree.js); conversations stored by format 1 ("mnemo.v1.conv.<id>") are migrated
// key by key, and an old key is removed only after its new one is written.
//
// Two tabs may change one conversation (one streams a reply while the other sends, renames or
// pins), and neither tab's changes may be lost. A tab cannot trust what it reads to be the last
// write: Chromium serves each tab's localStorage from a copy in its own process that other tabs'
// writes reach later (10-340 ms measured under load), so a write based on a stale read can
// overwrite a newer one, and a merge against a base cannot tell a stale copy from a revert or a
// delete. So changes carry stamps: a write stamps what this tab changed since the version it
// loaded or last wrote (each field in ``stamps``, each setting on its own, each message field in
// the message's ``revs`` and, moved on by every change to it, in its ``rev``; a deleted
// message's id in ``gone``), and a merge keeps the newer of each field, setting and message field, whatever the
// order the copies meet in: a pin put in one tab and a status set by another on the same message
// both stay. A tab that receives another's write merges it (``absorb``) and writes back
// what it holds newer, so the tabs and the storage converge. Every write is guarded: a full
// storage reports, never corrupts.
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
// Fields that are not merged by stamp: identity, bookkeeping, and the stamps themselves.
const UNSTAMPED = new Set(["id", "version", "created", "updated", "used", "messages", "stamps", "gone"]);
// Fields merged key by key (stamped as "settings.temperature"): two tabs changing two settings
// keep both.
const KEYED = new Set(["settings"]);
const MESSAGE_UNSTAMPED = new Set(["id", "rev", "revs"]);
let clock = 0; // this tab's last stamp: stamps only grow, even if the system clock steps back
const tick = () => (clock = Math.max(clock + 1, Date.now()));
// The keys of the objects together ("__proto__" left out: a stored or imported copy is data).
const keysOf = (...objects) => new Set(objects.flatMap((o) => (o && typeof o === "object" ? Object.keys(o) : []))
  .filter((key) => key !== "__proto__"));

const maxOf = (values) => { let top = 0; for (const t of values) if (t > top) top = t; return top; };

// Per-key stamps of one object (a message's fields in its ``revs``; the settings' keys in
// ``stamps["settings.<key>"]``), beside the object's whole stamp (the message's ``rev``,
// ``stamps.settings``), which every change also moves on: a page from before per-key stamps
// reads only the whole one, and moves only it. So a whole stamp newer than every key's is such
// a page's change of the whole object, and stands for each key; a copy with no key stamps yet
// has its whole stamp for each key too.
// Returns key -> its stamp (the newest key stamp found once, not once per key).
function keyStamps(whole, stamps) {
  const top = maxOf(Object.values(stamps)), all = (whole || 0) > top ? whole || 0 : null;
  return (key) => all ?? (stamps[key] || 0);
}
// Every key's stamp, explicit, before one of them changes (the others keep what they had).
function explicit(whole, stamps, keys) {
  const of = keyStamps(whole, stamps), out = {};
  for (const key of keys) out[key] = of(key);
  return out;
}

const settingStamps = (stamps, key) => {
  const out = {};
  for (const [name, t] of Object.entries(stamps)) {
    if (name.startsWith(key + ".")) out[name.slice(key.length + 1)] = t;
  }
  return out;
};
const fieldsOf = (m, ...more) => [...keysOf(m, m.revs, ...more)].filter((f) => !MESSAGE_UNSTAMPED.has(f));
const revsOf = (m) => keyStamps(m.rev, m.revs || {});
const lastChange = (m) => Math.max(m.rev || 0, maxOf(Object.values(m.revs || {})));

// Set the stamps of ``changes`` (key -> stamp) of a keyed object, the others made explicit.
function restampMessage(m, changes, others) {
  const revs = explicit(m.rev, m.revs || {}, fieldsOf(m, others));
  Object.assign(revs, changes);
  m.revs = revs;
  m.rev = Math.max(m.rev || 0, maxOf(Object.values(revs)));
}
function restampSetting(stamps, key, value, changes, others) {
  const mine = settingStamps(stamps, key);
  const revs = explicit(stamps[key], mine, keysOf(value, mine, others));
  Object.assign(revs, changes);
  for (const [sub, t] of Object.entries(revs)) stamps[`${key}.${sub}`] = t;
  stamps[key] = Math.max(stamps[key] || 0, maxOf(Object.values(revs)));
}

// Stamp what ``conv`` changed since ``base``, in place. Without a base (a new conversation, an
// import, an undone delete) what has no stamp yet is new, and stamps it carries are kept.
function stamp(conv, base) {
  const stamps = conv.stamps = conv.stamps || {}, gone = conv.gone = conv.gone || {};
  const t = tick(), changed = (a, b, old) => (base ? !same(a, b) : old === undefined);
  for (const key of keysOf(conv, base)) {
    if (UNSTAMPED.has(key)) continue;
    if (!KEYED.has(key)) {
      if (changed(conv[key], base && base[key], stamps[key])) stamps[key] = t;
      continue;
    }
    const mine = conv[key] || {}, theirs = (base && base[key]) || {}, changes = {};
    for (const sub of keysOf(mine, theirs)) {
      if (base ? !same(mine[sub], theirs[sub]) : stamps[key] === undefined) changes[sub] = t;
    }
    if (Object.keys(changes).length) restampSetting(stamps, key, mine, changes, theirs);
  }
  const before = new Map(base ? base.messages.map((m) => [m.id, m]) : []);
  for (const m of conv.messages) {
    const old = before.get(m.id);
    if (!old) {
      if (base || m.rev === undefined) { // new here: every field stamped now
        m.revs = {};
        for (const field of fieldsOf(m)) m.revs[field] = t;
        m.rev = t;
      }
    } else {
      const changes = {};
      for (const field of fieldsOf(m, old)) if (!same(m[field], old[field])) changes[field] = t;
      if (Object.keys(changes).length) restampMessage(m, changes, old);
    }
    before.delete(m.id);
  }
  for (const id of before.keys()) gone[id] = t; // deleted here
}

// Whether value ``a`` stamped ``ta`` replaces ``b`` stamped ``tb``: the newer; equal stamps
// (two tabs in one millisecond) are decided by the values, so both tabs decide alike.
function wins(a, ta, b, tb) {
  if ((ta || 0) !== (tb || 0)) return (ta || 0) > (tb || 0);
  return !same(a, b) && JSON.stringify(a === undefined ? null : a) > JSON.stringify(b === undefined ? null : b);
}

// Take ``theirs[key]`` into ``mine`` (in place: the page holds references to its objects).
function take(mine, theirs, key) {
  if (theirs[key] === undefined) delete mine[key]; else mine[key] = theirs[key];
}

// Merge ``theirs`` into ``mine`` (in place): the newer of every field, setting and message
// field; a message either copy lacks is kept unless it was deleted after its last change.
// Returns whether anything in ``mine`` changed.
function merge(mine, theirs) {
  let changed = false;
  const stamps = mine.stamps = mine.stamps || {}, theirStamps = theirs.stamps || {};
  // this tab's next stamps come after every stamp it has seen (a clock behind another tab's)
  clock = Math.max(clock, maxOf(Object.values(theirStamps)), maxOf(Object.values(theirs.gone || {})),
                   maxOf(theirs.messages.map(lastChange)));
  for (const key of keysOf(theirs, mine)) {
    if (UNSTAMPED.has(key)) continue;
    if (!KEYED.has(key)) {
      if (!wins(theirs[key], theirStamps[key], mine[key], stamps[key])) continue;
      take(mine, theirs, key);
      stamps[key] = theirStamps[key];
      changed = true;
      continue;
    }
    const there = theirs[key] || {}, theirSubs = settingStamps(theirStamps, key);
    if (!mine[key] || typeof mine[key] !== "object") mine[key] = {};
    const theirOf = keyStamps(theirStamps[key], theirSubs), mineSubs = settingStamps(stamps, key);
    const mineOf = keyStamps(stamps[key], mineSubs), changes = {};
    for (const sub of keysOf(there, mine[key], theirSubs, mineSubs)) {
      const t = theirOf(sub);
      if (wins(there[sub], t, mine[key][sub], mineOf(sub))) changes[sub] = t;
    }
    if (!Object.keys(changes).length) continue;
    restampSetting(stamps, key, mine[key], changes, there);
    for (const sub of Object.keys(changes)) take(mine[key], there, sub);
    changed = true;
  }
  const gone = mine.gone = mine.gone || {};
  for (const [id, t] of Object.entries(theirs.gone || {})) {
    if (!(gone[id] >= t)) gone[id] = t;
  }
  const deleted = (m) => gone[m.id] >= lastChange(m);
  const t = new Map(theirs.messages.map((m) => [m.id, m]));
  const out = [];
  for (const m of mine.messages) {
    const now = t.get(m.id), changes = {};
    const theirOf = now && revsOf(now), mineOf = now && revsOf(m);
    for (const field of now ? fieldsOf(now, m) : []) {
      const rev = theirOf(field);
      if (wins(now[field], rev, m[field], mineOf(field))) changes[field] = rev;
    }
    if (Object.keys(changes).length) {
      restampMessage(m, changes, now);
      for (const field of Object.keys(changes)) take(m, now, field);
      changed = true;
    }
    if (deleted(m)) changed = true; else out.push(m);
  }
  const mineIds = new Set(mine.messages.map((m) => m.id));
  for (const m of theirs.messages) {
    if (!mineIds.has(m.id) && !deleted(m)) { out.push(m); changed = true; } // added there
  }
  mine.messages = out;
  upgrade(mine); // a parent removed on one side, the leaf: made consistent again
  return changed;
}

// Another tab wrote ``conv``'s key: take in what it holds newer, and write back what this copy
// holds newer (that tab may have written over it from a stale read). Returns whether ``conv``
// changed. Writes only when this copy is ahead, so two tabs never answer each other forever.
export function absorb(conv) {
  const raw = localStorage.getItem(PREFIX + conv.id), theirs = parse(raw);
  if (!theirs || removed.has(conv.id)) return false;
  const base = bases.get(conv.id);
  stamp(conv, base ? JSON.parse(base) : null); // this tab's changes not yet written
  const changed = merge(conv, theirs);
  if (merge(parse(raw), JSON.parse(JSON.stringify(conv)))) {
    bases.set(conv.id, JSON.stringify(conv)); // stamped already: later changes are stamped anew
    writeBackSoon(conv);
  } else bases.set(conv.id, raw);
  return changed;
}

// While two tabs' views are stale, each write-back answers the other's: coalesced to one write
// per conversation every 100 ms, not one per storage event (about 600 a second measured).
const writeBacks = new Map();
function writeBackSoon(conv) {
  if (writeBacks.has(conv.id)) return;
  writeBacks.set(conv.id, setTimeout(() => {
    writeBacks.delete(conv.id);
    write(conv, { keepTime: true });
  }, 100));
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
  stamp(conv, base ? JSON.parse(base) : null);
  const theirs = raw && raw !== base ? parse(raw) : null;
  if (theirs && merge(conv, theirs)) emit("merged", conv);
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
    const conv = fromFile(upgrade(raw)), here = read(conv.id);
    if (known.has(gist(conv))) { result.same++; continue; }
    if (here) { conv.id = newId(); conv.title += " (imported)"; }
    removed.delete(conv.id);
    if (!write(conv, { keepTime: true, restore: true })) return result;
    known.add(gist(conv));
    result.imported++;
  }
  return result;
}

// A file's stamps are not trusted to be from the past: one from the future would win every
// merge for good (a rename in this browser reverted). A file's delete markers for messages it
// holds are dropped: what the file shows is what is imported.
function fromFile(conv) {
  const now = Date.now(), clamp = (t) => Math.min(t, now);
  for (const key of Object.keys(conv.stamps)) conv.stamps[key] = clamp(conv.stamps[key]);
  for (const m of conv.messages) {
    if (m.rev !== undefined) m.rev = clamp(m.rev);
    for (const field of Object.keys(m.revs || {})) m.revs[field] = clamp(m.revs[field]);
  }
  for (const m of conv.messages) delete conv.gone[m.id];
  for (const id of Object.keys(conv.gone)) conv.gone[id] = clamp(conv.gone[id]);
  return conv;
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
