// Keyboard shortcuts, and their list (the "?" key or the Shortcuts button). Letters are
// matched by physical key (event.code), so they work whatever the keyboard layout and on macOS,
// where Option changes the character typed.
import { $, el } from "./ui.js";

const editable = (t) => t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
// Alt+Shift+letter, unless it types a character into a text field (on macOS Option+Shift+C is
// how "Ç" is typed).
const letter = (e, key) => e.altKey && e.shiftKey && !e.ctrlKey && !e.metaKey && e.code === "Key" + key &&
  !(editable(e.target) && e.key.length === 1 && e.key.toUpperCase() !== key);

export const SHORTCUTS = [
  { keys: "Alt+Shift+N", what: "New chat", test: (e) => letter(e, "N"), run: (app) => app.newConversation() },
  { keys: "Ctrl+K (⌘K)", what: "Search conversations", test: (e) => (e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === "k",
    run: (app) => app.showSidebar($("search")) },
  { keys: "Shift+Esc", what: "Focus the message box", test: (e) => e.key === "Escape" && e.shiftKey,
    run: () => $("input").focus() },
  { keys: "Esc", what: "Stop the reply being written", test: (e) => e.key === "Escape" && !e.shiftKey,
    run: (app) => app.stop(), when: (app) => app.busy() },
  { keys: "Alt+Shift+R", what: "Regenerate the last reply", test: (e) => letter(e, "R"), run: (app) => app.regenerate() },
  { keys: "Alt+Shift+C", what: "Copy the last reply", test: (e) => letter(e, "C"), run: (app) => app.copyLast() },
  { keys: "Alt+Shift+E", what: "Edit your last message", test: (e) => letter(e, "E"), run: (app) => app.editLast() },
  { keys: "?", what: "Show this list", test: (e) => e.key === "?" && !editable(e.target) && !e.ctrlKey && !e.altKey,
    run: () => open() },
];

function open() {
  const dialog = $("shortcuts");
  if (!dialog.open) dialog.showModal();
}

export function initShortcuts(app) {
  const table = $("shortcut-table");
  table.replaceChildren(el("caption", "visually-hidden", "Shortcuts and what they do"));
  for (const s of SHORTCUTS) {
    const row = el("tr");
    const key = el("th", "", "");
    key.scope = "row";
    key.appendChild(el("kbd", "", s.keys));
    row.append(key, el("td", "", s.what));
    table.appendChild(row);
  }
  $("show-shortcuts").onclick = open;
  document.addEventListener("keydown", (e) => {
    if (e.isComposing || e.keyCode === 229 || $("shortcuts").open) return;
    const hit = SHORTCUTS.find((s) => s.test(e) && (!s.when || s.when(app)));
    if (!hit) return;
    e.preventDefault();
    hit.run(app);
  });
}
