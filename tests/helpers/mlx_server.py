"""Start `mlx_lm.server` on a free port for the real-server tests and scripts/bench_ingest.py,
and stop it whatever happens (the whole process group, terminate then kill).

The server process gets OpenBLAS through LD_PRELOAD (like wikic's own `ensure_fast_blas`), so it
runs the model as fast as wikic does in process. Served model name: "default_model".
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from pathlib import Path

from wikic.llm.blas import find_openblas

SERVED_MODEL = "default_model"  # what mlx_lm.server calls the model given by --model


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_command(
    model_dir: Path, port: int, *, cores: Sequence[int] = (), extra: Sequence[str] = ()
) -> list[str]:
    """The command line: `taskset -c <cores>` first when cores are given (Linux)."""
    cmd = [
        sys.executable, "-m", "mlx_lm.server", "--model", str(model_dir),
        "--host", "127.0.0.1", "--port", str(port), "--log-level", "WARNING", *extra,
    ]  # fmt: skip
    return ["taskset", "-c", ",".join(map(str, cores)), *cmd] if cores else cmd


def _ready(url: str) -> bool:
    """True once the server answers a one-token chat completion (the model is loaded)."""
    body = {
        "model": SERVED_MODEL,
        "messages": [{"role": "user", "content": "Hi"}],
        "max_tokens": 1,
    }
    request = urllib.request.Request(
        url + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


@contextlib.contextmanager
def mlx_server(
    model_dir: Path,
    *,
    cores: Sequence[int] = (),
    log: Path | None = None,
    extra: Sequence[str] = (),
    start_timeout_s: float = 180.0,
) -> Iterator[str]:
    """Run mlx_lm.server for `model_dir`; yields its base URL (…/v1) once it answers."""
    port = free_port()
    env = dict(os.environ)
    openblas = find_openblas()
    if openblas is not None and "openblas" not in env.get("LD_PRELOAD", ""):
        env["LD_PRELOAD"] = " ".join(filter(None, [str(openblas), env.get("LD_PRELOAD")]))
    if cores:
        env["OPENBLAS_NUM_THREADS"] = str(len(cores))  # no more BLAS threads than its cores
    out = open(log, "ab") if log else subprocess.DEVNULL  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        server_command(model_dir, port, cores=cores, extra=extra),
        stdout=out,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,  # its own process group: stopped as a whole
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + start_timeout_s
        while not _ready(url):
            if proc.poll() is not None:
                raise RuntimeError(f"mlx_lm.server exited with {proc.returncode} (log: {log})")
            if time.monotonic() > deadline:
                raise RuntimeError(f"mlx_lm.server did not answer in {start_timeout_s:g} s")
            time.sleep(0.5)
        yield url
    finally:
        stop(proc)
        if log:
            out.close()  # type: ignore[union-attr]


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Terminate the server's process group; kill it if it is still there after 10 s."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
