"""Dask clients: a local cluster sized to the machine, or an existing scheduler."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from collections.abc import Iterator

ENV = "WORLDGEN_DASK"
"""The environment variable that gives ``--dask`` its default."""
CONNECT_TIMEOUT = 5.0  # seconds to wait for a scheduler


def _missing(exc: ImportError) -> ImportError:
    return ImportError(
        f"the Dask path needs the scale extra ({exc.name} is missing): "
        "pip install 'worldgen[scale]'"
    )


@contextlib.contextmanager
def connect(spec: str | None = None) -> Iterator:
    """A ``distributed.Client`` for ``spec``, closed when the block ends.

    Parameters
    ----------
    spec : str, optional
        ``"local"``: start a local cluster of one single-threaded worker
        process per core, the machine's memory shared among them;
        ``"tcp://HOST:PORT"`` (or any address Dask takes): connect to a
        running scheduler. Default: the ``WORLDGEN_DASK`` environment
        variable.

    Raises
    ------
    ValueError
        If no spec is given or set.
    OSError
        If the scheduler does not answer within a few seconds, naming the
        address and the fix.
    """
    spec = spec if spec is not None else os.environ.get(ENV)
    if not spec or not isinstance(spec, str):
        raise ValueError(
            f"dask must be 'local' or a scheduler address such as tcp://host:8786 (or set {ENV})"
        )
    try:
        from distributed import Client
    except ImportError as exc:
        raise _missing(exc) from None
    quiet_logs()
    if spec == "local":
        workers = os.cpu_count() or 1
        with local_cluster(workers, _memory_per_worker(workers)) as cluster:
            with Client(cluster) as client:
                yield client
        return
    try:
        client = Client(spec, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        raise OSError(
            f"dask: no Dask scheduler answers at {spec} ({exc}); start one there "
            "(`dask scheduler`) or use --dask local"
        ) from None
    with client:
        yield client


def quiet_logs() -> None:
    """Keep distributed's own notices out of the command's output, and pass
    over the one traceback its ``sync()`` logs for a Ctrl-C that lands before
    its call has started (:class:`_CancelBeforeStart`)."""
    for name in ("distributed", "distributed.nanny", "distributed.scheduler", "distributed.worker"):
        logging.getLogger(name).setLevel(logging.ERROR)
    tornado = logging.getLogger("tornado.application")
    if not any(isinstance(f, _CancelBeforeStart) for f in tornado.filters):
        tornado.addFilter(_CancelBeforeStart())


class _CancelBeforeStart(logging.Filter):
    """Drops the record of distributed's ``sync()`` cancelling a call that has
    not started.

    On a Ctrl-C, ``sync()`` asks its event loop to cancel the call's future;
    when the Ctrl-C lands before the loop has made that future, the cancel
    fails with a ``NameError`` (distributed 2024-2026), which the loop logs as
    a traceback. The Ctrl-C goes on as usual, so the record says nothing the
    user needs; any other error of the loop is kept."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if not isinstance(exc, NameError) or exc.__traceback__ is None:
            return True
        tb = exc.__traceback__
        while tb.tb_next is not None:
            tb = tb.tb_next
        code = tb.tb_frame.f_code
        where = os.path.join("distributed", "utils.py")
        return not (code.co_name == "cancel" and code.co_filename.endswith(where))


# Dask settings of a local cluster. Its statistical profiler samples every
# worker thread's stack 100 times a second, for a dashboard that is not
# there; the event loops of the scheduler and the workers wake every 20 to
# 500 ms to check themselves, their memory and the balance of tasks. Each
# wake-up takes the interpreter's lock from a block's computation: together
# about a tenth of a busy worker's CPU, and 4% of a core each when idle
# (under 1% with these). Memory limits are still enforced, within a second.
QUIET = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.scheduler.work-stealing-interval": "1s",
}


@contextlib.contextmanager
def local_cluster(workers: int, memory: int | str = "auto") -> Iterator:
    """A ``distributed.LocalCluster`` of ``workers`` single-threaded worker
    processes, closed when the block ends.

    Its worker processes ignore SIGINT: Ctrl-C at a terminal reaches the
    whole process group, and only this process should hear it (it then
    closes the cluster, within a couple of seconds, instead of every worker
    printing its own traceback). No dashboard, and the scheduler's HTTP
    server (which would take port 8787 or warn) on a free loopback port.
    """
    import dask
    from distributed import LocalCluster

    previous = signal.getsignal(signal.SIGINT)
    main = threading.current_thread() is threading.main_thread()
    if main:  # the children inherit an ignored SIGINT and keep it
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with dask.config.set(QUIET):  # the workers take the config they start with
            cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                memory_limit=memory,
                host="127.0.0.1",
                dashboard_address=None,
                scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                silence_logs=logging.ERROR,
            )
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)
    try:
        yield cluster
    except BaseException:
        # Ctrl-C or an error: the workers may be in the middle of a block,
        # which is not waited for (the store does not count it as done).
        for process in _processes(cluster):
            with contextlib.suppress(Exception):
                process.terminate()
        raise
    finally:
        with contextlib.suppress(Exception):
            cluster.close(timeout=5)


def _processes(cluster) -> list:
    """The worker processes of a local cluster (their nannies' children)."""
    found = []
    for nanny in getattr(cluster, "workers", {}).values():
        process = getattr(getattr(nanny, "process", None), "process", None)
        inner = getattr(process, "_process", None)
        if inner is not None:
            found.append(inner)
    return found


def _memory_per_worker(workers: int) -> int | str:
    from worldgen._memory import available_memory

    total = available_memory()
    return "auto" if total is None else int(total * 0.9 / workers)
