"""The ``worldgen`` command line: thin translations into library calls.

Every command that writes files takes ``--out DIR`` and works with no other
option, on built-in defaults. Library errors (bad parameters) become one red
line on stderr and exit status 1; long work shows a progress bar.
"""

import gc
import os
import sys

# Importing typer, rich, numpy and numba makes some 300,000 objects that
# live as long as the process: the collector, run every few hundred new
# objects, searched them again and again (a few hundredths of a second),
# finding almost nothing. It is off while they are imported (and back on
# after, as it was), and main() freezes them.
_COLLECTING = gc.isenabled()
gc.disable()

from worldgen.cli._interrupt import keep_ctrl_c, raise_kept_ctrl_c  # noqa: E402

# A Ctrl-C that lands where Python cannot raise it (an import's module-lock
# callback) is kept, not printed and lost: raised at the next check.
sys.unraisablehook = keep_ctrl_c

# The command line does no linear algebra: without this, numpy's OpenBLAS
# starts a thread per extra core when it loads, which spins for about a
# tenth of a second of CPU in every command. A value the user set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

try:  # typer, rich, numpy: Ctrl-C here is one line too
    import atexit
    import signal

    import typer
    from rich.markup import escape

    from worldgen.cli import _animate, _config, _map, _serve, _terrain, _world  # noqa: F401
    from worldgen.cli._common import (
        _err,
        _fail,
        _interrupted,
        _say_interrupted,
        app,
        leave_if_working,
    )
    from worldgen.cli._interrupt import caused_by_ctrl_c

    raise_kept_ctrl_c()
except BaseException as exc:
    from worldgen.cli._interrupt import caused_by_ctrl_c, stopped_early

    if caused_by_ctrl_c(exc):
        raise stopped_early() from None
    raise
finally:
    if _COLLECTING:
        gc.enable()

# Click's base of usage errors, wherever this typer version keeps click.
_ClickException = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


def run(argv: list[str] | None = None) -> int:
    """Run the command line on ``argv`` and return its exit status.

    Every failure is one line on stderr, never a traceback: usage errors
    (status 2), library errors (status 1, see ``_fail``), Ctrl-C (130), too
    little memory and unexpected errors (status 1; ``WORLDGEN_DEBUG=1``
    re-raises these to show the traceback).
    """
    _interrupted[0] = False
    try:
        from worldgen._jit import interruptible

        command = typer.main.get_command(app)
        # Ctrl-C inside a kernel the library did not guard (or while numba
        # compiles) arrives as a SystemError around it: interruptible() says
        # what it is.
        with interruptible():
            code = command.main(args=argv, prog_name="worldgen", standalone_mode=False)
    except _ClickException as exc:
        message = exc.format_message()
        if message:  # empty when the help was shown instead (no arguments)
            _err.print(
                f"[red]error:[/red] {escape(message)} (see worldgen --help)", highlight=False
            )
        return exc.exit_code
    except typer.Abort:
        return _fail(KeyboardInterrupt()).exit_code
    except KeyboardInterrupt as exc:
        return _fail(exc).exit_code
    except MemoryError as exc:
        return _fail(exc).exit_code
    except Exception as exc:
        if caused_by_ctrl_c(exc):  # Ctrl-C wrapped in another error by Python
            return _fail(KeyboardInterrupt()).exit_code
        if os.environ.get("WORLDGEN_DEBUG"):
            raise
        _err.print(
            f"[red]internal error:[/red] {type(exc).__name__}: {escape(str(exc))} "
            "(WORLDGEN_DEBUG=1 shows the traceback; please report it)",
            highlight=False,
        )
        return 1
    if code == 130 and not _interrupted[0]:
        # Ctrl-C outside a command's handling (while it imports its modules,
        # or prints what it wrote): typer ends the command with 130, silently.
        # Sets are swapped in whole, so none is half-written.
        _say_interrupted("nothing is left half-written")
    return code if isinstance(code, int) else 0


def _keep_freed_memory() -> None:
    """Have the C allocator (glibc's) keep the memory of freed arrays for
    the next ones, instead of handing each big array back to the system
    when it is freed and taking fresh pages for the next.

    A job makes and frees many arrays of tens of MB one after another; the
    system clears every fresh page, and on a virtual machine that returns
    free memory to its host each is faulted in there too. Kept, the job
    reuses what it freed: `worldgen terrain --width 2048 --height 2048`
    1.03-1.08 times less CPU (system time 0.55 -> 0.31 s), for a peak
    about 4% higher. For commands that end when their work does (not
    ``serve``, whose memory would stay at its highest); nothing where the
    C library is not glibc."""
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):  # no mallopt; Windows takes no None
        return
    # mallopt's parameters (malloc.h): big blocks from the heap, not mmap;
    # the heap's free top kept up to 1 GiB; grown 64 MiB at a time.
    m_trim_threshold, m_top_pad, m_mmap_max = -1, -2, -4
    mallopt(m_mmap_max, 0)
    mallopt(m_trim_threshold, 1 << 30)
    mallopt(m_top_pad, 64 << 20)


def main() -> None:
    gc.disable()  # as for the imports above: numba's are most of them
    if sys.argv[1:2] != ["serve"]:
        _keep_freed_memory()
    try:
        from worldgen._jit import skip_blas_probe  # numba: a few tenths of a second

        skip_blas_probe()
        raise_kept_ctrl_c()
    except BaseException as exc:
        if not caused_by_ctrl_c(exc):
            raise
        sys.exit(_fail(KeyboardInterrupt()).exit_code)
    # What the imports made lives as long as the process: frozen, the
    # collector's full searches (numba's first kernel load sets one off)
    # leave it out.
    gc.freeze()
    if _COLLECTING:
        gc.enable()
    code = run()
    # At exit the interpreter searches every object still alive for
    # garbage cycles (numba's types, registries and kernels among them):
    # 0.2-0.3 s of CPU after every command, to free memory the system takes
    # back anyway. Frozen objects are left out of that search.
    gc.freeze()
    # The work is done (or stopped): a Ctrl-C while the interpreter exits
    # would only print a traceback from its exit handlers. This handler,
    # registered last, runs first.
    atexit.register(signal.signal, signal.SIGINT, signal.SIG_IGN)
    if code == 130:
        leave_if_working(code)
    sys.exit(code)
