"""The scan cache: unchanged pages are reused, changed or too recent ones read again, and a
cached scan gives exactly the findings of a fresh one."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.helpers.lint_fixtures import DAY, FixtureWiki, build_clean_wiki, topic_page
from wikic.lint import LintOptions, run_lint
from wikic.lint.runner import structural_findings
from wikic.lint.scan import scan_wiki
from wikic.lint.scan_cache import CACHE_NAME, ScanCache, shard_of

GEMMA = "wiki/entities/gemma-3.md"


def age_files(root: Path, seconds: float = 100) -> None:
    """Make every page look written `seconds` ago (old enough for the cache to trust)."""
    past = time.time() - seconds
    for path in (root / "wiki").rglob("*.md"):
        os.utime(path, (past, past))


@pytest.fixture
def wiki(tmp_path: Path) -> FixtureWiki:
    w = build_clean_wiki(tmp_path / "w")
    # a wiki with findings of many kinds, so that a cached scan has something to get wrong
    odd = topic_page(
        "concept",
        "Odd page",
        ["- Uncited. ^bad_id", "- Cited. [[sources/kv-cache#^p9]] ^f-o1"],
        ["entities/gemma-3", "Gemma three", "entities/gemma-3#Nope"],
        ["kv-cache"],
        extra_props={"see": [["concepts/kv-cache"]], "when": DAY, "score": 1.5, "flag": True},
        extra_body="```\n[[not a link]]\n```\n\n## Contradictions\n\n- **open** — [[#^f-o1]] vs [[#^f-o2]]: x",
    )
    w.commit({"wiki/concepts/odd-page.md": odd})
    raw = w.root / "raw" / "kv-cache.md"
    raw.write_text(raw.read_text().replace("5 local", "6 local"))
    age_files(w.root)
    return w


def findings(wiki: FixtureWiki, *, use_cache: bool) -> list[tuple[object, ...]]:
    scan = scan_wiki(wiki.paths, use_cache=use_cache)
    found = structural_findings(
        scan,
        {
            "broken-link",
            "broken-anchor",
            "uncited-fact",
            "invalid-block-id",
            "missing-citation-block",
            "unquoted-link-property",
            "open-contradiction",
            "orphan-page",
            "index-drift",
            "property-type",
            "raw-modified",
            "stale-page",
        },
    )
    scan.save_cache()
    return sorted((f.rule, f.page, f.line, f.message) for f in found)


def test_cached_scan_gives_the_same_findings(wiki: FixtureWiki) -> None:
    fresh = findings(wiki, use_cache=False)
    assert len({rule for rule, *_ in fresh}) >= 6
    findings(wiki, use_cache=True)  # writes the cache
    cache = ScanCache.load(wiki.paths)
    assert len(cache.entries) == 8
    scan = scan_wiki(wiki.paths)
    assert scan.cache is not None and len(scan.cache.used) == 8 and not scan.cache.fresh
    assert findings(wiki, use_cache=True) == fresh
    odd = scan.pages["concepts/odd-page.md"]
    assert odd.page.props["when"] == DAY and odd.page.props["see"] == [["concepts/kv-cache"]]
    assert "[[not a link]]" not in {str(r.link) for r in odd.links}


def test_changed_page_is_read_again(wiki: FixtureWiki) -> None:
    run_lint(wiki.paths, LintOptions(), today=DAY)
    text = (wiki.root / GEMMA).read_text()
    (wiki.root / GEMMA).write_text(
        text.replace("[[sources/kv-cache#^p3]]", "[[sources/kv-cache#^p7]]")
    )
    os.utime(wiki.root / GEMMA, (time.time() - 50, time.time() - 50))
    scan = scan_wiki(wiki.paths)
    assert scan.cache is not None and set(scan.cache.fresh) == {"entities/gemma-3.md"}
    rules = {f.rule for f in run_lint(wiki.paths, LintOptions(), today=DAY).findings}
    assert "missing-citation-block" in rules


def test_recent_files_are_not_trusted(wiki: FixtureWiki) -> None:
    age_files(wiki.root, seconds=0)  # written "now": within the timestamp granularity
    run_lint(wiki.paths, LintOptions(), today=DAY)
    entries = ScanCache.load(wiki.paths).entries
    assert len(entries) == 8 and all(entry[0][0] == -1 for entry in entries.values())
    scan = scan_wiki(wiki.paths)
    assert scan.cache is not None and not scan.cache.used


def test_damaged_cache_is_ignored(wiki: FixtureWiki) -> None:
    expected = run_lint(wiki.paths, LintOptions(), today=DAY).findings
    shards = sorted((wiki.paths.state / CACHE_NAME).glob("*.json"))
    assert shards
    for shard in shards:
        data = json.loads(shard.read_text())
        for entry in data["pages"].values():
            entry[1] = {"type": {"$x": 1}}  # not a value the cache can hold
        shard.write_text(json.dumps(data))
    assert run_lint(wiki.paths, LintOptions(), today=DAY).findings == expected
    for junk in ("{not json", "[]", '{"format": 2, "pages": []}'):
        for shard in shards:
            shard.write_text(junk)
        assert run_lint(wiki.paths, LintOptions(), today=DAY).findings == expected
    shards[0].write_bytes(b"\x80\x81")
    assert run_lint(wiki.paths, LintOptions(), today=DAY).findings == expected


def test_only_changed_shards_are_rewritten(wiki: FixtureWiki) -> None:
    run_lint(wiki.paths, LintOptions(), today=DAY)
    folder = wiki.paths.state / CACHE_NAME
    before = {p.name: p.stat().st_mtime_ns for p in folder.glob("*.json")}
    time.sleep(0.01)
    (wiki.root / GEMMA).write_text((wiki.root / GEMMA).read_text() + "\nMore.\n")
    os.utime(wiki.root / GEMMA, (time.time() - 50, time.time() - 50))
    run_lint(wiki.paths, LintOptions(), today=DAY)
    after = {p.name: p.stat().st_mtime_ns for p in folder.glob("*.json")}
    changed = {name for name in after if after[name] != before.get(name)}
    assert changed == {f"{shard_of('entities/gemma-3.md'):02d}.json"}


def test_pages_with_nested_mappings_are_not_cached(wiki: FixtureWiki) -> None:
    text = (wiki.root / GEMMA).read_text().replace("created:", "meta:\n  a: 1\ncreated:", 1)
    wiki.commit({GEMMA: text})
    age_files(wiki.root)
    run_lint(wiki.paths, LintOptions(), today=DAY)
    entries = ScanCache.load(wiki.paths).entries
    assert "entities/gemma-3.md" not in entries and len(entries) == 7
