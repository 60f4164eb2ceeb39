"""`wikic query --json` on the committed demo wiki (wiki/) against golden files: every question
of scripts/data/qa.yaml in both answer styles, and one question per way of declining.

The model is a FakeBackend with a fixed reply per case, so what is pinned is the code around it:
retrieval, packing, quoting, citation checks and the decline rules. The evidence the model was
shown is pinned too. `WIKIC_UPDATE_GOLDEN=1` rewrites the goldens (after a deliberate change).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from tests.helpers.query_fakes import shown_units
from wikic.cli import app
from wikic.llm.fake import FakeBackend, FakeCall

REPO = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).parent / "golden" / "query"
VOLATILE_STATS = ("ttft_s", "total_s")  # wall-clock times
runner = CliRunner()
Responder = Callable[[FakeCall], dict[str, Any]]


def quote_first(call: FakeCall) -> dict[str, Any]:
    """What `bench_quality --no-decode` assumes: the facts answer, fact 1 first."""
    return {"ids": [1], "answerable": True}


def write_first_two(call: FakeCall) -> dict[str, Any]:
    """Written sentences copied from the first two units, both citing [1]: the second is cited
    loosely, so it is credited to the unit that holds it (or marked as inference)."""
    units = list(shown_units(call).items())[:2]
    sentences = [{"ids": [1], "text": text[:170].rsplit(" ", 1)[0]} for _, text in units]
    return {"sentences": sentences, "answerable": True}


def write_uncited(call: FakeCall) -> dict[str, Any]:
    return {"sentences": [{"ids": [], "text": "Something else entirely."}], "answerable": True}


def unanswerable(call: FakeCall) -> dict[str, Any]:
    return {"ids": [1], "answerable": False}


@dataclass(frozen=True)
class Case:
    name: str
    question: str
    style: str
    responder: Responder


def _qa_cases() -> list[Case]:
    items = yaml.safe_load((REPO / "scripts/data/qa.yaml").read_text(encoding="utf-8"))
    cases = []
    for item in items:
        cases.append(Case(f"{item['id']}-quote", item["question"], "quote", quote_first))
        cases.append(Case(f"{item['id']}-write", item["question"], "write", write_first_two))
    return cases


# one question per way an answer is declined (the reason each gets is in its golden file)
DECLINE_CASES = [
    Case("decline-nothing-found", "Zyxwvut qwertyuiop?", "quote", quote_first),
    Case("decline-lacking-term", "Where is the prefix cache stored on Windows?", "quote",
         quote_first),
    Case("decline-model-says-no",
         "How many local layers does Gemma 3 interleave with each global layer?", "quote",
         unanswerable),
    Case("decline-nothing-cited", "What does a rotating KV cache keep?", "write", write_uncited),
    Case("decline-off-topic", "How much does a Gemma 3 license cost?", "quote", quote_first),
    Case("decline-no-number", "How much memory does the KV cache use?", "quote", quote_first),
    Case("decline-unowned-amount", "How many local layers does Gemma 3 have, more than Obsidian?",
         "quote", quote_first),
    Case("decline-unmet-condition", "How are snapshots taken for Gemma?", "quote", quote_first),
]  # fmt: skip
CASES = _qa_cases() + DECLINE_CASES


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the demo wiki (its pages, schema and config; no raw sources needed)."""
    root = tmp_path_factory.mktemp("demo")
    shutil.copytree(REPO / "wiki", root / "wiki")
    shutil.copy2(REPO / "AGENTS.md", root / "AGENTS.md")
    shutil.copy2(REPO / "wikic.yaml", root / "wikic.yaml")
    (root / "raw").mkdir()
    return root


def _run(case: Case, demo: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    backend = FakeBackend(case.responder, name="fake-model")
    monkeypatch.setattr("wikic.llm.factory.make_backend", lambda *a, **k: backend)
    monkeypatch.setattr("wikic.cli.backends.install_on_first_use", lambda config, role: None)
    monkeypatch.chdir(demo)
    result = runner.invoke(app, ["query", case.question, "--json", "--style", case.style])
    assert result.exit_code == 0, result.output
    output = json.loads(result.stdout)
    for key in VOLATILE_STATS:
        assert isinstance(output["stats"].pop(key), float)
    stages = output.pop("stages")  # seconds: volatile; their shape is tested in test_query_save
    assert set(stages) == {"search", "answer"} and stages["answer"]["calls"] == len(backend.history)
    shown = backend.history[0].segments[-2].text if backend.history else None
    return {"question": case.question, "style": case.style, "output": output, "shown": shown}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_query_json_matches_golden(case: Case, demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    produced = _run(case, demo, monkeypatch)
    path = GOLDEN / f"{case.name}.json"
    if os.environ.get("WIKIC_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(produced, indent=2, ensure_ascii=False) + "\n")
    assert produced == json.loads(path.read_text(encoding="utf-8"))


def test_every_decline_reason_is_pinned() -> None:
    """The decline cases above decline in as many different ways as there are cases."""
    reasons = set()
    for case in DECLINE_CASES:
        golden = json.loads((GOLDEN / f"{case.name}.json").read_text(encoding="utf-8"))
        assert golden["output"]["declined"], case.name
        reasons.add(golden["output"]["decline_reason"].split(" '")[0])
    assert len(reasons) == len(DECLINE_CASES)
