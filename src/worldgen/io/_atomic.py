"""Atomic file output: a file appears whole, or not at all."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import pathlib
import secrets
import stat
from collections.abc import Iterator

# The longest file name most file systems take, in bytes; a temporary name
# adds 15 to the target's (".", ".", 8 random characters, ".part").
_NAME_MAX = 255
# Bytes :class:`HashedFile` hands the kernel at a time: a piece is hashed
# right after it is written, while it is still in the CPU's cache.
_WRITE_PIECE = 1 << 20
# SHA-256 digests of files :func:`atomic_file` wrote, by (device, inode):
# (size, modification time in ns, hex digest). A manifest takes a file's
# digest from here while its size and time are the same, instead of
# reading the file back (a terrain set's 300 MB). At most
# _MOST_RECORDED, the oldest forgotten first.
_RECORDED: dict[tuple[int, int], tuple[int, int, str]] = {}
_MOST_RECORDED = 4096


def _temporary_prefix(name: str) -> str:
    """``.NAME.``, ``name`` shortened so that the temporary file's whole
    name stays within :data:`_NAME_MAX` bytes."""
    while len(os.fsencode(f".{name}.")) > _NAME_MAX - len("12345678.part") and len(name) > 1:
        name = name[:-1]
    return f".{name}."


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike) -> Iterator[pathlib.Path]:
    """Yield a temporary path beside ``path``; move it into place on success.

    The temporary file lives in the same directory (so the final rename is
    atomic), is flushed to disk before the rename, and is removed if the
    block raises or is interrupted, so no half-written file is ever left at
    ``path``. The file ends with the permissions ``open(path, "w")`` gives:
    those of the file it replaces, or 0666 less the umask for a new one.
    Where ``path`` is a symbolic link the file is written where it leads,
    as ``open(path, "w")`` writes through it: the link stays, the
    temporary file is made beside the file it points to (so the rename
    stays within one file system) and that file is replaced.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "hello.txt"
    >>> with atomic_output(target) as tmp:
    ...     _ = tmp.write_text("hi")
    >>> target.read_text()
    'hi'
    """
    target, tmp = _begin(path)
    try:
        yield tmp
        with open(tmp, "rb+") as handle:
            os.fsync(handle.fileno())
        keep_mode(tmp, target)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


class HashedFile:
    """A file being written by :func:`atomic_file`: :meth:`write` takes
    any contiguous buffer (bytes, a numpy array) and passes its memory to
    the kernel as it is, taking the file's SHA-256 on the way."""

    def __init__(self, fd: int):
        self._fd = fd
        self._sha256 = hashlib.sha256()
        self.size = 0

    def write(self, data) -> int:
        """Write all of ``data`` (a C-contiguous buffer); the bytes written."""
        view = memoryview(data)
        if not view.c_contiguous:
            raise ValueError("data must be a C-contiguous buffer")
        view = view.cast("B")
        for start in range(0, len(view), _WRITE_PIECE):
            piece = view[start : start + _WRITE_PIECE]
            while piece:
                done = os.write(self._fd, piece)
                self._sha256.update(piece[:done])
                piece = piece[done:]
        self.size += len(view)
        return len(view)

    def hexdigest(self) -> str:
        """SHA-256 of the bytes written so far."""
        return self._sha256.hexdigest()


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike) -> Iterator[HashedFile]:
    """Yield a :class:`HashedFile` to write ``path`` through, atomically
    as :func:`atomic_output` does (the same temporary file, flush to disk,
    rename, permissions and links), with no copy of the data on the way:
    each buffer goes to the kernel from its own memory. The file's SHA-256,
    taken as it is written, is kept for :func:`recorded_digest`.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "hello.txt"
    >>> with atomic_file(target) as out:
    ...     _ = out.write(b"hi")
    >>> target.read_text()
    'hi'
    """
    target, tmp = _begin(path)
    try:
        fd = os.open(tmp, os.O_WRONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            out = HashedFile(fd)
            yield out
            os.fsync(fd)
            written = os.fstat(fd)
        finally:
            os.close(fd)
        keep_mode(tmp, target)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if written.st_size == out.size:
        _record(written, out.hexdigest())


def _record(stat_result: os.stat_result, digest: str) -> None:
    key = (stat_result.st_dev, stat_result.st_ino)
    _RECORDED.pop(key, None)
    while len(_RECORDED) >= _MOST_RECORDED:
        del _RECORDED[next(iter(_RECORDED))]
    _RECORDED[key] = (stat_result.st_size, stat_result.st_mtime_ns, digest)


def recorded_digest(stat_result: os.stat_result) -> str | None:
    """The SHA-256 (hex) :func:`atomic_file` took of the file whose
    ``os.stat`` is ``stat_result``, if it wrote that file and its size and
    modification time are still as written; else None (read the file).
    Each digest is given once."""
    key = (stat_result.st_dev, stat_result.st_ino)
    entry = _RECORDED.pop(key, None)
    if entry is None or entry[:2] != (stat_result.st_size, stat_result.st_mtime_ns):
        return None
    return entry[2]


def _begin(path: str | os.PathLike) -> tuple[pathlib.Path, pathlib.Path]:
    """The file ``path`` names (links followed) and a new empty temporary
    file beside it, its folder made if missing."""
    target = pathlib.Path(path)
    if target.is_dir():
        raise IsADirectoryError(
            f"path {str(path)!r} is a folder ({target.resolve()}), not a file; give the file's name"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    target = _final_path(target)
    return target, _create_temporary(target)


def _final_path(target: pathlib.Path) -> pathlib.Path:
    """``target``, or the path its symbolic links lead to (through any
    links among its folders too): the file ``open(target, "w")`` writes."""
    if not target.is_symlink():
        return target
    final = pathlib.Path(os.path.realpath(target))
    if final.is_symlink():  # a loop: realpath stops where it closes
        raise OSError(errno.ELOOP, "symbolic links lead round in a loop", str(target))
    if final.is_dir():
        raise IsADirectoryError(
            f"path {str(target)!r} is a link to the folder {final}, not a file; give the file's "
            "name"
        )
    return final


def _create_temporary(target: pathlib.Path) -> pathlib.Path:
    """A new empty file beside ``target`` with a hidden temporary name,
    made as ``open(path, "w")`` makes files: mode 0666 less the umask
    (mkstemp's 0600 would leave every file unreadable to other users)."""
    prefix = _temporary_prefix(target.name)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = target.parent / f"{prefix}{secrets.token_hex(4)}.part"
        try:
            os.close(os.open(tmp, flags, 0o666))
        except FileExistsError:
            continue
        return tmp
    raise FileExistsError(f"no free temporary name beside {target}")  # pragma: no cover


def keep_mode(new: pathlib.Path, target: pathlib.Path) -> None:
    """Give ``new``, about to replace ``target``, the permissions of the
    file at ``target`` if there is one (as ``open(target, "w")`` keeps
    them); a new file keeps its own."""
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode) & 0o777
    except OSError:  # no file there (or none we may look at)
        return
    os.chmod(new, mode)


def check_file_name(value: object, name: str, where: str = "directory") -> str:
    """``value`` as a plain file name (or name part): no folders, so what is
    written under it stays inside ``where``."""
    if not isinstance(value, str) or not value:
        raise ValueError(f"{name} must be a non-empty string, got {value!r}")
    separators = {"/", os.sep} | ({os.altsep} if os.altsep else set())
    if any(sep in value for sep in separators) or value in (".", "..") or "\0" in value:
        raise ValueError(
            f"{name} must be a plain file name part without path separators, got {value!r}; "
            f"put folders in {where} instead"
        )
    return value
