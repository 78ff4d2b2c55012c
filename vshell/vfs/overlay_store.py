"""Keeping the copy-on-write overlays of a sandbox in a host directory across runs.

An :class:`OverlayBackend` holds its upper layer in memory, which is lost when the
process ends.  ``--overlay DIR`` lets a person run an agent, stop, look at the changes
tomorrow, and only then sync: the upper layer is written to ``DIR`` as plain files plus
one JSON state file.  The upper layer itself stays a MemoryBackend while running (modes
such as 0444 directories would otherwise lock us out of our own store); the store is a
snapshot loaded at start and rewritten after every change point.

Layout (``DIR`` is 0700, files 0600)::

    DIR/state.json            mounts, whiteouts, copy-up records, upper entry metadata
    DIR/<id>/upper-<gen>/...  the upper layer's regular files, as plain files

A new snapshot goes to a fresh ``upper-<gen>`` and becomes current only when
``state.json`` is replaced (temp + fsync + rename), so a crash mid-save leaves the
previous snapshot intact.  The host is never written here: only ``DIR``.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import shutil
import stat as st
from pathlib import Path
from typing import Any

from vshell.records import record
from vshell.vfs.memory import MemoryBackend
from vshell.vfs.overlay import Origin, OverlayBackend

__all__ = ["OverlayStateError", "OverlayStore", "fresh_overlay_dir", "recorded_mounts"]

_STATE = "state.json"
_LOCK = ".lock"
_VERSION = 1


class OverlayStateError(ValueError):
    """DIR cannot be used: unreadable state, or it belongs to other mounts."""


def fresh_overlay_dir(base: str | os.PathLike[str]) -> str:
    """A new private (0700) directory ``base/overlays/<random>`` for a throw-away overlay."""
    root = Path(base) / "overlays"
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = root / secrets.token_hex(8)
    path.mkdir(mode=0o700)
    return str(path)


def recorded_mounts(directory: str | os.PathLike[str]) -> list[tuple[str, str]]:
    """(host, vpath) of the cow mounts an existing overlay DIR records (never creates DIR)."""
    if not os.path.isfile(os.path.join(directory, _STATE)):
        raise OverlayStateError(f"{directory}: no overlay here (no {_STATE})")
    store = OverlayStore(directory)
    try:
        return store.mounts()
    finally:
        store.close()


def _fake(parts: list[str] | tuple[str, ...]) -> str:
    return "/" + "/".join(parts)


def _check_parts(raw: Any) -> tuple[str, ...]:
    """Path components read back from state.json; never allowed to climb out of DIR."""
    if not isinstance(raw, list) or not raw:
        raise OverlayStateError("bad path in overlay state")
    for name in raw:
        if not isinstance(name, str) or name in ("", ".", "..") or "/" in name or "\0" in name:
            raise OverlayStateError(f"bad path component {name!r} in overlay state")
    return tuple(raw)


@record
class _Record:
    """One cow mount as recorded in state.json."""

    id: str
    host: str
    vpath: str
    data: dict[str, Any]


class OverlayStore:
    """The persistent home of the cow overlays of one sandbox (see the module doc)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.dir = Path(os.path.abspath(directory))
        try:
            self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            info = os.lstat(self.dir)
        except OSError as e:
            raise OverlayStateError(f"overlay directory {self.dir}: {e.strerror or e}") from None
        if not st.S_ISDIR(info.st_mode):
            raise OverlayStateError(f"overlay directory {self.dir}: not a directory")
        if info.st_uid != os.getuid():
            raise OverlayStateError(f"overlay directory {self.dir}: not owned by this user")
        if st.S_IMODE(info.st_mode) != 0o700:
            os.chmod(self.dir, 0o700)  # the snapshot may hold secrets the agent wrote
        self.records: dict[str, _Record] = {}
        self._attached: dict[str, OverlayBackend] = {}
        self._lock_fd: int | None = self._take_lock()
        try:
            self._load_state()
        except BaseException:
            self.close()
            raise

    def _take_lock(self) -> int:
        """One process per DIR: a second writer would silently undo the first's saves."""
        fd = os.open(self.dir / _LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise OverlayStateError(
                f"overlay {self.dir} is in use by another vshell process"
            ) from None
        return fd

    def close(self) -> None:
        """Release DIR for the next process (nothing is saved here; see save())."""
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    # ------------------------------------------------------------------ state file

    def _load_state(self) -> None:
        path = self.dir / _STATE
        try:
            text = path.read_text("utf-8")
        except FileNotFoundError:
            return
        except OSError as e:
            raise OverlayStateError(f"{path}: {e.strerror or e}") from None
        try:
            state = json.loads(text)
            if state.get("version") != _VERSION:
                raise OverlayStateError(f"{path}: unsupported overlay state version")
            for m in state["mounts"]:
                rec = _Record(str(m["id"]), str(m["host"]), str(m["vpath"]), m)
                if not rec.id.isalnum():
                    raise OverlayStateError(f"{path}: bad mount id {rec.id!r}")
                self.records[rec.vpath] = rec
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            if isinstance(e, OverlayStateError):
                raise
            raise OverlayStateError(f"{path}: corrupt overlay state ({e})") from None

    def mounts(self) -> list[tuple[str, str]]:
        """(host directory, vpath) of every recorded cow mount, in vpath order."""
        return sorted((r.host, r.vpath) for r in self.records.values())

    # ------------------------------------------------------------------ attach / load

    def attach(self, vpaths: dict[str, OverlayBackend]) -> None:
        """Bind the sandbox's cow mounts (vpath → backend) and reload what DIR holds.

        Refuses when DIR records a different host directory for a vpath, or holds a
        mount this sandbox does not have: resuming someone else's overlay would sync
        changes onto the wrong tree.
        """
        for vpath, backend in vpaths.items():
            rec = self.records.get(vpath)
            if rec is not None and rec.host != backend.host_dir:
                raise OverlayStateError(
                    f"overlay {self.dir} was recorded for {rec.host} at {vpath}, "
                    f"not {backend.host_dir}"
                )
        for vpath, rec in self.records.items():
            if vpath not in vpaths:
                raise OverlayStateError(
                    f"overlay {self.dir} also holds {rec.host} at {vpath} (copy-on-write); "
                    "mount it too or use another overlay directory"
                )
        used = {r.id for r in self.records.values()}
        for vpath, backend in sorted(vpaths.items()):
            rec = self.records.get(vpath)
            if rec is None:
                n = 0
                while f"m{n}" in used:
                    n += 1
                used.add(f"m{n}")
                self.records[vpath] = _Record(f"m{n}", backend.host_dir, vpath, {})
            else:
                self._load_mount(rec, backend)
            self._attached[vpath] = backend

    def _load_mount(self, rec: _Record, backend: OverlayBackend) -> None:
        data = rec.data
        try:
            gen = data.get("upper")
            upper = MemoryBackend(budget=backend.budget)
            fake_os = upper._os
            base = self.dir / rec.id / str(gen) if gen else None
            entries = [(_check_parts(e["path"]), e) for e in data.get("entries", [])]
            entries.sort(key=lambda item: len(item[0]))
            for parts, e in entries:
                kind = e["kind"]
                if kind == "d":
                    fake_os.mkdir(_fake(parts), 0o700)
                elif kind == "l":
                    fake_os.symlink(str(e["target"]), _fake(parts))
                elif kind == "f" and base is not None:
                    upper.seed_file(parts, self._read(base, parts))
                else:
                    raise OverlayStateError(f"bad entry kind {kind!r}")
            for parts, e in reversed(entries):  # deepest first: a 0555 dir is set last
                if e["kind"] != "l":  # times first: pyfakefs wants write access for utime
                    times = (int(e["atime_ns"]), int(e["mtime_ns"]))
                    fake_os.utime(_fake(parts), ns=times)
                    fake_os.chmod(_fake(parts), int(e["mode"]))
            if isinstance(backend.upper, MemoryBackend):
                backend.upper.release()
            backend.upper = upper
            backend.hidden = {_check_parts(p) for p in data.get("hidden", [])}
            backend.origins = {
                _check_parts(o[0]): Origin(str(o[1]), int(o[2]), int(o[3]), str(o[4]))
                for o in data.get("origins", [])
            }
        except (KeyError, TypeError, ValueError, IndexError) as e:
            if isinstance(e, OverlayStateError):
                raise
            raise OverlayStateError(f"{self.dir}: corrupt overlay state ({e})") from None
        except OSError as e:
            raise OverlayStateError(f"{self.dir}: cannot load overlay: {e}") from None

    @staticmethod
    def _read(base: Path, parts: tuple[str, ...]) -> bytes:
        fd = os.open(base.joinpath(*parts), os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as f:
            return f.read()

    # ------------------------------------------------------------------ save

    def save(self) -> None:
        """Snapshot every attached overlay to DIR; the rename of state.json commits it."""
        old_gens: list[Path] = []
        mounts: list[dict[str, Any]] = []
        for vpath, rec in sorted(self.records.items()):
            backend = self._attached.get(vpath)
            if backend is None:
                mounts.append(rec.data)
                continue
            with backend._lock:
                data = self._snapshot(rec, backend)
            if rec.data.get("upper"):
                old_gens.append(self.dir / rec.id / str(rec.data["upper"]))
            rec.data = data
            mounts.append(data)
        state = {"version": _VERSION, "mounts": mounts}
        tmp = self.dir / f".{_STATE}.{secrets.token_hex(6)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(state, f, indent=1)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.dir / _STATE)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        for old in old_gens:
            shutil.rmtree(old, ignore_errors=True)

    def _snapshot(self, rec: _Record, backend: OverlayBackend) -> dict[str, Any]:
        """Write ``backend``'s upper layer to a new generation directory; its metadata."""
        home = self.dir / rec.id
        home.mkdir(mode=0o700, exist_ok=True)
        gen = f"upper-{secrets.token_hex(6)}"
        base = home / gen
        base.mkdir(mode=0o700)
        # Walk pyfakefs's objects, not its os module: the os module applies permission
        # checks, and a 0000 file or directory the agent made must still be saved.
        entries: list[dict[str, Any]] = []
        stack: list[tuple[tuple[str, ...], Any]] = [((), backend.upper.fs.root)]
        while stack:
            p, directory = stack.pop()
            for name, obj in sorted(directory.entries.items()):
                child = (*p, name)
                times = obj.stat_result
                entry: dict[str, Any] = {
                    "path": list(child),
                    "mode": st.S_IMODE(obj.st_mode),
                    "atime_ns": times.st_atime_ns,
                    "mtime_ns": times.st_mtime_ns,
                }
                if st.S_ISDIR(obj.st_mode):
                    entry["kind"] = "d"
                    os.mkdir(base.joinpath(*child), 0o700)
                    stack.append((child, obj))
                elif st.S_ISLNK(obj.st_mode):
                    entry["kind"] = "l"
                    entry["target"] = obj.contents
                else:
                    entry["kind"] = "f"
                    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                    with os.fdopen(os.open(base.joinpath(*child), flags, 0o600), "wb") as f:
                        f.write(obj.byte_contents or b"")
                        os.fsync(f.fileno())
                entries.append(entry)
        return {
            "id": rec.id,
            "host": rec.host,
            "vpath": rec.vpath,
            "upper": gen,
            "entries": entries,
            "hidden": sorted(list(p) for p in backend.hidden),
            "origins": [
                [list(p), o.kind, o.size, o.mtime_ns, o.digest]
                for p, o in sorted(backend.origins.items())
            ],
        }
