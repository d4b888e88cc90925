// The names a conversation gets: a title from its first message, and file names for exports.
// Both count user-perceived characters (grapheme clusters: an emoji family, a letter with its
// accents), so a cut never splits one.
const graphemes = (text) => typeof Intl !== "undefined" && Intl.Segmenter
  ? Array.from(new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text), (s) => s.segment)
  : Array.from(text);

// A title: at most 40 characters, cut at a word where there is one.
export function titleFrom(text) {
  const chars = graphemes(text.trim().replace(/\s+/g, " "));
  if (chars.length <= 40) return chars.join("");
  const head = chars.slice(0, 40), space = head.lastIndexOf(" "); // in characters, not units
  return (space >= 20 ? head.slice(0, space) : head).join("").replace(/[\s.,;:!?-]+$/u, "") + "…";
}
// A file name from the title: its words (letters with their marks, digits; any script), joined
// by dashes.
export function fileName(conv, ext) {
  const words = conv.title.normalize("NFC").match(/[\p{L}\p{M}\p{N}]+/gu) || [];
  // 60 characters, and at most 120 code points (letters stacked with marks count each mark)
  const slug = Array.from(graphemes(words.join("-")).slice(0, 60).join("")).slice(0, 120).join("")
    .replace(/-+$/, "");
  return `${slug || "conversation"}.${ext}`;
}
