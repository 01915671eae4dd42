"""Ingest's discovery: which files the given paths hold (and which entries are refused or failed, with why), and
which of the files the store already holds are unchanged: their stat as recorded, else their bytes as hashed.

A file's format is found from its content when it is parsed (parsing.py), never from its name here.
"""
from __future__ import annotations

import hashlib
import os
import stat
import time
from pathlib import Path


def find_files(paths: list[Path]) -> tuple[dict[str, os.stat_result], dict[str, str], dict[str, str]]:
    """Every regular file under the given files/folders, absolute and sorted so ids are reproducible, with
    its stat (which tells an unchanged file without reading it); the entries that are not read, each with
    its reason: symlinks leading out of the given tree or to a folder (a loop is such a link), FIFOs,
    sockets and devices (reading one can block forever); and the entries that failed, each with its
    reason: a path given that does not exist, a folder that cannot be listed. One scandir and one lstat a
    file: listing is most of an unchanged re-ingest."""
    found: dict[str, os.stat_result] = {}
    refused: dict[str, str] = {}
    failed: dict[str, str] = {}
    for root in paths:
        root = Path(root).resolve()
        try:
            is_dir, exists = root.is_dir(), root.exists()
        except OSError as e:  # a folder above it that cannot be searched
            failed[str(root)] = f"cannot be read: {e.strerror or e}"
            continue
        if is_dir:
            _scan(str(root), root, found, refused, failed)
        elif exists:
            reason = _refusal(root, root.parent)
            if reason:
                refused[str(root)] = reason
            else:
                found[str(root)] = root.stat()
        else:
            failed[str(root)] = "no such file or folder"
    return tuple({path: d[path] for path in sorted(d, key=_path_order)} for d in (found, refused, failed))


def _path_order(path: str) -> list[str]:
    return path.split(os.sep)  # as Path objects sort: by their parts


def _scan(folder: str, root: Path, found: dict, refused: dict, failed: dict) -> None:
    """os.walk's walk (folder symlinks are not followed), keeping the stat scandir already holds; a folder
    that cannot be listed is a failure, with its reason."""
    try:
        with os.scandir(folder) as entries:
            entries = list(entries)
    except OSError as e:
        failed[folder] = f"folder cannot be read: {e.strerror or e}"
        return
    for entry in entries:
        try:
            is_dir = entry.is_dir()  # follows symlinks, as os.walk sorts them; a link to a folder is not entered
        except OSError:  # a symlink loop: refused below with its reason
            is_dir = False
        if is_dir:
            if not entry.is_symlink():
                _scan(entry.path, root, found, refused, failed)
            continue
        if entry.is_symlink():
            reason = _refusal(Path(entry.path), root)
            try:
                st = None if reason else os.stat(entry.path)
            except OSError as e:
                reason = f"cannot be read: {e.strerror}"
        else:
            try:
                st = entry.stat(follow_symlinks=False)
                reason = None if stat.S_ISREG(st.st_mode) else "not a regular file (FIFO, socket or device)"
            except OSError as e:
                reason = f"cannot be read: {e.strerror}"
        if reason:
            refused[entry.path] = reason
        else:
            found[entry.path] = st


def _refusal(entry: Path, root: Path) -> str | None:
    """Why `entry` is not read as a log, or None when it is a regular file inside `root`."""
    try:
        if entry.is_symlink():
            target = entry.resolve(strict=True)
            if not target.is_relative_to(root):
                return "symlink leading out of the folders ingested"
            if target.is_dir():
                return "symlink to a folder (not followed)"
        mode = entry.stat().st_mode
    except (OSError, RuntimeError) as e:  # RuntimeError: a symlink loop on older Pythons
        return f"cannot be read: {e.strerror if isinstance(e, OSError) else e}"
    if not stat.S_ISREG(mode):
        return "not a regular file (FIFO, socket or device)"
    return None


def refused_row(path: str, reason: str) -> dict:
    """The sources row of an entry find_files refused: recorded as skipped, never read."""
    return {"path": path, "sha256": "", "bytes": 0, "status": "skipped", "error": reason}


def failed_entry_row(path: str, reason: str) -> dict:
    """The sources row of a path given that does not exist or a folder that cannot be listed: a failure
    (the exit status says so) of an entry that holds no bytes of its own."""
    return {"path": path, "sha256": "", "bytes": 0, "status": "error", "error": reason}


ENTRY_FAILURES = ("no such file or folder", "folder cannot be read: ", "cannot be read: ")


def entries_read_now(known: dict, paths: list[Path], present, gone: list[int]) -> list[int]:
    """The ids of failed entries (a missing path, a folder that could not be listed) under `paths` that this
    ingest found readable: a folder now listed, a path now there. Their failure is gone; a file that now
    exists at the path is in `present` and replaces the row itself."""
    roots = [Path(p).resolve() for p in paths]
    return [i for p, (i, sha, status, error) in known.items()
            if status == "error" and not sha and p not in present and i not in gone
            and error and error.startswith(ENTRY_FAILURES) and any(Path(p).is_relative_to(r) for r in roots)
            and os.path.isdir(p)]


RACY_NS = 2 * 10**9  # a stat is recorded only for a file last modified this long before it was read,
FINE_RACY_NS = 20 * 10**6  # or this long when its mtime has a fraction of a second (the kernel stamps those
# from a clock ticking every 1-10 ms; whole seconds may be a file system's granularity: FAT, some NFS)


def stat_signature(st: os.stat_result) -> tuple[int, int, int, int]:
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino


def racy_window(mtime_ns: int) -> int:
    return RACY_NS if mtime_ns % 10**9 == 0 else FINE_RACY_NS


def trusted_stat(st: os.stat_result, read_ns: int) -> tuple[int, int, int, int] | None:
    """The signature to record for bytes read at `read_ns` from a file of stat `st`, or None. A write after
    the read sets mtime to the time of that write; when st's mtime is older than the read by more than
    the clock's granularity, any later write changes it. A file modified within that window of its read is
    hashed again once it has passed (git's "racily clean" entries; writing.verify_racy)."""
    return stat_signature(st) if st.st_mtime_ns < read_ns - racy_window(st.st_mtime_ns) else None


def file_sha256(path: str) -> str:
    with open(path, "rb") as stream:  # in pieces: a file may be larger than memory should hold
        return hashlib.file_digest(stream, "sha256").hexdigest()


def same_bytes(path: str, st: os.stat_result, prior: tuple, refresh: list, racy: list) -> bool:
    """Whether the file still holds the bytes hashed for `prior` (its stat differs, or was not recorded);
    if so its stat joins `refresh` (or `racy`, to be verified), so that the next ingest need not read it."""
    try:
        read_ns = time.time_ns()
        same = file_sha256(path) == prior[1]
    except OSError:
        return False  # parsed again, which records why it cannot be read
    if same and (signature := trusted_stat(st, read_ns)):
        refresh.append((prior[0], signature))
    elif same:
        racy.append((prior[0], path, stat_signature(st), prior[1]))
    return same
