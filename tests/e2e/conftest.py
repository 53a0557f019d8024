"""Browser tests: build dist/ once, serve it on a free port, drive Debian's Chromium.

Every page gets a route guard (any request to another origin fails the test) and a
collector of console errors and uncaught page errors (any of them fails the test).

The ``page`` of a test is a new tab, so the page's fields, documents, URL and scripts start
as a person's first visit. Its core, though, is one booted worker shared by the tests of the
session (keeper.js): the documents a test loaded are dropped before the next one starts, and
a worker left busy is replaced; every message that worker sends or receives is held to the
worker protocol (pycore/ragchunk/api/protocol.json), and one against it fails the test. A
test that needs a new worker too, or its own browser context, is marked ``fresh_core`` or
asks for the ``context`` fixture: its ``page`` is then a tab of a new context, booting its
own core. Start-up, privacy, offline and service worker,
embedding and what the first use of a tokenizer fetches are tested that way.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from buildsteps.common import DIST  # noqa: E402
from buildsteps.serve import make_server  # noqa: E402
from buildsteps.site import build  # noqa: E402

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
# Waits are for what the page shows; this only ends a test that hangs (a busy machine is slow,
# never this slow).
BOOT_TIMEOUT_MS = 300_000
KEEPER_SCRIPT = Path(__file__).with_name("keeper.js")
KEEPER_CHANNEL = "ragchunk-test-keeper"


def pytest_configure(config):
    config.addinivalue_line("markers", "fresh_core: the test's page boots its own core in a new browser context")


def pytest_collection_modifyitems(items):
    for item in items:
        if "/e2e/" in str(item.fspath):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def dist(request) -> Path:
    if os.environ.get("RAGCHUNK_SKIP_BUILD") and (DIST / "build.json").is_file():
        return DIST
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return build()
    # Workers of one run (pytest -n) build dist/ once: the first one builds, the others wait
    # for it and serve what it built. (`build.py test` builds before pytest starts.)
    import fcntl
    import tempfile

    lock = Path(tempfile.gettempdir()) / f"ragchunk-dist-{request.getfixturevalue('testrun_uid')}.lock"
    with lock.open("a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        if handle.read() != "built":
            build()
            handle.write("built")
    return DIST


@contextmanager
def own_server(site: Path) -> Iterator[tuple[object, str]]:
    """A server of ``site`` on a free port, and its base URL; the caller may stop it early
    (``server.shutdown()``: the site is then offline), and it is stopped at the end."""
    server = make_server(site, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server, f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def base_url(dist: Path) -> Iterator[str]:
    with own_server(dist) as (_, url):
        yield url


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    # Playwright gives every launch a fresh, empty profile of its own.
    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        make_context = instance.new_context

        # Every context a test opens waits for what its pages show at most BOOT_TIMEOUT_MS.
        def new_context(**options):
            ctx = make_context(**options)
            ctx.set_default_timeout(BOOT_TIMEOUT_MS)
            return ctx

        instance.new_context = new_context
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


@dataclass
class Shared:
    """The session's shared context and its keeper tab (keeper.js); ``watch`` is the running test's."""

    context: object
    keeper: object
    watch: Watch

    def keeper_state(self) -> dict:
        return self.keeper.evaluate("({boots: keeperState.boots, resets: keeperState.resets, docs: keeperState.docs.size,"
                                    " checked: keeperState.checked})")


@pytest.fixture(scope="session")
def shared(browser, base_url: str) -> Iterator[Shared]:
    holder = Shared(None, None, Watch(origin_of(base_url)))
    # The guard and the request list write to the running test's watch (holder.watch).
    ctx = browser.new_context(base_url=base_url, service_workers="block")

    def guard(route):
        url = route.request.url
        if url.startswith(("data:", "blob:")) or origin_of(url) == holder.watch.origin:
            route.continue_()
        else:
            holder.watch.foreign.append(url)
            route.abort()

    ctx.route("**/*", guard)
    ctx.on("request", lambda request: holder.watch.requests.append(request))
    source = KEEPER_SCRIPT.read_text(encoding="utf-8")
    ctx.add_init_script(script=f"{source}\nrelay({KEEPER_CHANNEL!r});")
    keeper = ctx.new_page()
    keeper.set_default_timeout(BOOT_TIMEOUT_MS)
    # The worker's errors and console reach the keeper tab: they fail the running test.
    keeper.on("console", lambda m: holder.watch.console_errors.append(m.text) if m.type == "error" else None)
    keeper.on("pageerror", lambda e: holder.watch.page_errors.append(str(e)))
    keeper.goto("favicon.svg")
    keeper.evaluate(f"async () => {{ {source}\n await keeper({KEEPER_CHANNEL!r}); }}")
    holder.context, holder.keeper = ctx, keeper
    yield holder
    ctx.close()


@pytest.fixture
def page(request, base_url: str, watch: Watch):
    """A new tab; its core is the session's (see the module's docstring) unless the test is
    marked ``fresh_core`` or asks for ``context``, whose tab it then is."""
    if "context" in request.fixturenames or request.node.get_closest_marker("fresh_core"):
        ctx = request.getfixturevalue("context")
    else:
        shared = request.getfixturevalue("shared")
        shared.watch = watch
        ctx = shared.context
    tab = watched_page(ctx, watch)
    yield tab
    tab.close()
    watch.check()
