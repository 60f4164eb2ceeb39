"""How CLI commands get their LLM backend: from the wiki's config, with an optional --model.

Commands call `backends.for_role(...)` / `backends.build(...)` through this module (never a
from-import), so tests replace one function to run any command on a FakeBackend.
"""

from __future__ import annotations

from pathlib import Path

from wikic.config import Config, RoleName, RolesConfig
from wikic.llm import factory
from wikic.llm.backend import Backend
from wikic.paths import WikiPaths


def config_with_model(config: Config, model: str | None) -> Config:
    """`config` with every role on `model` when --model is given (and the HTTP server asked for
    that model too)."""
    if not model:
        return config
    http = config.http.model_copy(update={"model": None})
    return config.model_copy(update={"model": model, "roles": RolesConfig(), "http": http})


def build(config: Config, role: RoleName, cache_dir: Path | None) -> Backend:
    return factory.make_backend(config, role, cache_dir=cache_dir)


def for_role(paths: WikiPaths | None, role: RoleName, model: str | None = None) -> Backend:
    config = config_with_model(paths.config if paths else Config(), model)
    return build(config, role, paths.kv_cache if paths else None)
