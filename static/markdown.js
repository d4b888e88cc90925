// Markdown by markdown-it, sanitised by DOMPurify, code highlighted by highlight.js (all three
// vendored under static/vendor/). Raw HTML in the text stays text (markdown-it's html: false),
// and DOMPurify removes anything else a renderer bug could let through. Links open in a new
// tab without access to this page; only http(s) and mailto links are links. Images are never
// loaded (a model could be talked into an image URL that carries the conversation away): they
// become links. Each code block gets its language and a copy button.
const SAFE_URL = /^(?:https?:|mailto:)/i;
let md = null;

function highlight(code, lang) {
  const hljs = window.hljs;
  if (lang && hljs && hljs.getLanguage(lang)) {
    try { return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value; }
    catch (err) { /* fall back to plain, escaped text */ }
  }
  return "";
}

function renderer() {
  if (md) return md;
  md = window.markdownit({ html: false, linkify: true, breaks: false, highlight });
  md.validateLink = (url) => SAFE_URL.test(url.trim());
  md.renderer.rules.image = (tokens, idx) => {
    const token = tokens[idx], src = token.attrGet("src") || "";
    const alt = md.utils.escapeHtml(token.content || "image");
    // Inside a link (a linked image) it is that link's text: a link cannot hold a link.
    let open = 0;
    for (let i = 0; i < idx; i++) open += tokens[i].type === "link_open" ? 1 : tokens[i].type === "link_close" ? -1 : 0;
    if (open > 0 || !SAFE_URL.test(src)) return `image: ${alt}`;
    return `<a href="${md.utils.escapeHtml(src)}">image: ${alt}</a>`;
  };
  window.DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A") {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer nofollow");
    }
  });
  return md;
}

const PURIFY = {
  RETURN_DOM_FRAGMENT: true,
  FORBID_TAGS: ["img", "style", "form", "input", "button", "textarea", "select", "svg", "math",
                "iframe", "video", "audio", "source", "picture"],
  FORBID_ATTR: ["style", "id", "name"],
  ALLOWED_URI_REGEXP: SAFE_URL,
};

// Text to a DocumentFragment that is safe to insert.
export function render(text) {
  const frag = window.DOMPurify.sanitize(renderer().render(text || ""), PURIFY);
  // Wide tables and code scroll sideways: focusable, so the keyboard can scroll them too.
  for (const table of frag.querySelectorAll("table")) {
    const wrap = document.createElement("div");
    wrap.className = "table-wrap";
    wrap.tabIndex = 0;
    wrap.setAttribute("role", "region");
    wrap.setAttribute("aria-label", "Table");
    table.replaceWith(wrap);
    wrap.appendChild(table);
  }
  for (const pre of frag.querySelectorAll("pre")) {
    const code = pre.querySelector("code");
    (code || pre).tabIndex = 0; // the part that scrolls
    if (code) code.classList.add("hljs"); // the highlight.js theme's colours
    const lang = code && /(?:^|\s)language-(\S+)/.exec(code.className);
    const head = document.createElement("div");
    head.className = "code-head";
    const label = document.createElement("span");
    label.textContent = lang ? lang[1] : "code";
    const copy = document.createElement("button");
    copy.type = "button";
    copy.className = "copy-code";
    copy.textContent = "Copy";
    copy.setAttribute("aria-label", "Copy code" + (lang ? ` (${lang[1]})` : ""));
    head.append(label, copy);
    const box = document.createElement("div");
    box.className = "code-block";
    pre.replaceWith(box);
    box.append(head, pre);
  }
  return frag;
}

window.MnemoMarkdown = { render };
