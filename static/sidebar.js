// The conversation list (most recently used first), search across every conversation's title
// and messages (every branch), rename, and delete with undo.
import * as S from "./store.js";
import { $, banner, button, el, marked, matcher } from "./ui.js";

// The text around a hit, starting a few words before it so that the line's ellipsis never
// hides the matched words.
function snippet(text, match) {
  let start = Math.max(0, match.index - 16);
  const space = text.lastIndexOf(" ", match.index - 1);
  if (start && space >= start) start = space + 1; // from a word's start
  const end = match.index + match[0].length + 60;
  return (start ? "…" : "") + text.slice(start, end).replace(/\s+/g, " ") + (end < text.length ? "…" : "");
}

export function initSidebar(app) {
  function renderList() {
    const query = $("search").value.trim(), re = query ? matcher(query) : null;
    app.query = query;
    const ul = $("conv-list");
    ul.replaceChildren();
    let shown = 0;
    for (const conv of S.list()) {
      const hit = re ? conv.messages.find((m) => re.test(m.content)) : null;
      if (re && !hit && !re.test(conv.title)) continue;
      shown++;
      const active = conv.id === app.current.id;
      const li = el("li", active ? "active" : "");
      const open = el("button", "conv-open");
      open.type = "button";
      open.appendChild(marked(conv.title, query));
      if (hit) open.appendChild(el("span", "snippet")).appendChild(marked(snippet(hit.content, hit.content.match(re)), query));
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
    const shown = find(id);
    if (!shown) return;
    const title = prompt("Rename conversation", shown.title);
    if (!title || !title.trim()) return;
    // The prompt blocked this tab: let what other tabs wrote meanwhile arrive, then read it.
    setTimeout(() => {
      const conv = id === app.current.id ? app.current : S.load(id);
      if (!conv) return;
      conv.title = title.trim();
      S.write(conv, { keepTime: true });
      app.render();
    }, 50);
  }

  // Deleted in this session, newest last: each Undo brings back the latest one.
  const trash = [];
  function offerUndo() {
    const conv = trash[trash.length - 1];
    if (!conv) return;
    const more = trash.length > 1 ? ` (${trash.length - 1} more can be brought back)` : "";
    banner(`Deleted "${conv.title}".${more}`, [["Undo", () => {
      trash.pop();
      if (S.read(conv.id) || S.write(conv, { keepTime: true, restore: true })) app.open(conv.id);
      offerUndo();
    }]]);
  }

  async function remove(id) {
    const conv = find(id);
    if (!conv) return;
    if (id === app.current.id && app.busy()) { app.stop(); await app.running; }
    S.remove(id); // a reply still being written cannot save it back
    trash.push(conv);
    if (id === app.current.id) {
      const rest = S.list();
      if (rest.length) await app.open(rest[0].id); else await app.newConversation();
    } else renderList();
    offerUndo();
  }

  $("search").addEventListener("input", () => app.render());
  $("search").addEventListener("keydown", (e) => {
    if (e.key === "Escape" && $("search").value) { e.stopPropagation(); $("search").value = ""; app.render(); }
  });
  return { renderList, rename, remove };
}
