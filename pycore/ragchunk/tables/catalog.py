"""Every family's tables: importing this module fills :data:`ragchunk.tables.CATALOG`."""

from . import tiktoken  # noqa: F401
