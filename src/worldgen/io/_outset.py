"""Output sets: a directory holds complete sets of files, never a mix of two runs.

A set is written aside, into a hidden staging folder inside the output
directory, and swapped in only when every file is there:

    lock the directory -> clean up what killed runs left -> stage the files
    -> write the commit list -> drop the old manifest -> move the files in
    -> write the new manifest (last) -> remove the staging folder

``worldgen-set.json``, written last, lists the files of each complete set
with their sizes and SHA-256 digests. A run that fails or is interrupted
before the moves removes its staging folder (a Ctrl-C whose
KeyboardInterrupt was lost on the way, in a finalizer or a library that
catches everything, still stops the set); Ctrl-C during the moves (they
take milliseconds) is held until they are done, so the new set is complete.
A run that is killed leaves its staging folder, and so does one whose moves
fail (a full disk while writing the manifest): the next run into the same
directory removes it (or, if its commit list is there, finishes the moves)
before it does anything else. So a failed or killed run leaves the previous
complete set, or, after a failure during the moves, no manifest until the
next run completes them: never a manifest over a mix. A new set replaces every earlier set it shares a file name with (and
removes that set's other files); sets of other commands with other names,
and files worldgen did not write, are left alone.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import pathlib
import shutil
import tempfile
from collections.abc import Iterable, Iterator

from worldgen._ctrl_c import caused_by_ctrl_c, ctrl_c_held, ctrl_c_noted
from worldgen.io._atomic import atomic_output, keep_mode, recorded_digest

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: no lock
    fcntl = None

MANIFEST = "worldgen-set.json"
"""The manifest of the complete sets in an output directory, written last."""

_STAGING = ".worldgen-staging-"
_COMMIT = ".commit.json"
_FORMAT = 1


def check_output_dir(out: str | os.PathLike, name: str = "out") -> pathlib.Path:
    """``out`` as a path to a directory worldgen can write into, made if missing.

    Raises
    ------
    NotADirectoryError
        If ``out`` (or a folder above it) is a file.
    PermissionError
        If the directory cannot be made or written into.
    """
    if not isinstance(out, (str, os.PathLike)) or str(out) == "":
        raise TypeError(f"{name} must be a directory path, got {out!r}")
    path = pathlib.Path(out)
    if path.exists() and not path.is_dir():
        raise NotADirectoryError(
            f"{name}: {path} is a file, not a directory; choose a directory path for the output"
        )
    try:
        path.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise NotADirectoryError(
            f"{name}: {path} cannot be made because a folder above it is a file; "
            "choose another directory"
        ) from None
    except OSError as exc:  # no permission, a read-only file system, a full disk
        raise PermissionError(
            f"{name}: cannot make the directory {path} ({exc.strerror}); choose one you can write to"
        ) from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise PermissionError(
            f"{name}: cannot write into {path}; choose a directory you can write to"
        )
    return path


def makes_output_dir(out: object) -> bool:
    """Whether :func:`check_output_dir` would make ``out`` (nothing is
    there yet): a run that then fails removes it if it is still empty."""
    return isinstance(out, (str, os.PathLike)) and not os.path.lexists(out)


class OutputSet:
    """A set being staged; see :func:`output_set`."""

    def __init__(self, out: pathlib.Path, staging: pathlib.Path):
        self.out = out
        self.staging = staging

    def final(self, paths: Iterable[os.PathLike]) -> list[pathlib.Path]:
        """Where staged ``paths`` are (or will be) once the set is swapped in."""
        return [self.out / pathlib.Path(p).relative_to(self.staging) for p in paths]


@contextlib.contextmanager
def output_set(
    out: str | os.PathLike,
    *,
    command: str,
    about: str = "",
    name: str = "out",
    names: Iterable[str] = (),
) -> Iterator[OutputSet]:
    """Stage a set of files for ``out`` and swap it in when the block ends.

    Checks ``out`` (see :func:`check_output_dir`), takes the directory's
    lock and checks that each of ``names`` can take its file (see
    :func:`check_targets`) before the block runs, so a bad ``out`` fails
    before any work; every staged file is checked so again before any is
    moved in.
    Write the files under ``staging`` of the yielded :class:`OutputSet`; if
    the block raises (or is interrupted), nothing in ``out`` changes.

    Parameters
    ----------
    out : path-like
        The output directory.
    command : str
        What made the set (``"map"``, ``"terrain"``...), for the manifest.
    about : str
        A summary of its config, for the manifest.
    name : str
        The parameter name errors use for ``out``.
    names : iterable of str
        The files the set will write, relative to ``out`` (``"a/b.txt"``),
        when known before the work.

    Raises
    ------
    BlockingIOError
        If another worldgen run is writing into ``out``.
    NotADirectoryError, PermissionError
        If ``out`` cannot be written into.
    IsADirectoryError, NotADirectoryError
        If a folder stands where a file of the set goes, or a file where
        it needs a folder.
    UnsavedInterrupt
        If the block (or anything before the swap) is interrupted: a
        :class:`KeyboardInterrupt` that says whether ``out`` held files.
    SavedInterrupt
        If Ctrl-C came while the set was swapped in (which was finished).
    OSError
        If the block fails for want of room (a full disk or quota) or of a
        right to write (a read-only file system, a file in ``out``): the
        message names ``name``, the directory and what is left there; other
        errors of the block pass through as they are.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> with output_set(out, command="demo") as files:
    ...     _ = (files.staging / "a.txt").write_text("a")
    >>> sorted(p.name for p in out.iterdir())
    ['a.txt', 'worldgen-set.json']
    """
    made = makes_output_dir(out)
    path = check_output_dir(out, name)
    had_files = not made and _holds_files(path)
    committed = False
    try:
        with _locked(path, name):
            recover(path)
            check_targets(path, names, name)
            staging = pathlib.Path(tempfile.mkdtemp(prefix=_STAGING, dir=path))
            try:
                with ctrl_c_noted() as ctrl_c:
                    try:
                        yield OutputSet(path, staging)
                    except Exception as exc:
                        # A lost Ctrl-C that made the work fail (numba, cut in
                        # its compiler's callback: "no compiled object yet").
                        if ctrl_c:
                            raise KeyboardInterrupt from None
                        if not isinstance(exc, OSError):
                            raise
                        clear = _cannot_write(exc, path, name, had_files)
                        if clear is None:
                            raise
                        raise clear from exc
                if ctrl_c:  # its KeyboardInterrupt was lost on the way (a finalizer's)
                    raise KeyboardInterrupt
                _commit(path, staging, command, about, name)
                committed = True
            finally:
                # A commit list left means the moves were cut short by an
                # error: keep it, so that the next run (recover) finishes them.
                if not (staging / _COMMIT).is_file():
                    shutil.rmtree(staging, ignore_errors=True)
    except BaseException as exc:
        if made:  # leave no empty directory behind a failed first run
            with contextlib.suppress(OSError):
                path.rmdir()
        if isinstance(exc, SavedInterrupt) or not caused_by_ctrl_c(exc):
            raise
        if committed:  # Ctrl-C as the staging folder went
            raise SavedInterrupt from None
        raise UnsavedInterrupt(had_files) from None


def _holds_files(path: pathlib.Path) -> bool:
    """Whether ``path`` holds anything but staging folders."""
    return any(not entry.name.startswith(_STAGING) for entry in path.iterdir())


def check_targets(out: pathlib.Path, names: Iterable[str], name: str = "out") -> None:
    """Refuse a set whose files (``names``, relative to ``out``) could not
    be moved in: a folder where one of them (or the manifest) goes, or a
    file where one needs a folder.

    Raises
    ------
    IsADirectoryError, NotADirectoryError
        Naming ``name``, the path in the way and what to do.
    """
    for rel in sorted({*names, MANIFEST}):
        target = _inside(out, rel)
        if target.is_dir() and not target.is_symlink():
            raise IsADirectoryError(
                f"{name}: {target} is a folder, where the set writes a file; remove or "
                "rename it, or choose another output directory"
            )
        for folder in reversed(target.relative_to(out).parents[:-1]):
            if (out / folder).exists() and not (out / folder).is_dir():
                raise NotADirectoryError(
                    f"{name}: {out / folder} is a file, where the set needs a folder for "
                    f"{rel}; remove or rename it, or choose another output directory"
                )


_NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
_NO_WRITE = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})


def _cannot_write(exc: OSError, path: pathlib.Path, name: str, had_files: bool) -> OSError | None:
    """A message naming ``name`` and ``path`` for an error that stopped a
    set being staged in ``path`` (a full disk or quota, a read-only file
    system, a file or folder there that cannot be written; ``had_files``:
    whether the directory held files before the run); None for other
    errors, which keep their own message."""
    if exc.errno in _NO_ROOM:
        fix = "free some space there or choose another directory"
    elif exc.errno in _NO_WRITE and exc.filename is not None and _under(exc.filename, path):
        fix = "choose a directory you can write to"
    else:
        return None
    where = f", at {exc.filename}" if exc.filename is not None else ""
    clear = type(exc)(
        f"{name}: could not write the files into {path} ({exc.strerror or exc}{where}); "
        f"{'it keeps its previous files' if had_files else 'nothing is left there'}; {fix}"
    )
    clear.errno = exc.errno
    return clear


def _under(file: str | bytes | os.PathLike, path: pathlib.Path) -> bool:
    try:
        return pathlib.Path(os.fsdecode(file)).resolve().is_relative_to(path.resolve())
    except (OSError, ValueError):
        return False


def read_manifest(out: str | os.PathLike) -> list[dict]:
    """The complete sets recorded in ``out``'s manifest (none if it has none)."""
    try:
        data = json.loads((pathlib.Path(out) / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    sets = data.get("sets") if isinstance(data, dict) else None
    return [s for s in sets if isinstance(s, dict)] if isinstance(sets, list) else []


def changed_files(out: str | os.PathLike, folder: str) -> list[str]:
    """The files under ``folder`` (relative to ``out``) that are not as a
    complete set in ``out``'s manifest recorded them: changed (another size
    or SHA-256) or added since, by something other than worldgen; sorted
    paths relative to ``out``. None when the folder is missing.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> out = pathlib.Path(tempfile.mkdtemp())
    >>> with output_set(out, command="demo") as files:
    ...     (files.staging / "save").mkdir()
    ...     _ = (files.staging / "save" / "a.txt").write_text("a")
    >>> changed_files(out, "save")
    []
    >>> _ = (out / "save" / "a.txt").write_text("b")
    >>> changed_files(out, "save")
    ['save/a.txt']
    """
    out = pathlib.Path(out)
    recorded = {rel: info for s in read_manifest(out) for rel, info in s.get("files", {}).items()}
    changed = []
    for root, _, names in os.walk(out / folder):
        for file in names:
            path = pathlib.Path(root, file)
            rel = path.relative_to(out).as_posix()
            info = recorded.get(rel)
            if not (
                isinstance(info, dict)
                and path.is_file()
                and path.stat().st_size == info.get("bytes")
                and _digest(path) == info.get("sha256")
            ):
                changed.append(rel)
    return sorted(changed)


def recover(out: pathlib.Path) -> None:
    """Finish or remove what killed runs left in ``out`` (call with its lock).

    A staging folder with a commit list was killed while moving its files
    in: the moves are finished. Any other staging folder is removed.
    """
    for staging in sorted(out.glob(f"{_STAGING}*")):
        if (staging / _COMMIT).is_file():
            try:
                plan = json.loads((staging / _COMMIT).read_text(encoding="utf-8"))
                _swap_in(out, staging, plan)
            except (OSError, ValueError, KeyError, TypeError):
                pass  # an unreadable plan: nothing to finish
        shutil.rmtree(staging, ignore_errors=True)
    for part in out.glob(f".{MANIFEST}.*.part"):
        part.unlink(missing_ok=True)


def forget_sets(out: pathlib.Path, names: Iterable[str]) -> list[dict]:
    """Drop from ``out``'s manifest every set with a file at or under one of
    ``names`` (outputs written in place, about to change; call with the
    directory's lock); returns the sets dropped."""
    names = list(names)

    def touches(entry: dict) -> bool:
        return any(_at_or_under(rel, names) for rel in entry.get("files", {}))

    kept, dropped = [], []
    for entry in read_manifest(out):
        (dropped if touches(entry) else kept).append(entry)
    if dropped:
        _write_manifest(out, kept)
    return dropped


def unchanged_files(out: pathlib.Path, sets: Iterable[dict], under: Iterable[str]) -> dict:
    """The files of ``sets`` (manifest entries) at or under one of
    ``under`` that are still in ``out`` as the entries recorded them (same
    size and SHA-256): their entries by path relative to ``out``."""
    under = list(under)
    found = {}
    for entry in sets:
        for rel, info in entry.get("files", {}).items():
            if not (_at_or_under(rel, under) and isinstance(info, dict)):
                continue
            path = _inside(out, rel)
            if (
                path.is_file()
                and path.stat().st_size == info.get("bytes")
                and _digest(path) == info.get("sha256")
            ):
                found[rel] = {"bytes": info["bytes"], "sha256": info["sha256"]}
    return found


def _at_or_under(rel: str, names: Iterable[str]) -> bool:
    return any(rel == n or rel.startswith(n + "/") for n in names)


def record_set(
    out: pathlib.Path,
    files: Iterable[str],
    *,
    command: str,
    about: str = "",
    known: dict[str, dict] | None = None,
) -> None:
    """Add the complete set of ``files`` (paths relative to ``out``, written
    in place) to ``out``'s manifest, replacing the sets it shares a file
    with (call with the directory's lock). ``known``: more files of the set,
    with their entries already checked (see :func:`unchanged_files`)."""
    known = dict(known or {})
    files = sorted(set(files) - set(known))
    entry = _entry(out, files, command, about)
    entry["files"] = dict(sorted({**entry["files"], **known}.items()))
    files = list(entry["files"])
    kept = [old for old in read_manifest(out) if not set(files) & set(old.get("files", {}))]
    _write_manifest(out, [*kept, entry])


def _write_manifest(out: pathlib.Path, sets: list[dict]) -> None:
    with atomic_output(out / MANIFEST) as tmp:
        tmp.write_text(json.dumps({"format": _FORMAT, "sets": sets}, indent=1), encoding="utf-8")


@contextlib.contextmanager
def _locked(path: pathlib.Path, name: str) -> Iterator[None]:
    if fcntl is None:  # pragma: no cover
        yield
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BlockingIOError(
                f"{name}: another worldgen run is writing into {path}; wait for it to "
                "finish or choose another directory"
            ) from None
        yield
    finally:
        os.close(fd)


def _digest(path: pathlib.Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _entry(root: pathlib.Path, files: list[str], command: str, about: str) -> dict:
    """A set's manifest entry: what made it, and each file's size and SHA-256
    (taken as the file was written, if :func:`~worldgen.io._atomic.atomic_file`
    wrote it and it is unchanged since, else read from the file)."""
    entries = {}
    for rel in files:
        path = root / rel
        written = path.stat()
        digest = recorded_digest(written) or _digest(path)
        entries[rel] = {"bytes": written.st_size, "sha256": digest}
    return {"command": command, "about": about, "files": entries}


def _commit(out: pathlib.Path, staging: pathlib.Path, command: str, about: str, name: str) -> None:
    files = sorted(p.relative_to(staging).as_posix() for p in staging.rglob("*") if p.is_file())
    check_targets(out, files, name)
    entry = _entry(staging, files, command, about)
    new = set(files)
    kept, replaced = [], []
    for old in read_manifest(out):
        (replaced if new & set(old.get("files", {})) else kept).append(old)
    stale = sorted({rel for old in replaced for rel in old["files"]} - new)
    plan = {"sets": [*kept, entry], "files": files, "stale": stale}
    with atomic_output(staging / _COMMIT) as tmp:
        tmp.write_text(json.dumps(plan), encoding="utf-8")
    with ctrl_c_held(SavedInterrupt):  # the moves take milliseconds: let them finish
        _swap_in(out, staging, plan)
        (staging / _COMMIT).unlink()


class SavedInterrupt(KeyboardInterrupt):
    """Ctrl-C that came while a set was being swapped in: the swap was
    finished first, so the output directory holds the new set, complete."""


class UnsavedInterrupt(KeyboardInterrupt):
    """Ctrl-C before a set was swapped in: the output directory holds what
    it held before (``had_files``: whether it held any files then; a
    directory the run made is removed if empty)."""

    def __init__(self, had_files: bool):
        super().__init__()
        self.had_files = had_files


def _swap_in(out: pathlib.Path, staging: pathlib.Path, plan: dict) -> None:
    """Drop the old manifest, remove stale files, move the staged files in,
    write the manifest; safe to repeat after a kill part-way."""
    (out / MANIFEST).unlink(missing_ok=True)
    for rel in plan["stale"]:
        target = _inside(out, rel)
        target.unlink(missing_ok=True)
        folder = target.parent
        with contextlib.suppress(OSError):  # each folder up to out, only if empty
            while folder != out and out in folder.parents:
                folder.rmdir()
                folder = folder.parent
    # Hidden partial files (".NAME.*.part") that runs of older versions
    # left beside them: each folder listed once, not once a file.
    names_in: dict[pathlib.Path, set[str]] = {}
    for rel in [*plan["stale"], *plan["files"]]:
        target = _inside(out, rel)
        names_in.setdefault(target.parent, set()).add(target.name)
    for folder, names in names_in.items():
        try:
            entries = [entry.name for entry in os.scandir(folder)]
        except (FileNotFoundError, NotADirectoryError):
            continue
        for entry in entries:
            if _part_of(entry, names):
                (folder / entry).unlink(missing_ok=True)
    for rel in plan["files"]:
        source = staging / rel
        if source.exists():  # else moved before a kill
            target = _inside(out, rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            keep_mode(source, target)
            os.replace(source, target)
    _write_manifest(out, plan["sets"])


def _part_of(entry: str, names: set[str]) -> bool:
    """Whether ``entry`` is ``.NAME.*.part`` (as glob matches it) for one of
    ``names``."""
    if not (entry.startswith(".") and entry.endswith(".part")):
        return False
    middle = entry[1 : -len(".part")]  # NAME.*
    return any(middle[i] == "." and middle[:i] in names for i in range(len(middle)))


def _inside(out: pathlib.Path, rel: str) -> pathlib.Path:
    target = out / rel
    if ".." in pathlib.PurePosixPath(rel).parts or pathlib.PurePosixPath(rel).is_absolute():
        raise ValueError(f"{out / MANIFEST} names a file outside {out}: {rel!r}")
    return target
