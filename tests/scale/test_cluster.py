"""The Dask client's process: what distributed logs when a Ctrl-C lands."""

import contextlib
import logging
import os
import signal
import threading
import time

import pytest

pytest.importorskip("distributed")


@contextlib.contextmanager
def _loop_records():
    """A running distributed event loop, with the list of what its loop logs
    once the command's logging is set up (``quiet_logs``)."""
    from distributed.utils import LoopRunner

    from worldgen.scale._cluster import quiet_logs

    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    logger = logging.getLogger("tornado.application")
    handler = Keep()
    logger.addHandler(handler)
    quiet_logs()
    runner = LoopRunner(asynchronous=False)
    runner.start()
    try:
        yield runner.loop, records
    finally:
        runner.stop()
        logger.removeHandler(handler)


def test_a_ctrl_c_before_distributed_starts_its_call_logs_nothing():
    """distributed's ``sync()`` answers a Ctrl-C by cancelling the call's
    future from its event loop; a Ctrl-C that lands before the loop has made
    that future logged a NameError traceback (under the command's one line).
    The loop is held busy here so that the Ctrl-C always lands first."""
    import asyncio

    from distributed.utils import sync

    with _loop_records() as (loop, records):
        busy = threading.Event()

        def hold() -> None:
            busy.set()
            time.sleep(0.5)

        loop.add_callback(hold)
        busy.wait()

        async def work() -> None:
            await asyncio.sleep(0.1)

        threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGINT)).start()
        with pytest.raises(KeyboardInterrupt):
            sync(loop, work)
        time.sleep(1.0)  # the loop runs the cancel after the hold
    assert [r.getMessage() for r in records] == []


def test_other_errors_of_the_loop_are_still_logged():
    """Only that one race is passed over: any other callback's error is shown."""
    with _loop_records() as (loop, records):

        def cancel() -> None:
            raise NameError("a bug of its own")

        loop.add_callback(cancel)
        time.sleep(0.5)
    assert [type(r.exc_info[1]) for r in records] == [NameError]
