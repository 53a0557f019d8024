"""Browser tests: build dist/ once, serve it on a free port, drive Debian's Chromium.

Every page gets a route guard (any request to another origin fails the test) and a
collector of console errors and uncaught page errors (any of them fails the test).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import build  # noqa: E402

CHROMIUM = os.environ.get("RAGCHUNK_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
BOOT_TIMEOUT_MS = 60_000


def pytest_collection_modifyitems(items):
    for item in items:
        if "/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def dist() -> Path:
    if os.environ.get("RAGCHUNK_SKIP_BUILD") and (build.DIST / "build.json").is_file():
        return build.DIST
    return build.build()


@pytest.fixture(scope="session")
def base_url(dist: Path) -> Iterator[str]:
    server = build.make_server(dist, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    # Playwright gives every launch a fresh, empty profile of its own.
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield instance
        instance.close()


@dataclass
class Watch:
    """What a page did: requests, foreign requests blocked, console errors, page errors."""

    origin: str
    requests: list = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    allow_console: list[str] = field(default_factory=list)

    def check(self) -> None:
        assert not self.foreign, f"requests to other origins: {self.foreign}"
        assert not self.page_errors, f"uncaught page errors: {self.page_errors}"
        unexpected = [m for m in self.console_errors if not any(a in m for a in self.allow_console)]
        assert not unexpected, f"console errors: {unexpected}"


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


@pytest.fixture
def watch(base_url: str) -> Watch:
    return Watch(origin_of(base_url))


def guarded_context(browser, base_url: str, watch: Watch, **options):
    """A new context on the site in which every request to another origin is refused and
    recorded in ``watch`` (data: and blob: URLs stay local), and every request is listed.
    ``options`` go to ``browser.new_context`` (service workers are blocked unless given)."""
    options.setdefault("service_workers", "block")
    ctx = browser.new_context(base_url=base_url, **options)

    def guard(route):
        url = route.request.url
        if url.startswith(("data:", "blob:")) or origin_of(url) == watch.origin:
            route.continue_()
        else:
            watch.foreign.append(url)
            route.abort()

    ctx.route("**/*", guard)
    ctx.on("request", lambda request: watch.requests.append(request))
    return ctx


def watched_page(ctx, watch: Watch):
    """A new tab whose console errors and uncaught page errors land in ``watch``."""
    tab = ctx.new_page()
    tab.on("console", lambda m: watch.console_errors.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda e: watch.page_errors.append(str(e)))
    tab.set_default_timeout(BOOT_TIMEOUT_MS)
    return tab


@pytest.fixture
def context(browser, base_url: str, watch: Watch):
    ctx = guarded_context(browser, base_url, watch)
    yield ctx
    ctx.close()


@pytest.fixture
def page(context, watch: Watch):
    tab = watched_page(context, watch)
    yield tab
    watch.check()
