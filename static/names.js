// The names a conversation gets: a title from its first message, and file names for exports.
// A title: at most 40 characters, cut at a word where there is one.
export function titleFrom(text) {
  const chars = Array.from(text.trim().replace(/\s+/g, " "));
  if (chars.length <= 40) return chars.join("");
  const head = chars.slice(0, 40).join(""), space = head.lastIndexOf(" ");
  return (space >= 20 ? head.slice(0, space) : head).replace(/[\s.,;:!?-]+$/u, "") + "…";
}
// A file name from the title: its letters and digits (any script), joined by dashes.
export function fileName(conv, ext) {
  const slug = (conv.title.match(/[\p{L}\p{N}]+/gu) || []).join("-").slice(0, 60);
  return `${slug || "conversation"}.${ext}`;
}
