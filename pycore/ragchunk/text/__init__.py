"""Text -> the structure a splitter cuts by: Markdown blocks (and front matter), the unit
tree of sections, blocks, lines, sentences and words, sentence boundaries, grapheme
clusters. Pure functions of a string, with code-point offsets into it; no tokens here."""
