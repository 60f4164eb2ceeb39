"""Loading an embedding model from files, and embedding texts with it.

A static model is a table of token vectors and a tokenizer: a text's vector is the mean of
its tokens' vectors, L2-normalised (what wordllama and model2vec compute). The built-in model
is wordllama's `l2_supercat` (256 dimensions, 16 MB), whose files ship inside the wordllama
wheel; it is read from there without importing wordllama (its import configures logging) and
without any hub look-up. `fingerprint()` names a model and its files without loading them:
stored vectors of another fingerprint are thrown away.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from wikic.embed import minilm
from wikic.errors import EmbeddingError

if TYPE_CHECKING:
    import numpy as np
    from tokenizers import Tokenizer

BUILTIN = "wordllama"
OFF = "none"
_WORDLLAMA_FILES = (
    "weights/l2_supercat_256.safetensors",
    "tokenizers/l2_supercat_tokenizer_config.json",
)
# a model2vec-format directory: the token table and a tokenizer.json
_DIR_FILES = ("model.safetensors", "tokenizer.json")
_TABLE_NAMES = ("embeddings", "embedding.weight")
BATCH = 1024


__all__ = ["BUILTIN", "OFF", "Embedder", "EmbeddingError", "StaticEmbedder", "load_embedder"]


class Embedder(Protocol):
    """What the store, lint and consolidation need of a model: unit vectors of texts."""

    fingerprint: str
    dims: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class ModelFiles:
    name: str  # the configured name: `wordllama` or a directory
    weights: Path
    tokenizer: Path

    def fingerprint(self) -> str:
        """The model's name and its weights' size and mtime: a changed file is another model."""
        st = self.weights.stat()
        return f"{self.name}:{self.weights.name}:{st.st_size}:{st.st_mtime_ns}"


def model_files(name: str) -> ModelFiles:
    """Where the model `name` (`wordllama`, or a directory of a static model) keeps its files;
    an EmbeddingError saying what to do when they are not there."""
    if name == minilm.NAME:
        folder = minilm.model_dir()
        return ModelFiles(name, folder / "model.safetensors", folder / "tokenizer.json")
    if name == BUILTIN:
        spec = importlib.util.find_spec("wordllama")  # finds the package without running it
        roots = list(spec.submodule_search_locations or []) if spec else []
        if not roots:
            raise EmbeddingError(
                "the built-in embedding model needs the wordllama package, which is not installed",
                hint="Install wikic with its dependencies (pip install wikic), or set "
                "search.embedding_model: none in wikic.yaml to search by words only.",
            )
        weights, tokenizer = (Path(roots[0]) / f for f in _WORDLLAMA_FILES)
    else:
        folder = Path(name).expanduser()
        weights, tokenizer = (folder / f for f in _DIR_FILES)
        if not folder.is_dir():
            raise EmbeddingError(
                f"search.embedding_model {name!r} is neither 'wordllama', 'minilm', 'none' nor "
                "a directory",
                hint="Name a directory holding a static model (model.safetensors and "
                "tokenizer.json, as model2vec saves them).",
            )
    missing = [str(p) for p in (weights, tokenizer) if not p.is_file()]
    if missing:
        raise EmbeddingError(
            f"the embedding model {name!r} is missing {', '.join(missing)}",
            hint="Reinstall it (pip install --force-reinstall wordllama) or point "
            "search.embedding_model at a complete model directory.",
        )
    return ModelFiles(name, weights, tokenizer)


def fingerprint(name: str) -> str:
    if name == minilm.NAME:  # a pinned hash: no need to extract the model to name it
        return minilm.fingerprint()
    return model_files(name).fingerprint()


class StaticEmbedder:
    """Mean-pooled, L2-normalised token vectors. `embed` is deterministic and thread-free."""

    def __init__(self, fingerprint: str, table: np.ndarray, tokenizer: Tokenizer) -> None:
        self.fingerprint = fingerprint
        self.table = table
        self.tokenizer = tokenizer
        self.dims = int(table.shape[1])

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dims) float32 unit vectors; a text without tokens gets zeros."""
        import numpy as np

        out = np.zeros((len(texts), self.dims), dtype=np.float32)
        for start in range(0, len(texts), BATCH):
            chunk = list(texts[start : start + BATCH])
            encoded = self.tokenizer.encode_batch(chunk, add_special_tokens=False)
            ids = [e.ids for e in encoded]
            lengths = np.fromiter((len(i) for i in ids), dtype=np.int64, count=len(ids))
            if not lengths.any():
                continue
            flat = np.fromiter(
                (t for i in ids for t in i), dtype=np.int64, count=int(lengths.sum())
            )
            np.clip(flat, 0, self.table.shape[0] - 1, out=flat)
            filled = lengths > 0
            offsets = np.concatenate(([0], np.cumsum(lengths)[:-1]))[filled]
            sums = np.add.reduceat(self.table[flat], offsets, axis=0)
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            out[start : start + len(chunk)][filled] = sums / np.maximum(norms, 1e-12)
        return out


@functools.lru_cache(maxsize=2)
def _load(files: ModelFiles, fingerprint: str) -> StaticEmbedder:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing below may reach a hub
    import numpy as np
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    try:
        tensors = load_file(str(files.weights))
        tokenizer = Tokenizer.from_file(str(files.tokenizer))
    except Exception as exc:  # a damaged file: safetensors and tokenizers raise their own types
        raise EmbeddingError(f"cannot read the embedding model {files.name!r}: {exc}") from None
    name = next((n for n in _TABLE_NAMES if n in tensors), None)
    if name is None or tensors[name].ndim != 2:
        raise EmbeddingError(
            f"{files.weights} holds no token table (a 2-d tensor named {' or '.join(_TABLE_NAMES)})"
        )
    tokenizer.no_padding()
    tokenizer.no_truncation()
    table = np.ascontiguousarray(tensors[name], dtype=np.float32)
    return StaticEmbedder(fingerprint, table, tokenizer)


@functools.lru_cache(maxsize=1)
def _load_minilm() -> Embedder:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import json

    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    from wikic.embed.bert import BertEncoder, BertShape

    folder = minilm.model_dir()
    try:
        tensors = load_file(str(folder / "model.safetensors"))
        tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        shape = BertShape.from_config(json.loads((folder / "config.json").read_text()))
        return BertEncoder(minilm.fingerprint(), tensors, shape, tokenizer)
    except Exception as exc:  # a damaged file: safetensors and tokenizers raise their own types
        raise EmbeddingError(
            f"cannot read the minilm model in {folder}: {exc}",
            hint=f"Delete {folder} to have it extracted again.",
        ) from None


def load_embedder(name: str) -> Embedder:
    """The model `name` (`wordllama`, `minilm` or a directory), loaded once per process."""
    if name == minilm.NAME:
        return _load_minilm()
    files = model_files(name)
    return _load(files, files.fingerprint())
