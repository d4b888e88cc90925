// Branches. A conversation's messages form a tree: each names its parent (null for a first
// message), and editing a message or regenerating a reply adds a sibling, so every earlier
// version stays. ``leaf`` is the last message of the path shown; that path is what the page
// shows and what it sends to the server. Pure functions over the stored object.

// Format 1 stored a single path: each message's parent is the one before it. Also fills what a
// caller left out (a pushed message without a parent follows the one before it).
export function upgrade(conv) {
  let prev = null;
  const ids = new Set();
  for (const m of conv.messages) {
    if (m.parent === undefined) m.parent = prev;
    prev = m.id;
    ids.add(m.id);
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
  const index = new Map(conv.messages.map((m) => [m.id, m]));
  const out = [];
  for (let m = index.get(conv.leaf); m && out.length <= conv.messages.length; m = index.get(m.parent)) {
    out.push(m);
  }
  return out.reverse();
}

export function children(conv, parentId) {
  return conv.messages.filter((m) => m.parent === parentId);
}

// The versions of a message: it and its siblings, oldest first.
export function versions(conv, m) {
  return children(conv, m.parent);
}

// Show the branch through ``id``: below it, the newest version at each step.
export function select(conv, id) {
  let node = id;
  for (let kids = children(conv, node); kids.length; kids = children(conv, node)) {
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

// Remove a message that has no replies (an empty reply that failed); the path ends at its parent.
export function drop(conv, id) {
  const m = byId(conv, id);
  if (!m || children(conv, id).length) return;
  conv.messages.splice(conv.messages.indexOf(m), 1);
  if (conv.leaf === id) conv.leaf = m.parent;
}
