"""What a split gives back: one record schema for JSONL, the page and Arrow (``records``),
and the side-by-side comparison of fixed windows and each structural level (``compare``)."""
