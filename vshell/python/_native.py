"""The few libwasmtime C functions vshell calls directly, with plain ``c_void_p`` signatures.

wasmtime-py's ``define_func`` costs 7-8 µs per host call (value conversion) and passes host
exceptions through a process-global, which is racy across threads (see the WASI spike). The
"unchecked" C API costs about 1.5 µs and lets each run keep its own state.  Fresh function
pointer objects are taken from the library so wasmtime-py's own declarations are untouched.
Importing this module imports wasmtime: only the runtime does, when ``python`` first runs.
"""

from __future__ import annotations

import ctypes
from ctypes import CFUNCTYPE, POINTER, c_char_p, c_size_t, c_uint8, c_uint64, c_void_p
from typing import Any

from wasmtime import _ffi as ffi

_dll = ffi.dll


def _fn(name: str, restype: Any, argtypes: list[Any]) -> Any:
    """A libwasmtime entry point with its C signature set (ctypes' function type is private)."""
    f = _dll[name]
    f.restype = restype
    f.argtypes = argtypes
    return f


# A host function: (env, caller, args_and_results, count) -> wasm_trap_t* or 0.
HOSTFN = CFUNCTYPE(c_size_t, c_void_p, c_void_p, c_void_p, c_size_t)
# The epoch-deadline callback: (context, env, *delta, *kind) -> wasmtime_error_t* or 0.
EPOCHFN = CFUNCTYPE(c_size_t, c_void_p, c_void_p, POINTER(c_uint64), POINTER(c_uint8))

caller_context = _fn("wasmtime_caller_context", c_void_p, [c_void_p])
memory_data = _fn("wasmtime_memory_data", c_void_p, [c_void_p, c_void_p])
memory_data_size = _fn("wasmtime_memory_data_size", c_size_t, [c_void_p, c_void_p])
trap_new = _fn("wasmtime_trap_new", c_void_p, [c_char_p, c_size_t])
error_new = _fn("wasmtime_error_new", c_void_p, [c_char_p])
define_unchecked = _fn(
    "wasmtime_linker_define_func_unchecked",
    c_void_p,
    [c_void_p, c_char_p, c_size_t, c_char_p, c_size_t, c_void_p, HOSTFN, c_void_p, c_void_p],
)
epoch_deadline_callback = _fn(
    "wasmtime_store_epoch_deadline_callback", None, [c_void_p, EPOCHFN, c_void_p, c_void_p]
)


def error_from(ptr: int) -> Exception:
    """A ``WasmtimeError`` from a ``wasmtime_error_t*`` returned by a raw call."""
    from wasmtime import WasmtimeError

    return WasmtimeError._from_ptr(ctypes.cast(ptr, POINTER(ffi.wasmtime_error_t)))


def as_void(ptr: Any) -> int:
    """The address held by a ctypes pointer object."""
    return ctypes.cast(ptr, c_void_p).value or 0
