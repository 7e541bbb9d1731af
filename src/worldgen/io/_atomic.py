"""Atomic file output: a file appears whole, or not at all."""

from __future__ import annotations

import contextlib
import errno
import os
import pathlib
import secrets
import stat
from collections.abc import Iterator

# The longest file name most file systems take, in bytes; a temporary name
# adds 15 to the target's (".", ".", 8 random characters, ".part").
_NAME_MAX = 255


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
    target = pathlib.Path(path)
    if target.is_dir():
        raise IsADirectoryError(
            f"path {str(path)!r} is a folder ({target.resolve()}), not a file; give the file's name"
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    target = _final_path(target)
    tmp = _create_temporary(target)
    try:
        yield tmp
        with open(tmp, "rb+") as handle:
            os.fsync(handle.fileno())
        keep_mode(tmp, target)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


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
