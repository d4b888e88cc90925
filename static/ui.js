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

// Wrap each case-insensitive occurrence of ``query`` in the text under ``root`` in <mark>.
export function mark(root, query) {
  const needle = query.toLowerCase();
  if (!needle) return 0;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => (n.parentNode.closest("button, mark") ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  const nodes = [];
  while (walker.nextNode()) nodes.push(walker.currentNode);
  let count = 0;
  for (const node of nodes) {
    const text = node.nodeValue, lower = text.toLowerCase();
    if (lower.length !== text.length) continue; // a case mapping that changes lengths
    let at = lower.indexOf(needle), from = 0;
    if (at < 0) continue;
    const frag = document.createDocumentFragment();
    while (at >= 0) {
      frag.append(text.slice(from, at), el("mark", "", text.slice(at, at + needle.length)));
      from = at + needle.length;
      count++;
      at = lower.indexOf(needle, from);
    }
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
