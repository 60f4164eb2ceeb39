"""Build the backend a role uses, from wikic.yaml: in-process mlx or an OpenAI-compatible server.

Roles that resolve to the same model (and cache settings) share one `MlxBackend`, so the model is
loaded once per process and its prefix cache is shared. mlx is imported only on the mlx path.
"""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path
from typing import Any

from wikic.config import Config, RoleName
from wikic.errors import BackendError
from wikic.llm.backend import Backend

_lock = threading.Lock()
_mlx_backends: dict[tuple[Any, ...], Backend] = {}


def make_backend(config: Config, role: RoleName, *, cache_dir: Path | None) -> Backend:
    """The backend for `role`. `cache_dir` holds the on-disk prefix cache (None: memory only)."""
    model_name = config.model_for(role)
    if config.backend == "http":
        from wikic.llm.http_backend import HttpBackend

        return HttpBackend.from_config(
            config.http, model_name, concurrency=config.generation.batch_size
        )
    return _mlx_backend(config, model_name, cache_dir)


def _mlx_backend(config: Config, model_name: str, cache_dir: Path | None) -> Backend:
    missing = [m for m in ("mlx", "mlx_lm", "llguidance") if importlib.util.find_spec(m) is None]
    if missing:
        raise BackendError(
            f"the mlx runtime is not installed ({', '.join(missing)} missing)",
            hint="Install it with `pip install 'wikic[llm]'` (on Linux also 'wikic[cpu]'), "
            "or use a model server with `backend: http` in wikic.yaml.",
        )
    from wikic.llm.blas import ensure_fast_blas
    from wikic.llm.models.resolve import load_mlx_model, resolve_model

    resolved = resolve_model(model_name, config)  # a missing model fails before mlx loads
    ensure_fast_blas()  # before anything imports mlx.core
    from wikic.llm.cache.prefix import PrefixCache
    from wikic.llm.mlx_backend import MlxBackend

    directory = cache_dir if config.cache.enabled else None
    gen = config.generation
    key = (
        str(resolved.path),
        resolved.fingerprint,
        str(directory) if directory else None,
        config.cache.enabled,
        config.cache.max_bytes,
        gen.prefill_step_size,
        gen.max_context_tokens,
    )
    with _lock:
        backend = _mlx_backends.get(key)
        if backend is None:
            model, tokenizer = load_mlx_model(resolved)
            cache = PrefixCache(
                directory,
                fingerprint=resolved.fingerprint,
                max_bytes=config.cache.max_bytes if config.cache.enabled else 0,
                step_size=gen.prefill_step_size,
                label=resolved.name,
            )
            backend = MlxBackend(
                model,
                tokenizer,
                name=resolved.name,
                prefix_cache=cache,
                max_context_tokens=gen.max_context_tokens,
                batch_size=gen.batch_size,
            )
            _mlx_backends[key] = backend
    return backend


def clear_backends() -> None:
    """Forget the shared backends (their models stay cached by `wikic.llm.models.resolve`)."""
    with _lock:
        _mlx_backends.clear()
