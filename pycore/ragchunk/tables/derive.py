"""Pure functions that turn a member of a pinned registry package into a table (bytes -> bytes).

``build.py`` reads the member out of the package (the only I/O) and calls the function a
:class:`ragchunk.tables.Table` names in ``derive``; the result must hash to the table's
pinned sha256.
"""

from __future__ import annotations
