"""Load ``bashlex.parser`` with its LALR tables from a per-user cache.

``import bashlex`` rebuilds its LALR tables every time (about 80 ms).  The tables are
plain dicts of ints and strings, so they are kept with :mod:`marshal` (which, unlike
pickle, runs no code when loading) in ``$XDG_CACHE_HOME/vshell`` (or ``~/.cache/vshell``),
keyed by the bashlex version and the size and modification time of its grammar and table
generator (hashing their text would cost a ``hashlib`` import on every start).  Any problem
— no home, a read-only disk, a foreign or corrupt file — falls back to the normal build.
Set ``VSHELL_PARSER_CACHE=0`` to disable.
"""

from __future__ import annotations

import importlib
import importlib.util
import marshal
import os
import stat
import sys
import types
import zlib
from typing import Any

_FORMAT = 2


def import_bashlex_parser(version: str) -> None:
    """Import ``bashlex.parser``, reusing cached LALR tables when they are valid.

    ``bashlex/__init__.py`` imports the parser at once, so the package module is created
    first without running it, ``yacc.yacc`` is wrapped while ``bashlex.parser`` loads, and
    the package's own ``__init__`` runs last.
    """
    if "bashlex" in sys.modules or os.environ.get("VSHELL_PARSER_CACHE") == "0":
        import bashlex.parser
        return
    spec = importlib.util.find_spec("bashlex")
    if spec is None or spec.loader is None or not spec.submodule_search_locations:
        import bashlex.parser  # noqa: F401
        return
    package = importlib.util.module_from_spec(spec)
    sys.modules["bashlex"] = package
    try:
        _import_parser_with_cache(version)
        spec.loader.exec_module(package)
    except BaseException:
        for name in [n for n in sys.modules if n == "bashlex" or n.startswith("bashlex.")]:
            del sys.modules[name]
        raise


class _DeferredModule(types.ModuleType):
    """Stands for a module in one importer's namespace and imports the real one on first use."""

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self.__name__), attr)


def _import_yacc() -> Any:  # bashlex has no types; its yacc is patched
    """``bashlex.yacc``, with its :mod:`inspect` imported only if it is used.

    yacc needs ``inspect`` (which pulls in ``ast``, ``dis`` and ``tokenize``: ~5 ms) only to
    build tables from the grammar's source, which the cache skips.  The stand-in is in
    ``sys.modules`` only while yacc is imported, so every other importer gets the real one.
    """
    if "inspect" in sys.modules or "bashlex.yacc" in sys.modules:
        from bashlex import yacc

        return yacc
    stand_in = _DeferredModule("inspect")
    sys.modules["inspect"] = stand_in
    try:
        from bashlex import yacc
    finally:
        if sys.modules.get("inspect") is stand_in:
            del sys.modules["inspect"]
    return yacc


def _import_parser_with_cache(version: str) -> None:
    yacc = _import_yacc()

    path, key = _cache_file(yacc, version)
    original = yacc.yacc

    def cached_yacc(*args: Any, **kwargs: Any) -> Any:
        module = sys.modules["bashlex.parser"]
        data = _load(path) if path else None
        if isinstance(data, dict) and data.get("key") == key:
            try:
                return _rebuild(yacc, data, vars(module))
            except Exception:  # noqa: BLE001, S110 - any mismatch: build the tables anew
                pass
        kwargs["module"] = module
        parser = original(*args, **kwargs)
        if path:
            _store(path, key, parser)
        return parser

    yacc.yacc = cached_yacc
    try:
        import bashlex.parser  # noqa: F401
    finally:
        yacc.yacc = original


_SEAL_LABEL = "bashlex-tables"


def _cache_file(yacc: types.ModuleType, version: str) -> tuple[str | None, str]:
    """The cache file's path and the key its content must carry to be used."""
    try:
        here = os.path.dirname(yacc.__file__ or "")
        stamps = []
        for name in ("parser.py", "yacc.py", "tokenizer.py"):
            st = os.stat(os.path.join(here, name))
            stamps.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
        key = f"{_FORMAT}:{version}:{sys.version_info[:2]}:{here}:{','.join(stamps)}"
        from vshell.cachedir import cache_folder

        folder = cache_folder()
        if folder is None:
            return None, key
        digest = f"{zlib.crc32(key.encode()):08x}"
        return os.path.join(folder, f"bashlex-{version}-{digest}.tables"), key
    except (OSError, ValueError):
        return None, ""


def _load(path: str) -> Any:
    """The marshalled tables, only from a regular file we own that nobody else can write."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_mode & 0o022:
            return None
        if hasattr(os, "getuid") and st.st_uid != os.getuid():
            return None
        with os.fdopen(fd, "rb") as f:
            fd = -1
            raw = f.read()
        from vshell.cachedir import unseal_bytes

        # marshal is unsafe on foreign input: only bytes vshell sealed are loaded.
        data = unseal_bytes(os.path.dirname(path), _SEAL_LABEL, raw)
        return None if data is None else marshal.loads(data)  # loads: far faster than load
    except (OSError, EOFError, ValueError, TypeError):
        return None
    finally:
        if fd >= 0:
            os.close(fd)


def _store(path: str, key: str, parser: Any) -> None:
    """Write the tables atomically (temporary file + rename) into a private directory."""
    data = {
        "format": _FORMAT,
        "key": key,
        "productions": [
            (p.number, p.name, tuple(p.prod), tuple(p.prec), p.func) for p in parser.productions
        ],
        "action": {k: dict(v) for k, v in parser.action.items()},
        "goto": {k: dict(v) for k, v in parser.goto.items()},
        "errorfunc": getattr(parser.errorfunc, "__name__", None),
    }
    import tempfile

    directory = os.path.dirname(path)
    tmp = None
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        from vshell.cachedir import seal_bytes

        sealed = seal_bytes(directory, _SEAL_LABEL, marshal.dumps(data))
        if sealed is None:
            return  # no trustworthy key: no cache
        fd, tmp = tempfile.mkstemp(prefix=".tables-", dir=directory)
        with os.fdopen(fd, "wb") as f:
            f.write(sealed)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
        tmp = None
    except (OSError, ValueError):
        pass
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _rebuild(yacc: types.ModuleType, data: Any, pdict: dict[str, Any]) -> Any:
    """An LRParser equal to what ``yacc.yacc()`` builds, from the cached tables."""
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        raise ValueError("stale table cache")
    productions = []
    for number, name, prod, prec, func in data["productions"]:
        p = yacc.Production(number, name, prod, prec, func)
        p.bind(pdict)
        productions.append(p)
    tables = types.SimpleNamespace(
        lr_productions=productions, lr_action=data["action"], lr_goto=data["goto"]
    )
    errorfunc = pdict[data["errorfunc"]] if data["errorfunc"] else None
    return yacc.LRParser(tables, errorfunc)
