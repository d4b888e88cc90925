// Small DOM helpers shared by the page's modules. Text is only ever inserted as textContent.
export const $ = (id) => document.getElementById(id);

export function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

export function button(parent, label, fn, ariaLabel) {
  const b = el("button", "", label);
  b.type = "button";
  b.onclick = fn;
  if (ariaLabel) b.setAttribute("aria-label", ariaLabel);
  parent.appendChild(b);
  return b;
}

// The banner: a message and optional actions ([label, fn] pairs); it closes with ×.
export function banner(text, actions = []) {
  const b = $("banner");
  b.replaceChildren(el("span", "", text));
  for (const [label, fn] of actions) button(b, label, () => { b.hidden = true; fn(); });
  button(b, "×", () => { b.hidden = true; }, "Close message");
  b.hidden = false;
}

export function download(name, data, type) {
  const blob = new Blob([typeof data === "string" ? data : JSON.stringify(data, null, 2)],
                        { type: type || "application/json" });
  const a = el("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

// A search as a regular expression: the text literally, any case, any run of spaces for a space.
export function matcher(query, flags = "iu") {
  const words = query.trim().split(/\s+/).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(words.join("\\s+"), flags);
}

// Wrap each occurrence of ``query`` in the text under ``root`` in <mark>; returns how many.
export function mark(root, query) {
  if (!query.trim()) return 0;
  const re = matcher(query, "giu");
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => (n.parentNode.closest("button, mark") ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  const nodes = [];
  while (walker.nextNode()) nodes.push(walker.currentNode);
  let count = 0;
  for (const node of nodes) {
    const text = node.nodeValue, frag = document.createDocumentFragment();
    let from = 0;
    for (const m of text.matchAll(re)) {
      if (!m[0]) break;
      frag.append(text.slice(from, m.index), el("mark", "", m[0]));
      from = m.index + m[0].length;
      count++;
    }
    if (!from) continue;
    frag.append(text.slice(from));
    node.replaceWith(frag);
  }
  return count;
}

// Text with each occurrence of ``query`` marked, as a fragment (for titles and snippets).
export function marked(text, query) {
  const span = el("span", "", text);
  mark(span, query);
  return span;
}
