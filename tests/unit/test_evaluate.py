"""Evaluation on a person's own questions (issue 33): quotes, question files, measures, BM25,
MiniLM, the grid, the recommendation and the command line."""

from __future__ import annotations

import io
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import snowballstemmer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tables"))

import ragchunk  # noqa: E402
from ragchunk import RagchunkError  # noqa: E402
from ragchunk.cli import main  # noqa: E402
from ragchunk.evaluate import Question, evaluate, read_questions  # noqa: E402
from ragchunk.evaluate.bm25 import BM25, terms  # noqa: E402
from ragchunk.evaluate.grid import chunks_of, grid  # noqa: E402
from ragchunk.evaluate.metrics import ChunkSpans, bootstrap_interval, precision_omega, score  # noqa: E402
from ragchunk.evaluate.quotes import closest_passage, find_quote  # noqa: E402
from ragchunk.evaluate.recommend import recommend  # noqa: E402
from ragchunk.evaluate.retrieval import rrf  # noqa: E402

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "chunking-evaluation"
GUIDE = ("# Install\n\nRun the installer. Then restart the machine.\n\n"
         "## Windows\n\nOpen **PowerShell** as an administrator and type `setup.exe /quiet`.\n\n"
         "# Use\n\nOpen the app and sign in with your “work” account — not a personal one.\n")


# --- quotes -----------------------------------------------------------------------------------


@pytest.mark.parametrize("quote", [
    "Open PowerShell as an administrator and type setup.exe /quiet.",  # emphasis and backticks as seen
    "open   powershell AS an\nadministrator",  # whitespace and case
    'sign in with your "work" account - not a personal one',  # straight quotes, hyphen for a dash
    "Windows Open PowerShell",  # across a heading: its # is markup
])
def test_a_quote_copied_from_the_page_is_found(quote):
    span = find_quote(GUIDE, quote)
    assert span is not None
    start, end = span
    found = GUIDE[start:end]
    assert found.split()[0].strip("*#`").lower() == quote.split()[0].lower()


def test_a_quote_ends_where_its_last_character_is():
    start, end = find_quote(GUIDE, "Run the installer.")
    assert GUIDE[start:end] == "Run the installer."


def test_a_quote_whose_spaces_were_lost_is_still_found():
    start, end = find_quote(GUIDE, "Runtheinstaller.Thenrestart")
    assert GUIDE[start:end] == "Run the installer. Then restart"


def test_a_quote_that_is_not_there_is_not_found_and_the_closest_passage_is_given():
    assert find_quote(GUIDE, "Reboot the computer twice") is None
    start, end = closest_passage(GUIDE, "restart the machine twice")
    assert "restart the machine" in GUIDE[start:end]
    assert closest_passage(GUIDE, "zzz qqq") is None


def test_a_link_reads_as_its_text():
    text = "See [the guide](https://example.org/a_b) for more."
    start, end = find_quote(text, "See the guide for more.")
    assert text[start:end] == text


# --- questions --------------------------------------------------------------------------------


def test_every_shape_of_question_file_is_read():
    jsonl = '{"question": "How?", "answers": ["Run it."], "id": "q1", "source": "a.md"}\n{"question": "Why?"}\n'
    assert read_questions(jsonl, "q.jsonl") == [Question("q1", "How?", ("Run it.",), "a.md"), Question("2", "Why?")]
    csv = "question,answer\nHow?,Run it.\nWhy?,\n"
    assert read_questions(csv.encode(), "q.csv") == [Question("1", "How?", ("Run it.",)), Question("2", "Why?")]
    plain = "How?\tRun it.\nWhy?\n> Because.\n> And more.\n\nWhere?\n"
    assert [(q.question, q.answers) for q in read_questions(plain, "q.txt")] == [
        ("How?", ("Run it.",)), ("Why?", ("Because.", "And more.")), ("Where?", ())]


def test_chunking_evaluations_csv_keeps_its_spans():
    questions = read_questions((DATA / "questions.csv").read_bytes(), "questions.csv")
    assert len(questions) == 373
    corpus = (DATA / "corpora" / f"{questions[0].source}.md").read_text(encoding="utf-8")
    for _, start, end, content in questions[0].spans:
        assert corpus[start:end] == content


@pytest.mark.parametrize(("data", "code"), [
    ("", "questions_empty"), ("  \n\n", "questions_empty"),
    ("id,text\n1,hello\n", "questions_unknown_shape"),
    ('{"answers": ["x"]}\n', "questions_no_question"),
    ("{not json\n", "questions_bad_json"),
    ('{"question": "q", "answers": [1]}\n', "questions_bad_answers"),
])
def test_a_bad_questions_file_is_named_with_the_fix(data, code):
    with pytest.raises(RagchunkError) as caught:
        read_questions(data, "mine.csv" if data.startswith("id,") else "mine.jsonl")
    assert caught.value.code == code and caught.value.field == "questions"
    assert caught.value.message.startswith("mine.") and ":" in caught.value.message


# --- measures, by hand --------------------------------------------------------------------------


def test_the_measures_of_a_hand_computed_question():
    # Answer: 40 characters at 100..140. Retrieved: 90..120 (covers 20), 130..150 (covers 10), a chunk of
    # another document (10 characters, covers nothing).
    retrieved = [("b.md", 0, 10), ("a.md", 90, 120), ("a.md", 130, 150)]
    result = score(retrieved, [("a.md", 100, 140)])
    assert result.recall == pytest.approx(30 / 40)
    assert result.precision == pytest.approx(30 / 60)
    assert result.iou == pytest.approx(30 / (60 + 10))
    assert (result.hit, result.reciprocal_rank) == (1.0, 0.5)
    assert score([("a.md", 0, 50)], [("a.md", 100, 140)]).reciprocal_rank == 0.0


def test_precision_omega_keeps_exactly_the_chunks_that_touch_an_answer():
    chunks = ChunkSpans([("a", 0, 100), ("a", 90, 190), ("a", 180, 280), ("b", 0, 100)])
    # Answer 95..185 touches all three chunks of a: 90 covered of 300 characters retrieved.
    assert precision_omega(chunks, [("a", 95, 185)]) == pytest.approx(90 / 300)
    assert precision_omega(chunks, [("b", 10, 20)]) == pytest.approx(10 / 100)


def test_the_bootstrap_interval_is_the_same_every_run_and_holds_the_mean():
    values = [0.0, 0.5, 1.0, 1.0, 0.25] * 8
    low, high = bootstrap_interval(values)
    assert (low, high) == bootstrap_interval(values)
    assert low < sum(values) / len(values) < high
    assert bootstrap_interval([0.7] * 10) == (0.7, 0.7)


def test_bm25_scores_as_lucene_does():
    docs = ["apple banana apple", "banana cherry", "cherry cherry date"]
    index = BM25(docs)
    n, avg = 3, (3 + 2 + 3) / 3

    def expected(doc_terms, term, df):
        tf = doc_terms.count(term)
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        return idf * tf / (tf + 1.5 * (1 - 0.75 + 0.75 * len(doc_terms) / avg))

    scores = index.scores("cherry apple")
    assert scores[0] == pytest.approx(expected(terms(docs[0]), "appl", 1))
    assert scores[2] == pytest.approx(expected(terms(docs[2]), "cherri", 2))
    assert index.top("cherry apple", 3) == sorted(scores, key=lambda i: -scores[i])
    assert terms("The running dogs") == ["run", "dog"]


def test_bm25_stems_with_the_pure_python_stemmer_even_beside_pystemmer(monkeypatch):
    """snowballstemmer.stemmer() returns PyStemmer's C stemmer when it is installed, and its
    stems differ ("international"): the index always uses the pure-Python one the page has."""
    import snowballstemmer

    from ragchunk.evaluate import bm25

    class Foreign:
        def stemWords(self, words):  # noqa: N802 - snowballstemmer's name
            return ["foreign"] * len(words)

    monkeypatch.setattr(snowballstemmer, "stemmer", lambda lang: Foreign())
    monkeypatch.setattr(bm25, "_stemmer", None)
    monkeypatch.setattr(bm25, "_stems", {})
    assert terms("international relations") == ["intern", "relat"]


def test_bm25_ranks_and_scores_alike_on_cpython_and_in_pyodide(tmp_path):
    root = Path(__file__).resolve().parents[2]
    node = shutil.which("node")
    assert node and (root / "node_modules" / "pyodide").is_dir(), "needs node and npm pyodide (build.py test installs)"
    chunks = [chunk.embed_text or chunk.text for path in sorted((DATA / "corpora").glob("*.md"))
              for chunk in ragchunk.split(path.read_text(encoding="utf-8"), size=256).chunks]
    questions = [q.question for q in read_questions((DATA / "questions.csv").read_bytes(), "questions.csv")]
    (tmp_path / "input.json").write_text(json.dumps({"chunks": chunks, "questions": questions, "k": 10}))
    ran = subprocess.run([node, str(Path(__file__).with_name("pyodide_bm25.mjs")), str(root / "pycore"),
                          str(Path(snowballstemmer.__file__).parent), str(tmp_path / "input.json")],
                         capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0, ran.stderr[-2000:]
    pyodide = json.loads(ran.stdout)
    index = BM25(chunks)
    assert pyodide["top"] == [index.top(question, 10) for question in questions]
    assert pyodide["scores"] == [sorted(map(list, index.scores(question).items())) for question in questions]
    assert len(chunks) > 1000 and sum(map(len, pyodide["top"])) > 3000  # a real ranking, not empty lists


def test_reciprocal_rank_fusion_prefers_what_both_rank_high():
    assert rrf([[3, 1, 2], [1, 3, 0]], 2) == [3, 1]
    assert rrf([[5], []], 3) == [5]


# --- the grid: exactly split's chunks ------------------------------------------------------------


def test_each_setting_is_exactly_the_chunks_split_or_the_windows_give():
    docs = [("guide.md", GUIDE * 3)]
    for setting in grid(sizes=(16, 40)):
        chunks = chunks_of(setting, docs, "cl100k_base")
        if setting.by == "fixed":
            expected = [(w.start, w.end, w.text) for w in
                        ragchunk.windows(GUIDE * 3, setting.size, setting.overlap, ragchunk.get_tokenizer())]
        else:
            result = ragchunk.split(GUIDE * 3, by=setting.by, size=setting.size, overlap=setting.overlap,
                                    context=setting.context)
            expected = [(c.start, c.end, c.embed_text or c.text) for c in result.chunks]
        assert [(c.start, c.end, c.indexed) for c in chunks] == expected, setting


def test_too_many_settings_or_an_unknown_way_is_refused():
    with pytest.raises(RagchunkError) as caught:
        grid(sizes=range(8, 8 + 13 * 4, 4))
    assert caught.value.code == "too_many_settings"
    with pytest.raises(RagchunkError) as caught:
        grid(by=("headings", "chapters"))
    assert caught.value.field == "by" and "chapters" in caught.value.message


# --- evaluate ------------------------------------------------------------------------------------


def test_ragchunk_evaluate_is_callable_with_settings_listed_one_by_one():
    """The issue's front door: ``ragchunk.evaluate(documents, questions, settings=..., retrievers=..., k=...)``
    with documents as a mapping and questions as strings or JSONL-shaped objects gives what the grid gives."""
    questions = [{"question": "How do I sign in?", "answers": ['sign in with your "work" account']},
                 "How to install on Windows?"]
    listed = ragchunk.evaluate({"guide.md": GUIDE}, questions, settings=["headings 32/4", ("fixed", 32, 4)],
                               retrievers=["bm25"], k=2).to_json()
    gridded = evaluate([("guide.md", GUIDE)], [Question("1", "How do I sign in?", ('sign in with your "work" account',)),
                                                Question("2", "How to install on Windows?")],
                       by=("headings", "fixed"), sizes=(32,), overlap=4, k=2).to_json()
    assert listed == gridded
    assert [(r["by"], r["size"], r["overlap"], r["context"]) for r in listed["results"]] == [
        ("headings", 32, 4, "headings"), ("fixed", 32, 4, "none")]
    assert listed["results"][0]["recall"] == pytest.approx(1.0)


@pytest.mark.parametrize("settings, field, words", [
    (["headings 4/0"], "chunk_size", "at least 8"),
    (["headings 64/64"], "overlap", "smaller than chunk size"),
    ([("chapters", 64)], "by", "chapters"),
    (["headings"], "settings", '"headings 512/64"'),
    ([], "settings", "give at least one"),
    ([f"fixed {size}" for size in range(8, 8 + 49)], "settings", "more than 48"),
])
def test_a_bad_setting_is_named_with_the_fix(settings, field, words):
    with pytest.raises(RagchunkError) as caught:
        ragchunk.evaluate({"guide.md": GUIDE}, ["q"], settings=settings)
    assert caught.value.field == field and words in caught.value.message


def test_settings_and_a_grid_together_are_refused_and_bad_questions_are_named():
    with pytest.raises(RagchunkError) as caught:
        ragchunk.evaluate({"guide.md": GUIDE}, ["q"], settings=["headings 64"], sizes=(64,))
    assert caught.value.code == "settings_and_grid"
    with pytest.raises(RagchunkError) as caught:
        ragchunk.evaluate({"guide.md": GUIDE}, ["q", {"answers": ["Run"]}], settings=["headings 64"])
    assert caught.value.message == 'questions item 2: has no "question": give each item a "question" string'
    with pytest.raises(RagchunkError) as caught:
        ragchunk.evaluate({"guide.md": GUIDE}, "How do I sign in?", settings=["headings 64"])
    assert caught.value.code == "questions_not_list"



def test_an_answer_not_found_is_listed_and_its_question_scored_without_it():
    questions = [Question("1", "How to install on Windows?", ("type setup.exe /quiet", "press the red button")),
                 Question("2", "How do I sign in?", ('sign in with your "work" account',))]
    result = evaluate([("guide.md", GUIDE)], questions, by=("headings",), sizes=(32,), k=2).to_json()
    assert [(m["id"], m["answer"]) for m in result["not_found"]] == [("1", "press the red button")]
    row = result["results"][0]
    assert row["scored_questions"] == 2 and row["recall"] == pytest.approx(1.0)
    answers = row["per_question"][0]["answers"]
    assert [GUIDE[a["start"]:a["end"]] for a in answers] == ["type `setup.exe /quiet"]


def test_without_answers_the_questions_still_run_and_show_what_was_retrieved():
    result = evaluate([("guide.md", GUIDE)], [Question("1", "sign in")], by=("headings",), sizes=(32,), k=1)
    row = result.to_json()["results"][0]
    assert row["recall"] is None and row["scored_questions"] == 0
    retrieved = row["per_question"][0]["retrieved"][0]
    assert "sign in" in GUIDE[retrieved["start"]:retrieved["end"]]
    assert result.recommendation == {}


def test_answers_found_nowhere_stop_the_evaluation_with_the_reason():
    with pytest.raises(RagchunkError) as caught:
        evaluate([("guide.md", GUIDE)], [Question("1", "q", ("nothing like this",))], sizes=(32,))
    assert caught.value.code == "answers_not_found"


def test_the_recommendation_says_what_the_questions_cannot_tell_apart():
    rows = [{"by": "fixed", "size": 128, "overlap": 16, "context": "none", "retriever": "bm25", "recall": 0.50,
             "recall_interval": [0.45, 0.55], "tokens_read": 600.0},
            {"by": "headings", "size": 256, "overlap": 32, "context": "headings", "retriever": "bm25",
             "recall": 0.80, "recall_interval": [0.72, 0.88], "tokens_read": 1200.0},
            {"by": "headings", "size": 512, "overlap": 64, "context": "headings", "retriever": "bm25",
             "recall": 0.84, "recall_interval": [0.76, 0.92], "tokens_read": 2400.0}]
    answer = recommend(rows)["bm25"]
    assert answer["recommended"] == "headings 256/32" and answer["best"] == "headings 512/64"
    assert answer["cannot_tell"] == ["headings 512/64"]
    assert "cannot tell it from headings 512/64" in answer["sentence"]
    rows[1]["recall_interval"] = [0.70, 0.75]
    rows[2]["recall_interval"] = [0.83, 0.85]
    assert recommend(rows)["bm25"]["recommended"] == "headings 512/64"


def test_minilm_vectors_equal_a_reference_forward_pass(tmp_path):
    np = pytest.importorskip("numpy")
    from bert_reference import reference_tokenizer

    import onnxruntime

    from ragchunk.evaluate.minilm import MiniLM, model_file

    texts = ["Open the app and sign in.", "Привет, мир! Crème brûlée.", "word " * 400]
    reference = reference_tokenizer(tmp_path)
    session = onnxruntime.InferenceSession(str(model_file()), providers=["CPUExecutionProvider"])
    ours = MiniLM().embed(texts)
    for text, vector in zip(texts, ours, strict=True):
        ids = reference.encode(text).ids[:255] + [102] if len(reference.encode(text).ids) > 256 \
            else reference.encode(text).ids
        feed = {"input_ids": np.array([ids]), "attention_mask": np.ones((1, len(ids)), dtype=np.int64),
                "token_type_ids": np.zeros((1, len(ids)), dtype=np.int64)}
        hidden = session.run(None, feed)[0][0]
        expected = hidden.mean(axis=0)
        expected /= np.linalg.norm(expected)
        assert np.max(np.abs(vector - expected)) < 1e-4


def test_chunks_past_the_model_are_counted_from_the_one_tokenization_the_model_reads(monkeypatch):
    pytest.importorskip("onnxruntime")
    from ragchunk.evaluate import minilm

    wordpiece = ragchunk.get_tokenizer("bert-base-uncased")
    calls: dict[str, list[str]] = {"encode": [], "count": []}

    class Counting:
        def encode(self, text):
            calls["encode"].append(text)
            return wordpiece.encode(text)

        def count(self, text):
            calls["count"].append(text)
            return wordpiece.count(text)

    monkeypatch.setattr(minilm, "get_tokenizer", lambda name: Counting())
    long_paragraph = " ".join(f"Step {n} of the installer copies the files." for n in range(60))
    docs = [("guide.md", GUIDE + "\n" + long_paragraph + "\n")]
    question = Question("1", "What does the installer copy?", ("copies the files",))
    result = evaluate(docs, [question], by=("fixed", "headings"), sizes=(64, 512), retrievers=("minilm",),
                      k=1).to_json()
    indexed = {setting: [chunk.indexed for chunk in chunks_of(setting, docs, "cl100k_base")]
               for setting in grid(by=("fixed", "headings"), sizes=(64, 512))}
    every = {text for texts in indexed.values() for text in texts}
    assert sorted(calls["encode"]) == sorted(every | {question.question})  # each text tokenized once
    assert calls["count"] == []
    for row, (setting, texts) in zip(result["results"], indexed.items(), strict=True):
        cut = [text for text in texts if wordpiece.count(text) > minilm.MAX_TOKENS - 2]
        assert (row["by"], row["size"], row["chunks_past_model"]) == (setting.by, setting.size, len(cut))
        assert (row["chunks_past_model"] > 0) == (setting.size == 512), row


def test_the_page_path_tokenizes_each_text_once_too(monkeypatch):
    """The worker's embedder (StagedMiniLM, the model run outside Python) gets the same single
    tokenization: its ids and the count of chunks past the model come from one encode."""
    from ragchunk.evaluate import evaluate_steps, minilm
    from ragchunk.evaluate.staged import DIMENSIONS, StagedMiniLM, drive_with

    wordpiece = ragchunk.get_tokenizer("bert-base-uncased")
    calls: list[str] = []

    class Counting:
        def encode(self, text):
            calls.append(text)
            return wordpiece.encode(text)

        def count(self, text):
            calls.append(text)
            return wordpiece.count(text)

    class Unit:
        def run(self, rows):
            return [[1.0] + [0.0] * (DIMENSIONS - 1) for _ in rows]

    monkeypatch.setattr(minilm, "get_tokenizer", lambda name: Counting())
    long_paragraph = " ".join(f"Step {n} of the installer copies the files." for n in range(60))
    docs = [("guide.md", GUIDE + "\n" + long_paragraph + "\n")]
    question = Question("1", "What does the installer copy?", ("copies the files",))
    steps = evaluate_steps(docs, [question], by=("headings",), sizes=(64, 512), retrievers=("minilm",), k=1,
                           embedder=StagedMiniLM())
    result = drive_with(steps, Unit()).to_json()
    every = {chunk.indexed for setting in grid(by=("headings",), sizes=(64, 512))
             for chunk in chunks_of(setting, docs, "cl100k_base")}
    assert sorted(calls) == sorted(every | {question.question})  # each text tokenized once, nothing counted again
    assert [row["chunks_past_model"] > 0 for row in result["results"]] == [False, True]


def test_the_model_file_is_hash_checked(tmp_path, monkeypatch):
    from ragchunk.evaluate import minilm

    altered = tmp_path / "model.onnx"
    altered.write_bytes(b"not the model")
    monkeypatch.setenv(minilm.MODEL_ENV, str(altered))
    with pytest.raises(RagchunkError) as caught:
        minilm.model_file()
    assert caught.value.code == "model_file_altered"
    monkeypatch.setenv(minilm.MODEL_ENV, str(tmp_path / "missing.onnx"))
    with pytest.raises(RagchunkError) as caught:
        minilm.model_file()
    assert caught.value.code == "model_file_missing" and "RAGCHUNK_MINILM" in caught.value.message


# --- the command line ------------------------------------------------------------------------------


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), out=out), out.getvalue()


def test_the_command_line_prints_the_table_and_the_json(tmp_path):
    (tmp_path / "guide.md").write_text(GUIDE, encoding="utf-8")
    questions = tmp_path / "q.txt"
    questions.write_text("How do I sign in?\n> Open the app and sign in\nHow to install?\tRun the installer.\n",
                         encoding="utf-8")
    code, out = run("evaluate", str(tmp_path / "guide.md"), "--questions", str(questions), "--by", "fixed,headings",
                    "--size", "16,32", "--k", "2")
    assert code == 0
    assert "headings 32/4" in out and "With bm25," in out
    code, out = run("evaluate", str(tmp_path / "guide.md"), "--questions", str(questions), "--by", "headings",
                    "--size", "32", "--json")
    data = json.loads(out)
    assert set(data) >= {"questions", "not_found", "results"}
    row = data["results"][0]
    assert set(row) >= {"by", "size", "overlap", "context", "retriever", "k", "recall", "precision", "iou",
                        "hit_rate", "mrr", "precision_omega", "recall_interval", "chunks", "tokens_to_embed",
                        "tokens_read", "per_question"}
    assert set(row["per_question"][0]) == {"id", "answers", "retrieved"}


@pytest.mark.parametrize(("flags", "message"), [
    (["--k", "0"], "--k: chunks retrieved per question (0) must be at least 1"),
    (["--retriever", "tfidf"], "--retriever: retriever (tfidf) is not known"),
    (["--by", "chapters"], "--by: boundary (chapters) is not known"),
])
def test_a_bad_flag_is_named_with_the_fix(tmp_path, capsys, flags, message):
    (tmp_path / "guide.md").write_text(GUIDE, encoding="utf-8")
    (tmp_path / "q.txt").write_text("How?\n", encoding="utf-8")
    code, _ = run("evaluate", str(tmp_path / "guide.md"), "--questions", str(tmp_path / "q.txt"), *flags)
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err


def test_the_progress_line_says_the_setting_the_stage_and_while_embedding_the_rate_and_time_left():
    from ragchunk.cli.evaluate import StageProgress

    out, now = io.StringIO(), [0.0]
    progress = StageProgress(True, out, clock=lambda: now[0])
    for stage, done, total, at in [("locating answers", 0, 3, 0.0), ("chunking fixed 128/16", 0, 12, 0.1),
                                   ("embedding fixed 128/16", 32, 100, 1.0), ("embedding fixed 128/16", 64, 100, 1.1),
                                   ("embedding fixed 128/16", 96, 100, 3.0), ("chunking fixed 256/32", 1, 12, 3.5)]:
        now[0] = at
        progress(stage, done, total)
    progress.close()
    lines = out.getvalue().split("\r\x1b[K")
    assert lines[1:] == ["locating answers: 0/3", "setting 1/12, chunking fixed 128/16",
                         "setting 1/12, embedding fixed 128/16: 32/100 chunks",  # the next within 0.2 s is not drawn
                         "setting 1/12, embedding fixed 128/16: 96/100 chunks, 32.0 chunks/s, 0 s left",
                         "setting 2/12, chunking fixed 256/32", ""]
    silent = io.StringIO()
    StageProgress(False, silent)("locating answers", 0, 3)
    assert silent.getvalue() == ""


def test_an_empty_or_missing_questions_file_is_named(tmp_path, capsys):
    (tmp_path / "guide.md").write_text(GUIDE, encoding="utf-8")
    (tmp_path / "q.txt").write_text("", encoding="utf-8")
    code, _ = run("evaluate", str(tmp_path / "guide.md"), "--questions", str(tmp_path / "q.txt"))
    assert code == 2 and "q.txt: has no questions" in capsys.readouterr().err
    code, _ = run("evaluate", str(tmp_path / "guide.md"), "--questions", str(tmp_path / "none.txt"))
    assert code == 1 and "none.txt" in capsys.readouterr().err
