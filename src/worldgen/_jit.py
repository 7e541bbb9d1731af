"""Numba compilation choices, made once for the whole package.

Every compiled function in worldgen is declared with :func:`kernel` (serial)
or :func:`parallel_kernel` (``prange`` over the outermost loop). The flags are:

- ``cache=True``: compiled code is written beside the sources, so only the
  very first call on a machine pays for compilation.
- ``fastmath=False``: no reassociation and no fused multiply-add contraction.
  worldgen promises the same bytes on every run, in any thread count, and
  reproduces Ken Perlin's reference bit for bit; both need IEEE arithmetic in
  the order the source states it.
- ``error_model="numpy"``: division follows IEEE rules instead of raising,
  which keeps the division out of the exception machinery.
- ``nogil=True``: callers may run kernels from Python threads.
- ``no_cfunc_wrapper=True``: numba otherwise gives every compiled function
  a C-callable wrapper too, for use as a first-class function value (a
  ``cfunc`` address); worldgen never uses kernels that way, and making the
  wrappers cost about 1.3 of the 31 CPU-seconds of a first ``worldgen
  terrain`` (141 of them, and their machine code).

A kernel called from another kernel is compiled once per argument *type*:
numba would compile a separate copy for every constant it is passed
(``_same(tiles, y, x, -1, 1)`` once per neighbour, ``_axes(..., 0)`` and
``_axes(..., 1)``), which cost several seconds of a first run. The caller
still sees the constant: the helper's code is inlined into it and folded
there by LLVM, so the machine code is as fast (and the same arithmetic).

Numba's cache notices edits only in the file of the function it compiles, so
a kernel's jitted helpers live beside it or in the noise primitives it calls;
the test suite keys its cache directory by the package's source to stay fresh.

Threads: parallel kernels run on numba's OpenMP layer with the *passive*
wait policy (``OMP_WAIT_POLICY=PASSIVE``, set here unless the environment
already sets it). With the default active policy, idle workers spin for a
while before sleeping; when the other cores are busy the spinning steals the
very core a worker needs, and a 1 ms call at 2 threads took 7 ms. Passive
workers sleep at once and are woken per call, for a few microseconds. The
workqueue layer avoids spinning too, but it does not allow kernels to run
from two Python threads at once, which worldgen promises (``nogil``).
The policy is read when the OpenMP runtime loads, at the first parallel
call, so it must be set at import, before any kernel runs.

Where numba can write neither beside the sources nor in the user's cache
folder (a read-only install and a read-only ``$HOME``), compiled code is
cached in a private folder under the system's temporary directory instead
(with one warning when the folder is made; later runs use it silently),
or, if that fails too, not cached at all (one warning a run).
"""

from __future__ import annotations

import contextlib
import numbers
import os
import stat
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator

# Before numba starts its OpenMP workers; see the module docstring.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numba
import numpy as np
from numba.core import errors, types
from numba.core.registry import CPUDispatcher

from worldgen._ctrl_c import caused_by_ctrl_c

OPTIONS = {
    "cache": True,
    "fastmath": False,
    "error_model": "numpy",
    "nogil": True,
    "no_cfunc_wrapper": True,
}


def kernel(func: Callable) -> Callable:
    """Compile ``func`` with :data:`OPTIONS` (a decorator)."""
    return _compiled(func, {})


def inlined_kernel(func: Callable) -> Callable:
    """:func:`kernel`, inlined by numba into every kernel that calls it (for
    a big helper shared by two kernels, which LLVM would call instead of
    inlining; inlining many helpers this way slows a first run, see the
    module docstring)."""
    return _compiled(func, {"inline": "always"})


def parallel_kernel(func: Callable) -> Callable:
    """Compile ``func`` with :data:`OPTIONS` and ``parallel=True`` (a decorator)."""
    return _compiled(func, {"parallel": True})


class _Kernel(CPUDispatcher):
    """Numba's CPU dispatcher, typed by argument types when called from
    compiled code (see the module docstring)."""

    def get_call_template(self, args, kws):
        plain = tuple(types.unliteral(a) for a in args)
        plain_kws = {k: types.unliteral(v) for k, v in kws.items()}
        if plain != tuple(args) or plain_kws != kws:
            try:
                return super().get_call_template(plain, plain_kws)
            except errors.TypingError:
                pass  # a kernel that needs the constant itself
        return super().get_call_template(args, kws)


def _compiled(func: Callable, extra: dict) -> Callable:
    try:
        return _dispatcher(func, extra)
    except RuntimeError as exc:
        if "cannot cache" not in str(exc):
            raise
    _cache_elsewhere()
    return _dispatcher(func, extra)


def _dispatcher(func: Callable, extra: dict) -> _Kernel:
    """What ``numba.njit(**OPTIONS, **extra)(func)`` makes, as a :class:`_Kernel`."""
    options = {key: value for key, value in OPTIONS.items() if key != "cache"}
    options.update(extra, nopython=True, boundscheck=None)
    kernel = _Kernel(py_func=func, locals={}, targetoptions=options)
    if OPTIONS["cache"]:
        kernel.enable_caching()
    return kernel


def skip_blas_probe() -> None:
    """Load numba's array functions without its check for scipy's BLAS.

    When numba loads its first kernel (compiled or from the cache) it asks
    whether scipy's BLAS is there by importing ``scipy.linalg``: about 0.7 s
    of CPU on every run, for an answer only numba's own ``np.correlate``
    and ``np.convolve`` read (worldgen's kernels call neither, nor BLAS).
    The command line calls this at start-up; those two then take their
    plain loop, as when scipy is not installed, and scipy is imported only
    by what needs it (trimesh, for the OBJ, PLY and STL meshes). A call
    after numba has loaded them, or once scipy's BLAS is imported, does
    nothing.
    """
    probe = "scipy.linalg.cython_blas"
    if "numba.np.arraymath" in sys.modules or probe in sys.modules:
        return
    sys.modules[probe] = None  # an import of it fails at once
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        if probe in sys.modules and sys.modules[probe] is None:
            del sys.modules[probe]


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Let Ctrl-C inside a compiled kernel arrive as a KeyboardInterrupt.

    A signal handled while a parallel kernel runs reaches Python as a
    ``SystemError`` ("returned a result with an exception set") around the
    ``KeyboardInterrupt`` (and one that lands in a class body, as numba
    compiles, a ``RuntimeError``); it is re-raised as what it is.
    """
    try:
        yield
    except Exception as exc:
        if caused_by_ctrl_c(exc):
            raise KeyboardInterrupt from None
        raise


def _cache_elsewhere() -> None:
    """Point numba's cache at a private temporary folder, or turn it off;
    warn once: when the folder is made (later runs that find it say
    nothing), or on every run if there is no folder."""
    folder, made = _private_temp_folder()
    if folder is not None:
        numba.config.CACHE_DIR = folder
        if not made:
            return
        where = f"in {folder}"
    else:
        OPTIONS["cache"] = False  # shared with numba overloads, which read it later
        where = "nowhere: every run compiles again (~30 s)"
    warnings.warn(
        "worldgen: numba cannot write its cache beside the installed package or under "
        f"$HOME; compiled kernels are cached {where}. Set NUMBA_CACHE_DIR to a writable "
        "folder to choose the place",
        RuntimeWarning,
        stacklevel=4,
    )


def _private_temp_folder() -> tuple[str | None, bool]:
    """A folder under the temporary directory that only this user can
    write (kept between runs), or None; and whether this call made it."""
    try:
        uid = os.getuid() if hasattr(os, "getuid") else 0
        folder = os.path.join(tempfile.gettempdir(), f"worldgen-numba-cache-{uid}")
        made = True
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            made = False
        info = os.lstat(folder)
        private = stat.S_ISDIR(info.st_mode) and not info.st_mode & 0o022
        if not (private and info.st_uid == uid and os.access(folder, os.W_OK)):
            folder, made = tempfile.mkdtemp(prefix="worldgen-numba-cache-"), True
        tempfile.TemporaryFile(dir=folder).close()
        return folder, made
    except OSError:
        return None, True


@contextlib.contextmanager
def threads(count: int) -> Iterator[None]:
    """Run the enclosed worldgen calls on ``count`` threads.

    Results do not depend on the thread count; only the speed does.

    Parameters
    ----------
    count : int
        Number of threads, from 1 to ``numba.config.NUMBA_NUM_THREADS``.

    Raises
    ------
    ValueError
        If ``count`` is outside that range.

    Examples
    --------
    >>> from worldgen import threads
    >>> with threads(1):
    ...     pass
    """
    limit = numba.config.NUMBA_NUM_THREADS
    if (
        isinstance(count, (bool, np.bool_))
        or not isinstance(count, numbers.Integral)
        or not 1 <= count <= limit
    ):
        raise ValueError(f"threads: count must be an integer from 1 to {limit}, got {count!r}")
    previous = numba.get_num_threads()
    numba.set_num_threads(count)
    try:
        yield
    finally:
        numba.set_num_threads(previous)
