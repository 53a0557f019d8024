// The evaluation's text helpers: the core's offsets are code points (Python's), a JS
// string's are UTF-16 units; questions in the box's plain shape (one a line, answers after
// a tab or on following lines starting with ">", as ragchunk.evaluate.questions reads them).

/**
 * A function from a code-point offset of `text` to its UTF-16 offset (the identity when the
 * text has no character past U+FFFF): codeUnits("a😀b")(2) is 3.
 */
export function codeUnits(text) {
  const starts = [];
  let astral = false;
  for (let i = 0; i < text.length; i++) {
    starts.push(i);
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        astral = true;
        i++;
      }
    }
  }
  if (!astral) return (offset) => offset;
  return (offset) => (offset >= starts.length ? text.length : starts[offset]);
}

/**
 * A retrieved chunk ({start, end} in code points of `text`) as nodes: its text with the
 * parts that are an answer ({start, end}, same document) in <mark>. `at` converts offsets
 * (codeUnits(text)).
 */
export function highlighted(text, chunk, answers, at) {
  const cuts = [];
  for (const answer of answers) {
    const start = Math.max(answer.start, chunk.start);
    const end = Math.min(answer.end, chunk.end);
    if (start < end) cuts.push([start, end]);
  }
  cuts.sort((a, b) => a[0] - b[0]);
  const nodes = [];
  let from = chunk.start;
  for (const [start, end] of cuts) {
    if (end <= from) continue;
    const begin = Math.max(start, from);
    if (begin > from) nodes.push(document.createTextNode(text.slice(at(from), at(begin))));
    const mark = document.createElement("mark");
    mark.textContent = text.slice(at(begin), at(end));
    nodes.push(mark);
    from = end;
  }
  if (from < chunk.end) nodes.push(document.createTextNode(text.slice(at(from), at(chunk.end))));
  return nodes;
}

/** The questions of a plain box: [{line, question}], `line` the index of its line. */
export function questionLines(text) {
  const out = [];
  text.split("\n").forEach((raw, line) => {
    const value = raw.replace(/\r$/, "");
    if (!value.trim() || value.trimStart().startsWith(">")) return;
    out.push({ line, question: value.split("\t")[0].trim() });
  });
  return out;
}

/** `text` with the question on line `line` answered by `quote` alone: "> quote" on the next line. */
export function withAnswer(text, line, quote) {
  const lines = text.split("\n");
  const question = lines[line].replace(/\r$/, "").split("\t")[0];
  let end = line + 1;
  while (end < lines.length && lines[end].trimStart().startsWith(">")) end++;
  lines.splice(line, end - line, question, `> ${quote}`);
  return lines.join("\n");
}
