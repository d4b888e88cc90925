// What a new conversation shows: which model answers, and a few ways to start (each example
// is sent as the first message; a draft already typed stays in the composer).
import { $, button, el } from "./ui.js";

const EXAMPLES = [
  ["Explain something", "Explain how a rainbow forms, in three sentences."],
  ["Write", "Write a short, friendly note inviting my neighbours to a garden party."],
  ["Plan", "Give me a simple plan for learning to cook in one month."],
  ["Brainstorm", "Suggest five names for a small bakery."],
];
export function emptyState(model) {
  const div = el("div", "empty");
  div.appendChild(el("h2", "", "How can I help?"));
  div.appendChild(el("p", "model", model ? `You are chatting with ${model}. Your conversations stay in this browser.`
    : "Your conversations stay in this browser."));
  const grid = el("div", "examples");
  for (const [hint, text] of EXAMPLES) {
    const b = button(grid, "", () => {
      const draft = $("input").value; // the submit reads the example at once; a draft stays
      $("input").value = text;
      $("composer").requestSubmit();
      if (draft.trim()) $("input").value = draft;
    }, `${hint}: ${text}`);
    b.append(el("span", "hint", hint), el("span", "", text));
  }
  div.appendChild(grid);
  return div;
}
