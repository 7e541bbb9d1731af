"""Dask clients: a local cluster sized to the machine, or an existing scheduler."""

from __future__ import annotations

import contextlib
import logging
import os
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
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise _missing(exc) from None
    for name in ("distributed", "distributed.nanny", "distributed.scheduler", "distributed.worker"):
        logging.getLogger(name).setLevel(logging.ERROR)
    if spec == "local":
        workers = os.cpu_count() or 1
        memory = _memory_per_worker(workers)
        with (
            LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                memory_limit=memory,
                dashboard_address=None,
                silence_logs=logging.ERROR,
            ) as cluster,
            Client(cluster) as client,
        ):
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


def _memory_per_worker(workers: int) -> int | str:
    from worldgen._memory import available_memory

    total = available_memory()
    return "auto" if total is None else int(total * 0.9 / workers)
