// Safe Markdown: builds DOM nodes and sets only textContent, so no model or user text is ever
// parsed as HTML. Supports paragraphs, fenced code, lists, headings, bold, italic, inline code
// and http(s) links.
"use strict";
(function () {
  function inline(parent, text) {
    const re = /(`[^`]+`)|(\*\*[^*]+\*\*)|(\*[^*\s][^*]*\*)|(\[[^\]]+\]\((https?:\/\/[^\s)]+)\))/g;
    let last = 0, m;
    while ((m = re.exec(text))) {
      if (m.index > last) parent.appendChild(document.createTextNode(text.slice(last, m.index)));
      let node;
      if (m[1]) { node = document.createElement("code"); node.textContent = m[1].slice(1, -1); }
      else if (m[2]) { node = document.createElement("strong"); node.textContent = m[2].slice(2, -2); }
      else if (m[3]) { node = document.createElement("em"); node.textContent = m[3].slice(1, -1); }
      else {
        node = document.createElement("a");
        node.textContent = m[4].slice(1, m[4].indexOf("]("));
        node.href = m[5]; node.rel = "noopener noreferrer nofollow"; node.target = "_blank";
      }
      parent.appendChild(node);
      last = re.lastIndex;
    }
    if (last < text.length) parent.appendChild(document.createTextNode(text.slice(last)));
  }

  function render(text) {
    const root = document.createDocumentFragment();
    const lines = String(text).split("\n");
    let i = 0;
    while (i < lines.length) {
      const line = lines[i];
      if (line.startsWith("```")) {
        const pre = document.createElement("pre"), code = document.createElement("code");
        const body = [];
        i++;
        while (i < lines.length && !lines[i].startsWith("```")) body.push(lines[i++]);
        i++;
        code.textContent = body.join("\n");
        pre.appendChild(code); root.appendChild(pre);
        continue;
      }
      const item = /^\s*([-*]|\d+\.)\s+(.*)$/.exec(line);
      if (item) {
        const list = document.createElement(/\d/.test(item[1]) ? "ol" : "ul");
        while (i < lines.length) {
          const it = /^\s*([-*]|\d+\.)\s+(.*)$/.exec(lines[i]);
          if (!it) break;
          const li = document.createElement("li"); inline(li, it[2]); list.appendChild(li); i++;
        }
        root.appendChild(list);
        continue;
      }
      const heading = /^(#{1,6})\s+(.*)$/.exec(line);
      if (heading) {
        const h = document.createElement("h" + Math.min(6, heading[1].length + 2));
        inline(h, heading[2]); root.appendChild(h); i++;
        continue;
      }
      if (!line.trim()) { i++; continue; }
      const p = document.createElement("p");
      const para = [];
      while (i < lines.length && lines[i].trim() && !lines[i].startsWith("```") &&
             !/^\s*([-*]|\d+\.)\s+/.test(lines[i]) && !/^#{1,6}\s/.test(lines[i])) para.push(lines[i++]);
      para.forEach((l, k) => { if (k) p.appendChild(document.createElement("br")); inline(p, l); });
      root.appendChild(p);
    }
    return root;
  }
  window.MnemoMarkdown = { render };
})();
