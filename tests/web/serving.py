"""A server process for the tests: started, found by the URL it prints, stopped."""

import contextlib
import re
import socket
import subprocess
import time


@contextlib.contextmanager
def served(argv: list[str], **popen):
    """Run ``argv`` (a server printing ``http://127.0.0.1:PORT/`` first);
    yield ``(proc, (host, port))``; stop it (SIGTERM, then SIGKILL after 10 s)."""
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen
    )
    try:
        line = proc.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert match, (line, proc.stderr.read() if proc.poll() is not None else "")
        yield proc, ("127.0.0.1", int(match.group(1)))
    finally:
        if proc.poll() is None:
            proc.terminate()
            deadline = time.monotonic() + 10
            while proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            if proc.poll() is None:
                proc.kill()
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()


def closed_after(sock: socket.socket, limit: float) -> tuple[float, bytes]:
    """Seconds until the server closes ``sock`` (reading all it sends), and
    what it sent; ``inf`` if still open after ``limit``."""
    start = time.monotonic()
    got = b""
    sock.settimeout(0.2)
    while time.monotonic() - start < limit:
        try:
            data = sock.recv(65536)
        except TimeoutError:
            continue
        except OSError:  # reset
            return time.monotonic() - start, got
        if not data:
            return time.monotonic() - start, got
        got += data
    return float("inf"), got
