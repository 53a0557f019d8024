"""The worker protocol in the browser: the page builds requests only through core/messages.js,
which holds them to pycore/ragchunk/api/protocol.json (as core/protocol.js) and refuses a bad
one before sending it; the worker refuses what the protocol refuses with the very errors the
core gives; both sides say a bad request in the same words. (keeper.js holds every message of
the shared worker to the same definition, so every browser test checks it too.)"""

from __future__ import annotations

import json

import pytest

from conftest import watched_page
from pages import CalculatorPage
from ragchunk.api import Workspace
from ragchunk.api.protocol import message_problems, request_errors

# A core of the page's own (bridge.js Core) through the shared worker: counts what it posts.
OWN_CORE = """async () => {
  const { Core } = await import("./core/bridge.js");
  const core = new Core(new URL("core/worker.js", location.href));
  await new Promise((resolve) => core.addEventListener("ready", resolve, { once: true }));
  const sent = [];
  const post = core.worker.postMessage.bind(core.worker);
  core.worker.postMessage = (message, transfer) => {
    sent.push(message.type);
    post(message, transfer);
  };
  globalThis.ownCore = { core, sent };
}"""

REFUSED = """([type, payload, document]) => ownCore.core.request(type, payload, document).then(
  (reply) => ({ reply }), (error) => ({ name: error.name, message: error.message, errors: error.errors }))"""


def errors_json(kind, payload, document=None) -> list[dict]:
    return [error.to_json() for error in request_errors(kind, payload, document)]


def test_the_page_refuses_a_malformed_request_with_its_errors_and_sends_nothing(page, shared, watch):
    calc = CalculatorPage(page).open()
    calc.paste("An existing flow: the text is counted by the shared worker.")
    assert calc.token_count() > 0
    checked = shared.keeper_state()["checked"]
    page.evaluate(OWN_CORE)

    refused = page.evaluate(REFUSED, ["analyze", {"chunksize": 8}, "a text"])
    expected = errors_json("analyze", {"chunksize": 8}, "a text")
    assert refused["name"] == "ProtocolError"
    assert refused["errors"] == expected
    assert refused["message"] == "worker protocol: " + "; ".join(e["message"] for e in expected)
    assert "doc is missing from the analyze request" in refused["message"]
    assert page.evaluate(REFUSED, ["tokenize", {}, None])["errors"][0]["code"] == "unknown_request"
    assert page.evaluate(REFUSED, ["drop", {"doc": 7}, None])["errors"] == errors_json("drop", {"doc": 7})

    good = page.evaluate(REFUSED, ["calculate", {"doc": "1000", "chunk_size": "100", "overlap": "10"}, None])
    assert good["reply"]["ok"] is True and good["reply"]["result"]["chunks"] == 11
    assert page.evaluate("() => ownCore.sent") == ["calculate"], "a refused request is never posted"
    assert shared.keeper_state()["checked"] > checked, "the keeper held the messages it carried to the protocol"


@pytest.mark.parametrize(("request_", "document"), [
    ({"type": "analyze", "payload": {"chunksize": 8}}, None),
    ({"type": "frobnicate", "payload": {}}, None),
    ({"type": "load", "payload": {"name": "a.md"}}, None),
    ({"type": "spec", "payload": [1, 2]}, None),
    ({"type": "export", "payload": {"doc": "d1", "format": "xml"}}, None),
    ({"type": "text", "payload": {"doc": "d1"}}, "a text"),
])
def test_the_worker_refuses_what_the_protocol_refuses_as_the_core_would(shared, watch, request_, document):
    shared.watch = watch
    reply = shared.keeper.evaluate("request => keeperProbe(request)", {**request_, "document": document})
    core = json.loads(Workspace().handle(request_["type"], json.dumps(request_["payload"]), document))
    assert reply.pop("id").startswith("probe-")
    assert reply == core and reply["ok"] is False
    watch.check()


def test_a_message_against_the_protocol_fails_the_test_that_sent_it(page, watch):
    # A raw worker (through the shared keeper): what no page would send, the keeper reports.
    page.goto("favicon.svg")
    reply = page.evaluate("""() => new Promise((resolve) => {
      const worker = new Worker("core/worker.js", { type: "module" });
      worker.onmessage = ({ data }) => { if (data.id === 1) resolve(data); };
      worker.postMessage({ id: 1, type: "drop", payload: { doc: "d1", also: true } });
    })""")
    assert [e["code"] for e in reply["errors"]] == ["request_field_unknown"]
    flagged = [m for m in watch.console_errors if m.startswith("worker protocol, to worker (drop)")]
    assert flagged == ["worker protocol, to worker (drop): the drop request has no field also: use doc"]
    watch.console_errors.remove(flagged[0])


BYTES = {"bytes": [37, 80, 68, 70]}  # made a Uint8Array in the page


@pytest.mark.parametrize(("kind", "payload", "document"), [
    ("analyze", {"chunk_size": 8, "first": 1.5, "count": "3", "chunksize": 1}, "text"),
    ("load", {"name": 5, "source": None}, None),
    ("load", {"name": "a.pdf"}, 42),
    ("load", {"name": "a.pdf"}, BYTES),
    ("text", {"doc": "d1"}, BYTES),
    ("export", {"docs": ["d1", 2, None], "format": "xml"}, None),
    ("export", {"docs": [[1]], "format": 3}, None),
    ("calculate", {"unit": "pages", "doc": None, "lengths": [1, 2.5], "decimal_comma": "yes"}, None),
    ("calculate", {"unit": None, "doc": "1", "lengths": None, "model": "bge-m3"}, None),
    ("split", {"doc": "d1", "prefix": None, "keep_prepared": "no", "page_size": 2.0, "chunk_size": True}, None),
    ("compare", {"docs": ["d1"], "price": "0.5"}, None),
    ("spec", [1, 2], None),
    ("spec", "text", None),
    ("spec", None, None),
    ("spec", {"": 1}, None),
    ("Spec", {}, None),
])
def test_page_and_core_say_a_bad_request_in_the_same_words(page, kind, payload, document):
    page.goto("favicon.svg")
    found = page.evaluate("""async ([kind, payload, document]) => {
      const { requestErrors } = await import("./core/messages.js");
      return requestErrors(kind, payload, document?.bytes ? new Uint8Array(document.bytes) : document);
    }""", [kind, payload, document])
    python_document = bytes(document["bytes"]) if isinstance(document, dict) else document
    assert found == errors_json(kind, payload, python_document)


@pytest.mark.parametrize(("direction", "message", "kind"), [
    ("to_worker", {"type": "cancel"}, None),
    ("to_worker", {"id": 1.5, "type": "drop", "payload": {"doc": "d1"}, "extra": 1}, None),
    ("to_worker", {"id": 1, "type": "shout"}, None),
    ("to_worker", {"id": 1, "type": "drop", "payload": {}}, None),
    ("from_worker", {"type": "progress", "stage": "napping", "done": 1.5, "total": 2}, None),
    ("from_worker", {"type": "ready", "version": 314, "bootMs": 3800}, None),
    ("from_worker", {"id": 1, "ok": True, "result": {"documents": 0, "more": 1}}, "drop"),
    ("from_worker", {"id": 1, "ok": True, "result": {"rows": [{"method": 1}], "size": 1, "overlap": 0,
                                                     "tokenizer": "x"}}, "compare"),
    ("from_worker", {"id": 1, "ok": False, "errors": [{"field": "doc", "message": "m", "code": None}]}, "drop"),
    ("from_worker", {"id": 1, "ok": False, "cancelled": False}, None),
    ("from_worker", [1], None),
])
def test_page_and_core_find_the_same_faults_in_a_message(page, direction, message, kind):
    page.goto("favicon.svg")
    found = page.evaluate("""async ([direction, message, kind]) => {
      const { messageProblems } = await import("./core/messages.js");
      return messageProblems(direction, message, kind);
    }""", [direction, message, kind])
    assert found == message_problems(direction, message, kind) != []


def test_a_new_tab_after_a_refusal_works(shared, watch):
    # The shared worker, after the refusals above, still answers a page's flow.
    shared.watch = watch
    tab = watched_page(shared.context, watch)
    calc = CalculatorPage(tab).open()
    calc.paste("One more text, counted after the worker refused bad requests.")
    assert calc.token_count() > 0
    tab.close()
    watch.check()
