"""The Content-Security-Policy of the site and of the single offline file: as a header and as a <meta>."""

from __future__ import annotations

import base64
import hashlib
import html

# The Content-Security-Policy of the site: nothing is allowed unless named here, and what
# is named is the page's own origin. Scripts only from files of the site (no inline code,
# no eval); 'wasm-unsafe-eval' lets WebAssembly compile (Pyodide, tiktoken) without
# allowing JavaScript eval, which Pyodide 314 does not need for a pure-Python wheel (its
# eval paths serve native extension modules and emscripten_run_script, unused here).
# connect-src 'self' is the privacy promise in the browser's own words: fetch, XHR,
# WebSocket, EventSource and sendBeacon can reach nothing but the site. There is no
# frame-ancestors: the tools are meant to be embedded in documentation sites of any
# origin (embed.js), and the frame never sends its parent anything but its height.
SITE_POLICY = {
    "default-src": "'none'",
    "script-src": "'self' 'wasm-unsafe-eval'",
    "worker-src": "'self'",
    "connect-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self'",
    "manifest-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'none'",
}
# The single offline file cannot follow the site's policy: it is one HTML file, so its
# code is inline. Its policy names each inline script and the style by sha256 (computed
# when the file is written), data: for our modules (the import map holds them as data:
# URLs) and blob: for Pyodide's (imported from blob: URLs); connect-src blob: is Pyodide
# reading its standard library from a blob: URL; img-src data: is the inlined icon.
# 'strict-dynamic' in place of data:/blob: was tried and does not work: Chromium refuses
# the imports of a parser-inserted inline module under it. Any http(s) request is refused.
OFFLINE_POLICY = {
    "default-src": "'none'",
    "script-src": "{hashes} data: blob: 'wasm-unsafe-eval'",
    "connect-src": "blob:",
    "style-src": "{style}",
    "img-src": "data:",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'none'",
}
# The site's pages also say it in a <meta>, for static hosts that send no headers; the
# header from the dev server (make_server) puts every browser test under it too.
CSP_META_AFTER = '<meta charset="utf-8">'


def policy_text(policy: dict[str, str]) -> str:
    """A Content-Security-Policy as a header value: ``default-src 'none'; script-src ...``."""
    return "; ".join(f"{directive} {sources}" for directive, sources in policy.items())


def sha256_source(text: str) -> str:
    """A CSP hash source for an inline script or style: ``'sha256-<base64>'``."""
    return f"'sha256-{base64.b64encode(hashlib.sha256(text.encode('utf-8')).digest()).decode()}'"


def with_policy_meta(page: str, policy: dict[str, str], name: str) -> str:
    """``page`` with its policy in a <meta> right after the charset, before anything it governs."""
    if page.count(CSP_META_AFTER) != 1:
        raise SystemExit(f"build.py: {name} needs exactly one {CSP_META_AFTER} (the Content-Security-Policy goes after it)")
    # A policy holds no double quote; single quotes stay readable in the attribute.
    meta = f'<meta http-equiv="Content-Security-Policy" content="{html.escape(policy_text(policy), quote=False)}">'
    return page.replace(CSP_META_AFTER, f"{CSP_META_AFTER}\n{meta}", 1)
