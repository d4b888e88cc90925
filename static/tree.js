// Branches. A conversation's messages form a tree: each names its parent (null for a first
// message), and editing a message or regenerating a reply adds a sibling, so every earlier
// version stays. ``leaf`` is the last message of the path shown; that path is what the page
// shows and what it sends to the server. Pure functions over the stored object.

const ROLES = new Set(["user", "assistant"]);
const freshId = () => "m-" + Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 10);

const validStamp = (t) => typeof t === "number" && Number.isFinite(t) && t >= 0;
// A map of stamps (name -> time) with only valid entries, as a fresh plain object.
function stampsOf(value) {
  const out = {};
  if (value && typeof value === "object" && !Array.isArray(value)) {
    for (const [key, t] of Object.entries(value)) if (validStamp(t) && key !== "__proto__") out[key] = t;
  }
  return out;
}

// Make any stored or imported conversation safe to use, in place. Format 1 stored a single path:
// each message's parent is the one before it (also for a message pushed without a parent).
// Missing or repeated ids get fresh ones, a parent that does not exist or that closes a loop
// becomes null, and fields of the wrong type get defaults; nothing readable is dropped.
export function upgrade(conv) {
  if (!conv.settings || typeof conv.settings !== "object") conv.settings = {};
  if (typeof conv.title !== "string") conv.title = conv.title == null ? "Untitled" : String(conv.title);
  delete conv.deleted;
  for (const key of ["stamps", "gone"]) conv[key] = stampsOf(conv[key]); // the merge's (store.js)
  conv.messages = conv.messages.filter((m) => m && typeof m === "object");
  let prev = null;
  const ids = new Set();
  for (const m of conv.messages) {
    if (typeof m.id !== "string" || !m.id || ids.has(m.id)) m.id = freshId();
    if (typeof m.content !== "string") m.content = m.content == null ? "" : String(m.content);
    if (!ROLES.has(m.role)) m.role = m.role === "system" ? "user" : "assistant";
    if (m.rev !== undefined && !validStamp(m.rev)) delete m.rev;
    if (m.revs !== undefined) m.revs = stampsOf(m.revs); // each field's (store.js)
    if (m.parent === undefined) m.parent = prev;
    prev = m.id;
    ids.add(m.id);
  }
  const parents = new Map(conv.messages.map((m) => [m.id, m]));
  for (const m of conv.messages) {
    if (m.parent !== null && !ids.has(m.parent)) m.parent = null;
    const seen = new Set([m.id]);
    for (let p = parents.get(m.parent); p; p = parents.get(p.parent)) {
      if (seen.has(p.id)) { m.parent = null; break; } // a loop: this message starts a branch
      seen.add(p.id);
    }
  }
  if (!ids.has(conv.leaf)) conv.leaf = prev;
  conv.version = 2;
  if (!conv.used) conv.used = conv.updated || conv.created || 0;
  return conv;
}

export function byId(conv, id) {
  return conv.messages.find((m) => m.id === id) || null;
}

// The messages shown, oldest first: from the leaf up to the root.
export function path(conv) {
  return lineage(conv, conv.leaf);
}

// A message and those before it on its branch, oldest first.
export function lineage(conv, id) {
  const index = new Map(conv.messages.map((m) => [m.id, m]));
  const out = [];
  for (let m = index.get(id); m && out.length <= conv.messages.length; m = index.get(m.parent)) {
    out.push(m);
  }
  return out.reverse();
}

export function children(conv, parentId) {
  return conv.messages.filter((m) => m.parent === parentId);
}

// The versions of a message: it and its siblings of the same role, oldest first.
export function versions(conv, m) {
  return children(conv, m.parent).filter((x) => x.role === m.role);
}

// Show the branch through ``id``: below it, the newest version at each step.
export function select(conv, id) {
  let node = id;
  for (let steps = 0, kids = children(conv, node); kids.length && steps <= conv.messages.length;
       steps++, kids = children(conv, node)) {
    node = kids[kids.length - 1].id;
  }
  conv.leaf = node;
}

export function add(conv, parentId, message) {
  message.parent = parentId;
  conv.messages.push(message);
  conv.leaf = message.id;
  return message;
}

// A reply to ``userId`` goes between it and any message sent after it meanwhile (a message sent
// while an earlier one had failed): the branch stays one line, as it was sent.
export function addReply(conv, userId, reply) {
  const later = children(conv, userId).filter((m) => m.role === "user");
  const leaf = conv.leaf;
  add(conv, userId, reply);
  for (const m of later) m.parent = reply.id;
  if (later.length && leaf !== userId) conv.leaf = leaf;
  return reply;
}

// Remove a message that has no replies (an empty reply that failed); the path ends at its parent.
export function drop(conv, id) {
  const m = byId(conv, id);
  if (!m || children(conv, id).length) return;
  conv.messages.splice(conv.messages.indexOf(m), 1);
  if (conv.leaf === id) conv.leaf = m.parent;
}
