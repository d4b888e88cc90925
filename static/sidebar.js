// The conversation list (most recently used first), search across every conversation's title
// and messages (every branch), rename, and delete with undo.
import * as S from "./store.js";
import { $, banner, button, el, marked } from "./ui.js";

function snippet(text, query) {
  const at = text.toLowerCase().indexOf(query.toLowerCase());
  const start = Math.max(0, at - 30);
  return (start ? "…" : "") + text.slice(start, at + query.length + 50).replace(/\s+/g, " ") +
    (at + query.length + 50 < text.length ? "…" : "");
}

export function initSidebar(app) {
  function renderList() {
    const query = $("search").value.trim(), needle = query.toLowerCase();
    app.query = query;
    const ul = $("conv-list");
    ul.replaceChildren();
    let shown = 0;
    for (const conv of S.list()) {
      const hit = needle ? conv.messages.find((m) => m.content.toLowerCase().includes(needle)) : null;
      if (needle && !hit && !conv.title.toLowerCase().includes(needle)) continue;
      shown++;
      const active = conv.id === app.current.id;
      const li = el("li", active ? "active" : "");
      const open = el("button", "conv-open");
      open.type = "button";
      open.appendChild(marked(conv.title, query));
      if (hit) open.appendChild(el("span", "snippet")).appendChild(marked(snippet(hit.content, query), query));
      if (active) open.setAttribute("aria-current", "true");
      open.onclick = () => { app.open(conv.id, hit && hit.id); app.hideSidebar(); };
      li.appendChild(open);
      button(li, "✎", () => rename(conv.id), `Rename "${conv.title}"`).className = "icon";
      button(li, "×", () => remove(conv.id), `Delete "${conv.title}"`).className = "icon";
      li.dataset.id = conv.id;
      ul.appendChild(li);
    }
    $("search-status").textContent = query ? `${shown} conversation${shown === 1 ? "" : "s"} match` : "";
  }

  // The open conversation is the in-memory one (it may hold a reply being written).
  const find = (id) => (id === app.current.id ? app.current : S.read(id));

  function rename(id) {
    const conv = find(id);
    if (!conv) return;
    const title = prompt("Rename conversation", conv.title);
    if (!title || !title.trim()) return;
    conv.title = title.trim();
    S.write(conv, { keepTime: true });
    app.render();
  }

  function remove(id) {
    const conv = find(id);
    if (!conv) return;
    if (id === app.current.id) app.stop();
    conv.deleted = true; // a reply still being written must not save it back
    S.remove(id);
    if (id === app.current.id) {
      const rest = S.list();
      if (rest.length) app.open(rest[0].id); else app.newConversation();
    } else renderList();
    banner(`Deleted "${conv.title}".`, [["Undo", () => {
      delete conv.deleted;
      if (S.write(conv, { keepTime: true })) app.open(conv.id);
    }]]);
  }

  $("search").addEventListener("input", () => app.render());
  $("search").addEventListener("keydown", (e) => {
    if (e.key === "Escape" && $("search").value) { e.stopPropagation(); $("search").value = ""; app.render(); }
  });
  return { renderList, rename, remove };
}
