"""scripts/bench_resolve.py on a small generated wiki: both compiles run, the JSON holds the
comparison, and the generated pages hold the kinds of names a wiki has."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parent.parent


def _load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "bench_resolve", REPO / "scripts/bench_resolve.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_resolve"] = module
    spec.loader.exec_module(module)
    return module


br = _load_script()


def test_generated_pages_are_unique_and_of_every_kind() -> None:
    pages = br.generated_pages(50)
    assert len({p.path for p in pages}) == 50
    titles = [p.props["title"] for p in pages]
    assert any(t.isupper() for t in titles) and any(" " in t for t in titles)
    assert {p.props["type"] for p in pages} == {"entity", "concept"}


def test_a_small_run_writes_the_comparison(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    assert br.main(["--pages", "200", "--repeat", "1", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["pages"] == 200 and result["empty_wiki"]["pages_planned"] > 0
    assert result["like_for_like_wiki"]["plan_s"] >= 0 and isinstance(result["met"], bool)
    # like for like: the generated names share no word with the source, so it plans the same
    assert result["like_for_like_wiki"]["pages_planned"] == result["empty_wiki"]["pages_planned"]
    assert result["overlapping_wiki"]["pages_planned"] >= result["empty_wiki"]["pages_planned"]
    assert result["index_build_s"] >= 0 and result["load_s"] is None


def test_the_like_for_like_wiki_has_no_word_of_the_source() -> None:
    pages = br.generated_pages(300, avoid="Checkpoint the WAL files")
    words = {w.casefold() for p in pages for w in p.props["title"].split()}
    assert not words & {"checkpoint", "checkpoints", "files", "file"}
