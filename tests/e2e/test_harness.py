"""The tests' shared core (keeper.js, conftest.py): one boot serves many tabs, and each tab
starts from an empty workspace."""

from __future__ import annotations

from conftest import watched_page
from pages import CalculatorPage, SplitterPage


def test_a_new_tab_gets_the_booted_core_without_the_last_tabs_documents(shared, watch):
    shared.watch = watch
    first = watched_page(shared.context, watch)
    calc = CalculatorPage(first).open()
    boots = shared.keeper_state()["boots"]
    calc.paste("A document of the first tab.")
    docs = shared.keeper.evaluate("() => [...keeperState.docs]")
    assert len(docs) == 1
    first.close()

    second = watched_page(shared.context, watch)
    splitter = SplitterPage(second).open()
    assert shared.keeper_state()["docs"] == 0
    reply = shared.keeper.evaluate("doc => keeperProbe({type: 'text', payload: {doc}})", docs[0])
    assert reply["ok"] is False and reply["errors"][0]["code"] == "text_empty", reply
    splitter.choose_file("notes.md", b"# Notes\n\nA document of the second tab.\n")
    assert splitter.stat("chunks") == "1"
    assert shared.keeper_state()["boots"] == boots, "the second tab was served by the same worker"
    second.close()
    watch.check()


def test_a_cancel_that_crossed_its_reply_stops_nothing_later(shared):
    # A page cancels while its request ends: the cancel reaches the worker after the reply.
    # The worker used to remember it, and cancel the next request given the same id (in the
    # tests, the next tab's request 2 was cancelled at once, and the test waited for ever).
    ask = "request => keeperProbe(request)"
    assert shared.keeper.evaluate(ask, {"id": "crossed", "type": "spec"})["ok"] is True
    shared.keeper.evaluate("() => keeperState.worker.postMessage({type: 'cancel', id: 'crossed'})")
    again = shared.keeper.evaluate(ask, {"id": "crossed", "type": "spec"})
    assert again["ok"] is True and "cancelled" not in again, again
