"""The libwasmtime C API calls vshell's Python runtime makes, declared here with ctypes.

Why not wasmtime-py's classes: importing wasmtime-py declares its whole C API (thousands of
ctypes functions) and imports typing, pathlib and more, some 20 ms of every ``python`` start
in a fresh process (``vshell -c 'python3 ...'``), for the thirty functions vshell calls.
The wasmtime package still provides the library; it is located, never imported.

Host functions are defined through the "unchecked" C API (about 1.5 µs a call against 7-8
µs for wasmtime-py's ``define_func``, and no process-global for exceptions, which was racy
across threads; see the WASI spike), and the guest's exports are called the same way once
their types are checked against what vshell passes.

Every pointer is a plain ``c_void_p`` (an int in Python).  Two layouts of the C API are
relied on, both unchanged from wasmtime 49 to 50 (the versions ``pyproject.toml`` allows):
``wasmtime_extern_t`` is a one-byte kind followed by a union aligned to 8 (read at offset
8; the buffer given for it is larger than the struct, so a union that grew would not
overrun it), and ``wasmtime_val_raw_t`` is a 16-byte union (the slots of an unchecked call).
"""

from __future__ import annotations

import ctypes
import os
import struct
import sys
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    byref,
    c_bool,
    c_char_p,
    c_int64,
    c_size_t,
    c_uint8,
    c_uint64,
    c_void_p,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any


def machine() -> str:
    """``platform.machine()`` (without importing platform, ~1.5 ms on a python start)."""
    if hasattr(os, "uname"):
        return os.uname().machine
    import platform

    return platform.machine()


def _library_path() -> str:
    """Where wasmtime-py keeps libwasmtime, found as it finds it, without importing it."""
    import importlib.util

    spec = importlib.util.find_spec("wasmtime")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("wasmtime is not installed (pip install wasmtime)")
    folder = list(spec.submodule_search_locations)[0]
    plat = "android" if hasattr(sys, "getandroidapilevel") else sys.platform
    names = {"linux": "_libwasmtime.so", "android": "_libwasmtime.so",
             "darwin": "_libwasmtime.dylib", "win32": "_wasmtime.dll"}
    if plat not in names:
        raise ImportError(f"unsupported platform {plat!r} for wasmtime")
    arch = machine()
    arch = {"AMD64": "x86_64", "arm64": "aarch64", "ARM64": "aarch64"}.get(arch, arch)
    return os.path.join(folder, f"{plat}-{arch}", names[plat])


filename = _library_path()
_dll = ctypes.CDLL(filename)


def _fn(name: str, restype: Any, argtypes: list[Any]) -> Any:
    """A libwasmtime entry point with its C signature set."""
    f = _dll[name]
    f.restype = restype
    f.argtypes = argtypes
    return f


class _ByteVec(Structure):
    """``wasm_byte_vec_t`` (also ``wasm_name_t``, ``wasm_message_t``)."""

    _fields_ = [("size", c_size_t), ("data", c_void_p)]


class _PtrVec(Structure):
    """A ``wasm_*_vec_t`` of pointers (import types, value types)."""

    _fields_ = [("size", c_size_t), ("data", POINTER(c_void_p))]


P = c_void_p
# A host function: (env, caller, args_and_results, count) -> wasm_trap_t* or 0.
HOSTFN = CFUNCTYPE(c_size_t, P, P, P, c_size_t)
# The epoch-deadline callback: (context, env, *delta, *kind) -> wasmtime_error_t* or 0.
EPOCHFN = CFUNCTYPE(c_size_t, P, P, POINTER(c_uint64), POINTER(c_uint8))

_config_new = _fn("wasm_config_new", P, [])
_CONFIG_SETTERS = {
    "epoch_interruption": _fn("wasmtime_config_epoch_interruption_set", None, [P, c_bool]),
    "wasm_exceptions": _fn("wasmtime_config_wasm_exceptions_set", None, [P, c_bool]),
}
_engine_new = _fn("wasm_engine_new_with_config", P, [P])
_engine_delete = _fn("wasm_engine_delete", None, [P])
_engine_increment_epoch = _fn("wasmtime_engine_increment_epoch", None, [P])
_module_new = _fn("wasmtime_module_new", P, [P, c_char_p, c_size_t, POINTER(P)])
_module_deserialize_file = _fn("wasmtime_module_deserialize_file", P, [P, c_char_p, POINTER(P)])
_module_serialize = _fn("wasmtime_module_serialize", P, [P, POINTER(_ByteVec)])
_module_imports = _fn("wasmtime_module_imports", None, [P, POINTER(_PtrVec)])
_module_delete = _fn("wasmtime_module_delete", None, [P])
_importtype_vec_delete = _fn("wasm_importtype_vec_delete", None, [POINTER(_PtrVec)])
_importtype_module = _fn("wasm_importtype_module", POINTER(_ByteVec), [P])
_importtype_name = _fn("wasm_importtype_name", POINTER(_ByteVec), [P])
_importtype_type = _fn("wasm_importtype_type", P, [P])
_externtype_as_functype = _fn("wasm_externtype_as_functype_const", P, [P])
_functype_params = _fn("wasm_functype_params", POINTER(_PtrVec), [P])
_functype_results = _fn("wasm_functype_results", POINTER(_PtrVec), [P])
_functype_delete = _fn("wasm_functype_delete", None, [P])
_valtype_kind = _fn("wasm_valtype_kind", c_uint8, [P])
_byte_vec_delete = _fn("wasm_byte_vec_delete", None, [POINTER(_ByteVec)])
_error_message = _fn("wasmtime_error_message", None, [P, POINTER(_ByteVec)])
_error_delete = _fn("wasmtime_error_delete", None, [P])
_trap_message = _fn("wasm_trap_message", None, [P, POINTER(_ByteVec)])
_trap_delete = _fn("wasm_trap_delete", None, [P])
_linker_new = _fn("wasmtime_linker_new", P, [P])
_linker_delete = _fn("wasmtime_linker_delete", None, [P])
_linker_define_unchecked = _fn(
    "wasmtime_linker_define_func_unchecked", P,
    [P, c_char_p, c_size_t, c_char_p, c_size_t, P, HOSTFN, P, P])
_linker_instantiate_pre = _fn("wasmtime_linker_instantiate_pre", P, [P, P, POINTER(P)])
_instance_pre_instantiate = _fn("wasmtime_instance_pre_instantiate", P, [P, P, P, POINTER(P)])
_instance_pre_delete = _fn("wasmtime_instance_pre_delete", None, [P])
_store_new = _fn("wasmtime_store_new", P, [P, P, P])
_store_context = _fn("wasmtime_store_context", P, [P])
_store_limiter = _fn("wasmtime_store_limiter", None, [P, c_int64, c_int64, c_int64, c_int64,
                                                      c_int64])
_store_delete = _fn("wasmtime_store_delete", None, [P])
_store_epoch_deadline_callback = _fn("wasmtime_store_epoch_deadline_callback", None,
                                     [P, EPOCHFN, P, P])
_context_set_epoch_deadline = _fn("wasmtime_context_set_epoch_deadline", None, [P, c_uint64])
_instance_export_get = _fn("wasmtime_instance_export_get", c_bool, [P, P, c_char_p, c_size_t, P])
_func_type = _fn("wasmtime_func_type", P, [P, P])
_func_call_unchecked = _fn("wasmtime_func_call_unchecked", P, [P, P, P, c_size_t, POINTER(P)])

# used by the host functions and the WASI layer on every call
memory_data = _fn("wasmtime_memory_data", P, [P, P])
memory_data_size = _fn("wasmtime_memory_data_size", c_size_t, [P, P])
trap_new = _fn("wasmtime_trap_new", P, [c_char_p, c_size_t])
error_new = _fn("wasmtime_error_new", P, [c_char_p])

_KINDS = {0: "i32", 1: "i64", 2: "f32", 3: "f64", 4: "v128", 5: "funcref", 6: "externref",
          7: "anyref", 8: "exnref"}
_EXTERN_FUNC, _EXTERN_MEMORY = 0, 3  # wasmtime_extern_kind_t
_EXTERN_SIZE = 64  # bytes given for a wasmtime_extern_t (32 in wasmtime 49 and 50)
# one wasmtime_val_raw_t slot (16 bytes) holding an i32 or an i64, little-endian
_RAW = {"i32": struct.Struct("<i12x"), "i64": struct.Struct("<q8x")}


class WasmtimeError(Exception):
    """An error wasmtime reported (its message), or a trap (:class:`Trap`)."""


class Trap(WasmtimeError):
    """The guest trapped (the message says why, with a backtrace)."""


def _text(vec: _ByteVec, size: int) -> str:
    return ctypes.string_at(vec.data, size).decode("utf-8", "replace") if size else ""


def _error_from(err: int) -> WasmtimeError:
    """A WasmtimeError from (and freeing) a ``wasmtime_error_t*``."""
    vec = _ByteVec()
    _error_message(err, byref(vec))
    message = _text(vec, vec.size)
    _byte_vec_delete(byref(vec))
    _error_delete(err)
    return WasmtimeError(message)


def _trap_from(trap: int) -> Trap:
    vec = _ByteVec()
    _trap_message(trap, byref(vec))
    message = _text(vec, max(vec.size - 1, 0))  # without its trailing NUL
    _byte_vec_delete(byref(vec))
    _trap_delete(trap)
    return Trap(message)


def _check(err: int | None) -> None:
    if err:
        raise _error_from(err)


class _Owned:
    """A native object this wrapper owns (:attr:`ptr`), freed once by :meth:`close` with the
    class's C destructor."""

    _delete: Any
    ptr: int | None

    def close(self) -> None:
        ptr, self.ptr = self.ptr, None
        if ptr:
            self._delete(ptr)


class Engine(_Owned):
    """A ``wasm_engine_t`` made with the given settings (the names of wasmtime's config
    setters, as ENGINE_SETTINGS in vshell.python.runtime lists them)."""

    _delete = _engine_delete

    def __init__(self, settings: Mapping[str, bool]) -> None:
        config = _config_new()
        for name, value in settings.items():
            _CONFIG_SETTERS[name](config, value)
        self.ptr: int | None = _engine_new(config)  # (takes the config)

    def increment_epoch(self) -> None:
        _engine_increment_epoch(self.ptr)


class Module(_Owned):
    """A compiled ``wasmtime_module_t``."""

    _delete = _module_delete

    def __init__(self, ptr: int) -> None:
        self.ptr: int | None = ptr

    @classmethod
    def compile(cls, engine: Engine, wasm: bytes) -> Module:
        out = P()
        _check(_module_new(engine.ptr, wasm, len(wasm), byref(out)))
        return cls(out.value or 0)

    @classmethod
    def deserialize_file(cls, engine: Engine, path: str) -> Module:
        """Map an artifact ``serialize`` wrote (wasmtime refuses one from another version
        or with other settings)."""
        out = P()
        _check(_module_deserialize_file(engine.ptr, os.fsencode(path), byref(out)))
        return cls(out.value or 0)

    def serialize(self) -> bytes:
        vec = _ByteVec()
        _check(_module_serialize(self.ptr, byref(vec)))
        try:
            return ctypes.string_at(vec.data, vec.size)
        finally:
            _byte_vec_delete(byref(vec))

    def imports(self) -> Imports:
        return Imports(self)


def _kinds(vec: Any) -> list[str]:
    v = vec.contents
    return [_KINDS.get(_valtype_kind(v.data[i]), "?") for i in range(v.size)]


class Import:
    """One import of a module: its names and, for a function, its type."""

    __slots__ = ("module", "name", "functype", "params", "results")

    def __init__(self, module: str, name: str, functype: int | None, params: list[str],
                 results: list[str]) -> None:
        self.module = module
        self.name = name
        self.functype = functype  # a wasm_functype_t* the Imports own (None: not a function)
        self.params = params
        self.results = results


class Imports:
    """A module's imports (the vector they live in is freed by :meth:`close`)."""

    def __init__(self, module: Module) -> None:
        self._vec: _PtrVec | None = _PtrVec()
        _module_imports(module.ptr, byref(self._vec))
        self.items: list[Import] = []
        for i in range(self._vec.size):
            it = self._vec.data[i]
            mod, name = _importtype_module(it).contents, _importtype_name(it).contents
            ft = _externtype_as_functype(_importtype_type(it))
            self.items.append(Import(
                _text(mod, mod.size), _text(name, name.size), ft,
                _kinds(_functype_params(ft)) if ft else [],
                _kinds(_functype_results(ft)) if ft else []))

    def close(self) -> None:
        vec, self._vec = self._vec, None
        if vec is not None:
            _importtype_vec_delete(byref(vec))


class Linker(_Owned):
    """A ``wasmtime_linker_t`` whose functions are raw host callbacks."""

    _delete = _linker_delete

    def __init__(self, engine: Engine) -> None:
        self.ptr: int | None = _linker_new(engine.ptr)

    def define_unchecked(self, module: str, name: str, functype: int, callback: Any) -> None:
        """``callback`` (a HOSTFN) for ``module::name`` of type ``functype``; keep it alive."""
        m, n = module.encode(), name.encode()
        _check(_linker_define_unchecked(self.ptr, m, len(m), n, len(n), functype, callback,
                                        None, None))

    def instantiate_pre(self, module: Module) -> InstancePre:
        out = P()
        _check(_linker_instantiate_pre(self.ptr, module.ptr, byref(out)))
        return InstancePre(out.value or 0)


class Store(_Owned):
    """A ``wasmtime_store_t``: one per guest run."""

    _delete = _store_delete

    def __init__(self, engine: Engine) -> None:
        self.ptr: int | None = _store_new(engine.ptr, None, None)
        self.context: int = _store_context(self.ptr) or 0

    def set_memory_limit(self, size: int) -> None:
        """At most ``size`` bytes of linear memory (a ``memory.grow`` past it fails)."""
        _store_limiter(self.ptr, size, -1, -1, -1, -1)

    def on_epoch(self, callback: Any) -> None:
        """``callback`` (an EPOCHFN, kept alive by the caller) runs at each epoch deadline."""
        _store_epoch_deadline_callback(self.ptr, callback, None, None)

    def set_epoch_deadline(self, ticks: int) -> None:
        _context_set_epoch_deadline(self.context, ticks)


class InstancePre(_Owned):
    """A module linked once, instantiated cheaply in each store."""

    _delete = _instance_pre_delete

    def __init__(self, ptr: int) -> None:
        self.ptr: int | None = ptr

    def instantiate(self, store: Store) -> Instance:
        instance = Instance(store)
        trap = P()
        _check(_instance_pre_instantiate(self.ptr, store.context,
                                         ctypes.addressof(instance.raw), byref(trap)))
        if trap.value:
            raise _trap_from(trap.value)
        return instance


class _InstanceRaw(Structure):
    """``wasmtime_instance_t``: a store id and an index."""

    _fields_ = [("store_id", c_uint64), ("index", c_size_t)]


class Instance:
    """An instance in a store, and lookups of its exports."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.raw = _InstanceRaw()

    def _export(self, name: str, kind: int) -> Any:
        buf = ctypes.create_string_buffer(_EXTERN_SIZE)
        n = name.encode()
        if not _instance_export_get(self.store.context, ctypes.addressof(self.raw), n, len(n),
                                    ctypes.addressof(buf)):
            return None
        if buf.raw[0] != kind:
            raise WasmtimeError(f"export {name!r} is not a {('function', 'memory')[kind == 3]}")
        return buf  # the union (the func or memory) starts at offset 8

    def memory(self, name: str) -> Memory | None:
        buf = self._export(name, _EXTERN_MEMORY)
        return None if buf is None else Memory(buf)

    def func(self, name: str, params: tuple[str, ...], results: tuple[str, ...]) -> Func | None:
        """The exported function ``name``, if it has exactly this type (else an error)."""
        buf = self._export(name, _EXTERN_FUNC)
        return None if buf is None else Func(self.store, buf, name, params, results)


class Memory:
    """An exported memory: :attr:`address` is its ``wasmtime_memory_t*``."""

    def __init__(self, buf: Any) -> None:
        self._buf = buf
        self.address = ctypes.addressof(buf) + 8


class Func:
    """An exported function of a known type, called through the unchecked C API."""

    def __init__(self, store: Store, buf: Any, name: str, params: tuple[str, ...],
                 results: tuple[str, ...]) -> None:
        self._buf = buf
        self._store = store
        self.address = ctypes.addressof(buf) + 8
        ft = _func_type(store.context, self.address)
        try:
            found = (tuple(_kinds(_functype_params(ft))), tuple(_kinds(_functype_results(ft))))
        finally:
            _functype_delete(ft)
        if found != (params, results) or any(k not in _RAW for k in params + results) \
                or len(results) > 1:
            raise WasmtimeError(f"export {name!r} has type {found}, not {(params, results)}")
        self._params = [_RAW[k] for k in params]
        self._result = _RAW[results[0]] if results else None
        self._slots = max(len(params), len(results), 1)

    def __call__(self, *args: int) -> int | None:
        if len(args) != len(self._params):
            raise TypeError(f"expected {len(self._params)} arguments, got {len(args)}")
        slots = ctypes.create_string_buffer(16 * self._slots)
        for i, (layout, value) in enumerate(zip(self._params, args, strict=True)):
            layout.pack_into(slots, 16 * i, value)
        trap = P()
        _check(_func_call_unchecked(self._store.context, self.address, slots, self._slots,
                                    byref(trap)))
        if trap.value:
            raise _trap_from(trap.value)
        return None if self._result is None else self._result.unpack_from(slots, 0)[0]
