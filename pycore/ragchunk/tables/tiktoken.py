"""The rank files of OpenAI's BPE encodings, from the pinned npm ``tiktoken`` package.

The same ``encoders/<name>.json`` files the page hands to tiktoken's WASM build, so the
library, the CLI and the page give identical ids. ``build.py`` copies them from
``node_modules/tiktoken/encoders/`` (``npm ci`` checked the package's integrity against
``package-lock.json``) into ``ragchunk/tables/data/``.
"""

from __future__ import annotations

from . import Source, Table, register

NPM_VERSION = "1.0.22"

RANK_FILES = {
    "cl100k_base": "49a4e05dea02c8fafbd50cc4725c4aab8f39386c0afedef118e0dfebc2fe523a",
    "o200k_base": "df53e1a5f146e33a1b144d12ad9d685ee1b54dbc8b0950791ed45c933b119dc1",
    "p50k_base": "f1f1f3a216c670d53b56cd3077e16e2e60644482584521881e95996d9310034e",
    "r50k_base": "199cf7ee5013d4cd95015d672fdc9d9d8ebf942f69fc5ed424148add1f533493",
}

register(__name__, *(
    Table(
        name=f"tiktoken-{name}",
        file=f"{name}.json",
        sha256=sha256,
        folder="data",
        licence="MIT (npm tiktoken, the ranks of openai/tiktoken)",
        origin=f"encoders/{name}.json of the npm package tiktoken {NPM_VERSION}",
        source=Source("npm", "tiktoken", NPM_VERSION, f"encoders/{name}.json"),
    )
    for name, sha256 in RANK_FILES.items()
))
