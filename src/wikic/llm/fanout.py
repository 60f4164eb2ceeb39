"""Spread the requests of one batch over several model servers at once.

Each server has at most `per_server` requests in flight. A request that fails with
`ServerUnavailableError` goes back to the queue for the other servers, and its server leaves the
rotation for the rest of the batch (one warning each); any other error fails the batch. When no
server is left, the batch fails with a `BackendError` that names every server and why.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from wikic.errors import BackendError, ServerUnavailableError

log = logging.getLogger(__name__)
T = TypeVar("T")


class _Run(Generic[T]):
    """The shared state of one fan-out: the queue, the results and the servers that failed."""

    def __init__(self, servers: Sequence[str], n: int, send: Callable[[str, int], T]) -> None:
        self.servers = list(servers)
        self.send = send
        self.todo: deque[int] = deque(range(n))
        self.results: dict[int, T] = {}
        self.down: dict[str, ServerUnavailableError] = {}
        self.error: BaseException | None = None
        self.in_flight = 0
        self.stop = False
        self.n = n
        self.cond = threading.Condition()

    def finished(self) -> bool:
        return self.stop or len(self.results) == self.n

    def _take(self, server: str) -> int | None:
        with self.cond:
            while True:
                if self.stop or server in self.down:
                    return None
                if self.todo:
                    self.in_flight += 1
                    return self.todo.popleft()
                if self.in_flight == 0:
                    return None  # nothing left, and nothing in flight can come back
                self.cond.wait()

    def work(self, server: str) -> None:
        while (i := self._take(server)) is not None:
            try:
                result = self.send(server, i)
            except ServerUnavailableError as exc:
                self._server_failed(server, i, exc)
                return
            except BaseException as exc:  # handed to the caller's thread
                with self.cond:
                    self.in_flight -= 1
                    self.error = self.error or exc
                    self.stop = True
                    self.cond.notify_all()
                return
            with self.cond:
                self.in_flight -= 1
                self.results[i] = result
                self.cond.notify_all()

    def _server_failed(self, server: str, i: int, exc: ServerUnavailableError) -> None:
        with self.cond:
            self.in_flight -= 1
            self.todo.appendleft(i)
            if server not in self.down:
                self.down[server] = exc
                left = len(self.servers) - len(self.down)
                if left:
                    log.warning(
                        "%s; its requests go to the other %d server(s) for the rest of this batch",
                        exc.message,
                        left,
                    )
            if len(self.down) == len(self.servers):
                self.stop = True
            self.cond.notify_all()


def fan_out(
    servers: Sequence[str], n: int, per_server: int, send: Callable[[str, int], T]
) -> list[T]:
    """`send(server, i)` for i in range(n), spread over `servers`; the results in order."""
    if n == 0:
        return []
    run: _Run[T] = _Run(servers, n, send)
    threads = [  # started server by server in turn, so a small batch is spread too
        threading.Thread(target=run.work, args=(server,), name="wikic-http", daemon=True)
        for _ in range(min(per_server, n))
        for server in servers
    ]
    for thread in threads:
        thread.start()
    try:
        with run.cond:
            while not run.finished():
                run.cond.wait()
    except BaseException:
        with run.cond:
            run.stop = True  # Ctrl-C: send nothing more; requests in flight end on their own
        raise
    if run.error is not None:
        raise run.error
    if len(run.results) < n:
        raise _all_down(run.servers, run.down)
    return [run.results[i] for i in range(n)]


def _all_down(servers: list[str], down: dict[str, ServerUnavailableError]) -> BackendError:
    if len(servers) == 1:
        return down[servers[0]]  # its own message and hint say it best
    reasons = "; ".join(down[s].message for s in servers)
    return BackendError(
        f"all {len(servers)} LLM servers failed: {reasons}",
        hint="Start the servers or fix http.base_urls in wikic.yaml, then run the command again "
        "(the sources committed so far stay).",
    )
