"""The evaluation as the page's worker asks for it (issue 34): the "evaluate" request of the
workspace, the model run outside Python (StagedMiniLM) and the ranking without numpy."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from ragchunk import RagchunkError
from ragchunk.api import Workspace
from ragchunk.evaluate import evaluate, read_questions
from ragchunk.evaluate.minilm import MiniLM
from ragchunk.evaluate.retrieval import EmbeddingCache, _dense_top_lists, dense_top
from ragchunk.evaluate.staged import DIMENSIONS, OnnxRuntime, StagedMiniLM, drive_with, vectors_of

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "chunking-evaluation"
CORPUS = "state_of_the_union"
GRID = {"by": ["fixed", "paragraphs"], "sizes": [128, 256]}


def questions_of(corpus: str, count: int) -> str:
    """The first ``count`` questions of the sample CSV about ``corpus``, as the CSV holds them."""
    lines = (DATA / "questions.csv").read_text(encoding="utf-8").splitlines(keepends=True)
    rows = [line for line in lines[1:] if line.rstrip().endswith("," + corpus)]
    return lines[0] + "".join(rows[:count])


def loaded(workspace: Workspace, name: str) -> str:
    data = (DATA / "corpora" / name).read_bytes()
    reply = json.loads(workspace.handle("load", json.dumps({"name": name}), data))
    return reply["result"]["doc"]


def test_the_request_answers_the_clis_json_byte_for_byte_with_bm25():
    workspace = Workspace()
    doc = loaded(workspace, f"{CORPUS}.md")
    text = questions_of(CORPUS, 40)
    steps = []
    reply = json.loads(workspace.handle("evaluate", json.dumps({"docs": [doc], "questions": text,
                                                                "questions_name": "questions.csv", **GRID}),
                                        progress=lambda *step: steps.append(step)))
    assert reply["ok"], reply
    document = (CORPUS + ".md", (DATA / "corpora" / f"{CORPUS}.md").read_text(encoding="utf-8"))
    expected = evaluate([document], read_questions(text, "questions.csv"), by=GRID["by"], sizes=GRID["sizes"])
    # The CLI prints json.dumps(result.to_json()) (ragchunk.cli.evaluate.run_evaluate).
    assert reply["result"]["json"] == json.dumps(expected.to_json())
    assert {key: value for key, value in reply["result"].items() if key not in ("json", "asked")} == json.loads(
        reply["result"]["json"])
    assert reply["result"]["asked"][0] == {"id": "1", "question": read_questions(text, "q.csv")[0].question}
    assert steps[0][0] == "locating"
    assert [step[3]["setting"] for step in steps if step[0] == "chunking"] == [
        "fixed 128/16", "fixed 256/32", "paragraphs 128/16", "paragraphs 256/32"]


def test_bad_settings_are_refused_with_the_field_named():
    workspace = Workspace()
    doc = loaded(workspace, f"{CORPUS}.md")
    for payload, field in (({"sizes": [4]}, "chunk_size"), ({"overlap": -1}, "overlap"), ({"by": ["pages"]}, "by"),
                           ({"retrievers": ["tfidf"]}, "retriever"), ({"questions": " \n"}, "questions")):
        reply = json.loads(workspace.handle("evaluate", json.dumps({"docs": [doc], "questions": "Why?", **payload})))
        assert not reply["ok"] and reply["errors"][0]["field"] == field, (payload, reply)
    reply = json.loads(workspace.handle("evaluate", json.dumps({"docs": [], "questions": "Why?"})))
    assert reply["errors"][0]["code"] == "text_empty"


def test_the_model_run_outside_python_gives_the_same_rows_as_the_model_in_python():
    workspace = Workspace()
    doc = loaded(workspace, f"{CORPUS}.md")
    text = questions_of(CORPUS, 12)
    payload = {"docs": [doc], "questions": text, "questions_name": "questions.csv", "by": ["paragraphs"],
               "sizes": [256], "retrievers": ["bm25", "minilm", "hybrid"]}
    requests = []
    model = OnnxRuntime()
    minilm = MiniLM()

    class Counted:
        def run(self, rows):
            requests.append(len(rows))
            return model.run(rows)

    reply = json.loads(drive_with(workspace.run("evaluate", json.dumps(payload)), Counted()))
    assert reply["ok"], reply
    document = (CORPUS + ".md", (DATA / "corpora" / f"{CORPUS}.md").read_text(encoding="utf-8"))
    expected = evaluate([document], read_questions(text, "questions.csv"), by=["paragraphs"], sizes=[256],
                        retrievers=["bm25", "minilm", "hybrid"], embedder=minilm.embed)
    assert reply["result"]["json"] == json.dumps(expected.to_json())
    chunks = expected.to_json()["results"][0]["chunks"]
    assert sum(requests) == 12 + chunks and max(requests) <= 32  # each text once, in batches


def test_ranking_without_numpy_orders_as_numpy_does():
    rng = random.Random(7)
    vectors = {f"t{i}": [rng.gauss(0, 1) for _ in range(DIMENSIONS)] for i in range(60)}
    cache = EmbeddingCache(lambda texts, progress=None: [vectors[t] for t in texts])
    cache.add(list(vectors))
    chunks, questions = [f"t{i}" for i in range(50)], [f"t{i}" for i in range(50, 60)]
    assert _dense_top_lists([vectors[t] for t in chunks], [vectors[q] for q in questions], 5) == dense_top(
        cache, chunks, questions, 5)


def test_the_vectors_sent_back_are_checked():
    assert vectors_of([[0.5] * DIMENSIONS, [0.25] * DIMENSIONS], 2)[1][:2] == [0.25, 0.25]
    with pytest.raises(RagchunkError) as caught:
        vectors_of(b"\0" * 4 * DIMENSIONS, 2)
    assert caught.value.code == "model_output"
    with pytest.raises(RagchunkError) as caught:
        StagedMiniLM()(["a text"])
    assert caught.value.code == "model_staged"
