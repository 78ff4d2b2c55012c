"""jq: the JSON processor, running the libjq that the PyPI ``jq`` package ships.

The package's Python API cannot read ``input``/``inputs``, redirect ``debug``/``stderr``,
report halt codes or carry on after a runtime error (its iterator aborts the process when
asked for more after one), so this module drives libjq through ctypes exactly as jq's own
``main.c`` does: the extension module exports the whole libjq API.  Inputs are read through
the VFS and fed to libjq's incremental parser chunk by chunk, so a stream of JSON lines is
never held in memory unless the program reads ``input``/``inputs`` or ``-s`` slurps.
Messages and exit statuses follow jq 1.7 (``jq: error (at <stdin>:N): ...``, compile
errors 3, input errors 2, runtime errors 5, ``-e`` 1/4).
"""

from __future__ import annotations

import contextlib
import ctypes
import re
import threading
from ctypes import POINTER, c_char_p, c_double, c_int, c_size_t, c_uint64, c_void_p

from vshell.command import Exit, Invocation, describe_oserror
from vshell.commands._lib.helptext import help_text
from vshell.records import field, record

# jv kinds
INVALID, NULL, FALSE, TRUE, NUMBER, STRING, ARRAY, OBJECT = range(8)

# jv_invalid_has_msg() without a call: kind INVALID with the "payload allocated" flag
HAS_MSG = 0x80

# jv_dump flags
PRETTY, ASCII, COLOR, SORTED = 1, 2, 4, 8
TAB = 64
PARSE_SEQ, PARSE_STREAMING, PARSE_STREAM_ERRORS = 1, 2, 4


def indent_flags(n: int) -> int:
    """``JV_PRINT_INDENT_FLAGS(n)`` from jv.h."""
    if n < 0 or n > 7:
        return TAB | PRETTY
    return 0 if n == 0 else (n << 8) | PRETTY


class JV(ctypes.Structure):
    """``jv`` is 16 bytes passed by value; the union is kept as one 64-bit word."""

    _fields_ = [
        ("kind_flags", ctypes.c_ubyte),
        ("pad_", ctypes.c_ubyte),
        ("offset", ctypes.c_ushort),
        ("size", c_int),
        ("u", c_uint64),
    ]


CALLBACK = ctypes.CFUNCTYPE(None, c_void_p, JV)

_SIGS: dict[str, tuple[object, list[object]]] = {
    "jq_init": (c_void_p, []),
    "jq_teardown": (None, [POINTER(c_void_p)]),
    "jq_compile_args": (c_int, [c_void_p, c_char_p, JV]),
    "jq_set_attr": (None, [c_void_p, JV, JV]),
    "jq_set_error_cb": (None, [c_void_p, CALLBACK, c_void_p]),
    "jq_set_debug_cb": (None, [c_void_p, CALLBACK, c_void_p]),
    "jq_set_stderr_cb": (None, [c_void_p, CALLBACK, c_void_p]),
    "jq_set_input_cb": (None, [c_void_p, c_void_p, c_void_p]),
    "jq_set_colors": (c_int, [c_char_p]),
    "jq_start": (None, [c_void_p, JV, c_int]),
    "jq_next": (JV, [c_void_p]),
    "jq_halted": (c_int, [c_void_p]),
    "jq_get_exit_code": (JV, [c_void_p]),
    "jq_get_error_message": (JV, [c_void_p]),
    "jq_format_error": (JV, [JV]),
    "jq_util_input_init": (c_void_p, [c_void_p, c_void_p]),
    "jq_util_input_set_parser": (None, [c_void_p, c_void_p, c_int]),
    "jq_util_input_next_input": (JV, [c_void_p]),
    "jq_util_input_free": (None, [POINTER(c_void_p)]),
    "jv_parser_new": (c_void_p, [c_int]),
    "jv_parser_free": (None, [c_void_p]),
    "jv_parser_set_buf": (None, [c_void_p, c_char_p, c_int, c_int]),
    "jv_parser_next": (JV, [c_void_p]),
    "jv_parser_remaining": (c_int, [c_void_p]),
    "jv_parse_sized": (JV, [c_char_p, c_int]),
    "jv_copy": (JV, [JV]),
    "jv_free": (None, [JV]),
    "jv_get_kind": (c_int, [JV]),
    "jv_invalid_has_msg": (c_int, [JV]),
    "jv_invalid_get_msg": (JV, [JV]),
    "jv_invalid_with_msg": (JV, [JV]),
    "jv_dump_string": (JV, [JV, c_int]),
    "jv_string_value": (c_void_p, [JV]),
    "jv_string_length_bytes": (c_int, [JV]),
    "jv_string_sized": (JV, [c_char_p, c_int]),
    "jv_number_value": (c_double, [JV]),
    "jv_null": (JV, []),
    "jv_array": (JV, []),
    "jv_array_append": (JV, [JV, JV]),
    "jv_object": (JV, []),
    "jv_object_set": (JV, [JV, JV, JV]),
    "jv_object_has": (c_int, [JV, JV]),
}

_lock = threading.Lock()
_lib: ctypes.CDLL | None = None

# offsets inside struct jq_util_input_state (jq 1.7/1.8 util.c): five pointers, three ints
# and padding, ``jv slurped``, ``char buf[4096]``, ``size_t buf_valid_len``.
UTIL_FILENAME_OFFSET = 8 * 5 + 4 * 4 + 16 + 4096 + 8
UTIL_LINE_OFFSET = UTIL_FILENAME_OFFSET + 16

COMPILE_LOCK = threading.Lock()


def lib() -> ctypes.CDLL:
    """Load (once) the libjq inside the ``jq`` package's extension module."""
    global _lib
    with _lock:
        if _lib is None:
            import jq as _jqmod  # the PyPI package; imported only when jq runs

            cdll = ctypes.CDLL(_jqmod.__file__)
            for name, (restype, argtypes) in _SIGS.items():
                fn = getattr(cdll, name)
                fn.restype = restype
                fn.argtypes = argtypes
            _lib = cdll
        return _lib


def input_cb_address(cdll: ctypes.CDLL) -> int:
    """Address of libjq's own ``jq_util_input_next_input_cb`` (a C input callback)."""
    return ctypes.cast(cdll.jq_util_input_next_input_cb, c_void_p).value or 0


def jstring(cdll: ctypes.CDLL, text: str | bytes) -> JV:
    data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
    return cdll.jv_string_sized(data, len(data))


def string_bytes(cdll: ctypes.CDLL, value: JV) -> bytes:
    """The bytes of a jv string (borrowed: ``value`` is not freed)."""
    n = cdll.jv_string_length_bytes(cdll.jv_copy(value))
    return ctypes.string_at(cdll.jv_string_value(value), n)


def set_size_t(address: int, value: int) -> None:
    c_size_t.from_address(address).value = value


def _replace_jv(address: int, value: JV) -> None:
    """Store ``value`` (owned) into a jv field of a libjq struct, freeing the old one."""
    cdll = lib()
    old = JV.from_buffer_copy(ctypes.string_at(address, ctypes.sizeof(JV)))
    cdll.jv_free(old)
    ctypes.memmove(address, ctypes.byref(value), ctypes.sizeof(JV))


# ---------------------------------------------------------------------------- the CLI

_URL = "https://jqlang.github.io/jq"
VERSION = "jq-1.8.2"  # the libjq inside the installed PyPI package

HELP = help_text("jq")

OK, OK_NULL_KIND, ERROR_SYSTEM, ERROR_COMPILE, OK_NO_OUTPUT, ERROR_UNKNOWN = 0, -1, 2, 3, -4, 5
CHUNK = 1 << 16
NL = b"\n"

_SHORT = {
    "s": "slurp", "r": "raw-output", "j": "join-output", "c": "compact-output",
    "C": "color-output", "M": "monochrome-output", "a": "ascii-output", "S": "sort-keys",
    "R": "raw-input", "n": "null-input", "f": "from-file", "L": "library-path",
    "b": "binary", "e": "exit-status", "h": "help", "V": "version",
}
_LONG_FLAGS = set(_SHORT.values()) | {
    "raw-output0", "unbuffered", "tab", "indent", "seq", "stream", "stream-errors", "args",
    "jsonargs", "arg", "argjson", "rawfile", "slurpfile", "build-configuration",
}
_INPUT_RE = re.compile(r"\binput")
_ENV_RE = re.compile(r"\benv\b|\$ENV\b|\$__loc__")
_ENV_PREFIX = "def env: $__vshell_env; $__vshell_env as $ENV | "
# jq 1.7 builtins that libjq 1.8 dropped
_COMPAT_PREFIX = (
    "def leaf_paths: paths(scalars); def recurse_down: recurse; "
    "def dateadd(u; n): . + n; def datesub(u; n): . - n; def date: todate; "
)


@record
class _Opts:
    """The command line, parsed as jq's main.c parses it."""

    flags: set[str] = field(default_factory=set)
    dumpopts: int = indent_flags(2)
    parser_flags: int = 0
    program: str | None = None
    files: list[str] = field(default_factory=list)
    positional: list[tuple[str, str]] = field(default_factory=list)  # ("s"|"j", text)
    named: list[tuple[str, str, str]] = field(default_factory=list)  # (kind, name, value)


class _Usage(Exception):
    pass


def _die(inv: Invocation, message: str) -> Exit:
    inv.stderr.write(
        (
            message
            + "Use jq --help for help with command-line options,\n"
            + f"or see the jq manpage, or online docs  at {_URL}\n"
        ).encode()
    )
    return Exit(2)


def _isoptish(text: str) -> bool:
    return len(text) > 1 and text[0] == "-" and (text[1] == "-" or text[1].isalpha())


def _parse_args(inv: Invocation) -> _Opts:
    o = _Opts()
    argv = inv.args
    strings = jsonargs = done = False
    i = 0
    while i < len(argv):
        arg = argv[i]
        if done or not _isoptish(arg):
            if o.program is None:
                o.program = arg
            elif strings:
                o.positional.append(("s", arg))
            elif jsonargs:
                o.positional.append(("j", arg))
            else:
                o.files.append(arg)
            i += 1
            continue
        if arg == "--":
            done = True
            i += 1
            continue
        if arg.startswith("--"):
            names = [arg[2:]]
            if names[0] not in _LONG_FLAGS:
                raise _die(inv, f"jq: Unknown option {arg}\n")
        else:
            names = []
            rest = arg[1:]
            while rest:
                ch = rest[0]
                if ch not in _SHORT:
                    raise _die(inv, f"jq: Unknown option -{ch}\n")
                if ch == "L":
                    names.append("library-path=" + rest[1:] if rest[1:] else "library-path")
                    break
                names.append(_SHORT[ch])
                rest = rest[1:]
        for name in names:
            i = _apply(inv, o, name, argv, i)
            if name == "args":
                strings, jsonargs = True, False
            elif name == "jsonargs":
                strings, jsonargs = False, True
        i += 1
    return o


def _apply(inv: Invocation, o: _Opts, name: str, argv: list[str], i: int) -> int:
    """Apply one option; returns the index of the last argument it consumed."""
    simple = {
        "slurp", "raw-output", "raw-output0", "join-output", "color-output",
        "monochrome-output", "ascii-output", "unbuffered", "sort-keys", "raw-input",
        "null-input", "from-file", "seq", "exit-status", "binary", "args", "jsonargs",
    }
    if name in simple:
        o.flags.add(name)
        if name in ("raw-output0", "join-output"):
            o.flags.add("raw-output")
        return i
    if name == "compact-output":
        o.dumpopts &= ~(TAB | indent_flags(7))
    elif name == "tab":
        o.dumpopts &= ~indent_flags(7)
        o.dumpopts |= TAB | PRETTY
    elif name == "indent":
        if i >= len(argv) - 1:
            raise _die(inv, "jq: --indent takes one parameter\n")
        o.dumpopts &= ~(TAB | indent_flags(7))
        m = re.match(r"\s*[-+]?\d+", argv[i + 1])
        n = int(m.group()) if m else 0
        if n < -1 or n > 7:
            raise _die(inv, "jq: --indent takes a number between -1 and 7\n")
        o.dumpopts |= indent_flags(n)
        return i + 1
    elif name == "stream":
        o.parser_flags |= PARSE_STREAMING
    elif name == "stream-errors":
        o.parser_flags |= PARSE_STREAMING | PARSE_STREAM_ERRORS
    elif name.startswith("library-path"):
        if "=" in name:
            return i
        if i >= len(argv) - 1:
            raise _die(inv, "-L takes a parameter: (e.g. -L /search/path or -L/search/path)\n")
        return i + 1
    elif name in ("arg", "argjson", "rawfile", "slurpfile"):
        if i >= len(argv) - 2:
            example = {"arg": "value", "argjson": "text"}.get(name, "filename")
            raise _die(
                inv, f"jq: --{name} takes two parameters (e.g. --{name} varname {example})\n"
            )
        o.named.append((name, argv[i + 1], argv[i + 2]))
        return i + 2
    elif name == "help":
        inv.stdout.write(HELP.encode())
        raise Exit(0)
    elif name == "version":
        inv.stdout.write(f"{VERSION}\n".encode())
        raise Exit(0)
    elif name == "build-configuration":
        inv.stdout.write(b"vshell (libjq from the PyPI jq package)\n")
        raise Exit(0)
    return i


class _Source:
    """One input (stdin or a file), read in chunks through the VFS."""

    def __init__(self, name: str, stream: object) -> None:
        self.name = name
        self.stream = stream


class _Runner:
    """One jq run: a compiled program, its inputs and its output buffer."""

    def __init__(self, inv: Invocation, o: _Opts) -> None:
        self.inv = inv
        self.o = o
        self.cdll = lib()
        self.jq = c_void_p(self.cdll.jq_init())
        self.out: list[bytes] = []
        self.out_size = 0
        self.failures = 0
        self.read_any = False
        # position bookkeeping: current source name, newlines before the current chunk,
        # the chunk the parser is reading
        self.pos_name = "<unknown>"
        self.pos_chunk = b""
        self.segments: list[tuple[int, str, int]] = [(0, "<unknown>", 0)]
        self.raw_streaming = False
        self.pos_parser: int | None = None
        self.raw_lines = 0
        self.compile_msgs: list[bytes] | None = None
        self._callbacks = [
            CALLBACK(self._error_cb),
            CALLBACK(self._debug_cb),
            CALLBACK(self._stderr_cb),
        ]
        self.cdll.jq_set_error_cb(self.jq, self._callbacks[0], None)
        self.cdll.jq_set_debug_cb(self.jq, self._callbacks[1], None)
        self.cdll.jq_set_stderr_cb(self.jq, self._callbacks[2], None)
        self.util: int | None = None

    # ------------------------------------------------------------------ output
    def write(self, data: bytes) -> None:
        self.out.append(data)
        self.out_size += len(data)
        if self.out_size >= CHUNK:
            self.flush()

    def flush(self) -> None:
        if self.out:
            self.inv.stdout.write(b"".join(self.out))
            self.out.clear()
            self.out_size = 0

    def err(self, data: bytes) -> None:
        self.flush()
        self.inv.stderr.write(data)

    def dump(self, value: JV, flags: int) -> bytes:
        s = self.cdll.jv_dump_string(value, flags)
        data = ctypes.string_at(self.cdll.jv_string_value(s))
        self.cdll.jv_free(s)
        return data

    def _error_cb(self, _data: object, msg: JV) -> None:
        with contextlib.suppress(OSError, ValueError):  # never raise into C
            msg = self.cdll.jq_format_error(msg)
            if self.cdll.jv_get_kind(msg) == STRING:
                text = string_bytes(self.cdll, msg) + b"\n"
                if self.compile_msgs is not None:
                    self.compile_msgs.append(text)
                else:
                    self.err(text)
            self.cdll.jv_free(msg)

    def _debug_cb(self, _data: object, value: JV) -> None:
        with contextlib.suppress(OSError, ValueError):
            cdll = self.cdll
            arr = cdll.jv_array_append(cdll.jv_array(), jstring(cdll, "DEBUG:"))
            arr = cdll.jv_array_append(arr, value)
            self.err(self.dump(arr, self.o.dumpopts & ~PRETTY) + b"\n")

    def _stderr_cb(self, _data: object, value: JV) -> None:
        with contextlib.suppress(OSError, ValueError):
            cdll = self.cdll
            if cdll.jv_get_kind(value) == STRING:
                self.err(string_bytes(cdll, value))
                cdll.jv_free(value)
            else:
                self.err(self.dump(value, 0))

    # ------------------------------------------------------------------ compile
    def build_args(self) -> JV:
        cdll, o = self.cdll, self.o
        positional = cdll.jv_array()
        for kind, text in o.positional:
            if kind == "s":
                positional = cdll.jv_array_append(positional, jstring(cdll, text))
            else:
                data = text.encode("utf-8", "surrogateescape")
                v = cdll.jv_parse_sized(data, len(data))
                if cdll.jv_get_kind(v) == INVALID:
                    cdll.jv_free(v)
                    raise _die(self.inv, "jq: invalid JSON text passed to --jsonargs\n")
                positional = cdll.jv_array_append(positional, v)
        named = cdll.jv_object()
        for kind, name, value in o.named:
            key = jstring(cdll, name)
            if cdll.jv_object_has(cdll.jv_copy(named), cdll.jv_copy(key)):
                cdll.jv_free(key)
                continue
            named = cdll.jv_object_set(named, key, self.named_value(kind, name, value))
        args = cdll.jv_object()
        args = cdll.jv_object_set(args, jstring(cdll, "positional"), positional)
        args = cdll.jv_object_set(args, jstring(cdll, "named"), cdll.jv_copy(named))
        named = cdll.jv_object_set(named, jstring(cdll, "ARGS"), args)
        env = cdll.jv_object()
        for k, v in self.inv.env.items():
            env = cdll.jv_object_set(env, jstring(cdll, k), jstring(cdll, v))
        return cdll.jv_object_set(named, jstring(cdll, "__vshell_env"), env)

    def named_value(self, kind: str, name: str, value: str) -> JV:
        cdll = self.cdll
        if kind == "arg":
            return jstring(cdll, value)
        if kind == "argjson":
            data = value.encode("utf-8", "surrogateescape")
            v = cdll.jv_parse_sized(data, len(data))
            if cdll.jv_get_kind(v) == INVALID:
                cdll.jv_free(v)
                raise _die(self.inv, "jq: invalid JSON text passed to --argjson\n")
            return v
        try:
            with self.inv.fs.open(self.inv.abs(value), "rb") as f:
                data = f.read()
        except OSError as e:
            self.err(
                f"jq: Bad JSON in --{kind} {name} {value}: Could not open {value}: "
                f"{e.strerror}\n".encode()
            )
            raise Exit(2) from None
        if kind == "rawfile":
            return cdll.jv_string_sized(data, len(data))
        parser = cdll.jv_parser_new(0)
        cdll.jv_parser_set_buf(parser, data, len(data), 0)
        arr = cdll.jv_array()
        try:
            while True:
                v = cdll.jv_parser_next(parser)
                if cdll.jv_get_kind(v) != INVALID:
                    arr = cdll.jv_array_append(arr, v)
                    continue
                if cdll.jv_invalid_has_msg(cdll.jv_copy(v)):
                    msg = string_bytes_owned(cdll, cdll.jv_invalid_get_msg(v))
                    cdll.jv_free(arr)
                    self.err(
                        f"jq: Bad JSON in --{kind} {name} {value}: ".encode() + msg + b"\n"
                    )
                    raise Exit(2)
                cdll.jv_free(v)
                return arr
        finally:
            cdll.jv_parser_free(parser)

    def compile(self, program: str) -> bool:
        cdll = self.cdll
        cdll.jq_set_attr(self.jq, jstring(cdll, "JQ_LIBRARY_PATH"), cdll.jv_array())
        args = self.build_args()
        text = program.encode("utf-8", "surrogateescape")
        prefix = _COMPAT_PREFIX
        if _ENV_RE.search(program):
            prefix += _ENV_PREFIX  # the sandbox's environment, not the host process's
        with COMPILE_LOCK:
            if program.strip():
                # the prefix stays on line 1 so $__loc__ is unchanged; when the program
                # does not compile with it (import, syntax errors) compile it alone so
                # the messages point into the user's text
                self.compile_msgs = []
                ok = cdll.jq_compile_args(self.jq, prefix.encode() + text, cdll.jv_copy(args))
                self.compile_msgs = None
                if ok:
                    cdll.jv_free(args)
                    return True
            return bool(cdll.jq_compile_args(self.jq, text, args))

    # ------------------------------------------------------------------ inputs
    def sources(self):
        """Yield the inputs in order, reporting files that cannot be opened."""
        if not self.o.files:
            yield _Source("<stdin>", self.inv.stdin)
            return
        for name in self.o.files:
            if name == "-":
                yield _Source("<stdin>", self.inv.stdin)
                continue
            try:
                f = self.inv.fs.open(self.inv.abs(name), "rb")
            except OSError as e:
                self.failures += 1
                self.err(f"jq: error: Could not open {name}: {e.strerror}\n".encode())
                continue
            try:
                yield _Source(name, f)
            finally:
                f.close()

    def chunks(self):
        """Yield (source, chunk) pairs: each input read CHUNK bytes at a time."""
        for src in self.sources():
            while True:
                self.inv.cancel.check()
                try:
                    data = src.stream.read(CHUNK)
                except OSError as e:
                    self.failures += 1
                    self.err(f"jq: error: {src.name}: {describe_oserror(e)}\n".encode())
                    break
                if not data:
                    break
                yield src, data

    def position(self) -> str:
        """``name:line`` as jq reports it: lines read so far, whole lines at a time."""
        if not self.read_any:
            return "<unknown>"
        if self.raw_streaming:
            return f"{self.pos_name}:{self.raw_lines}"
        chunk = self.pos_chunk
        consumed = len(chunk)
        if self.pos_parser is not None:
            consumed = len(chunk) - self.cdll.jv_parser_remaining(self.pos_parser)
        start, name, before = self.segments[0]
        for seg in self.segments:
            if seg[0] < max(consumed, 1):
                start, name, before = seg
        if consumed <= start:
            return f"{name}:{before}"
        nl = chunk.find(b"\n", consumed - 1)
        upto = len(chunk) if nl < 0 else nl + 1
        return f"{name}:{before + chunk.count(NL, start, upto)}"

    # ------------------------------------------------------------------ running
    def process(self, value: JV) -> int:
        """Run the program on one input (owned); jq's ``process()``."""
        cdll, jq = self.cdll, self.jq
        flags = self.o.flags
        raw = "raw-output" in flags
        ascii_ = "ascii-output" in flags
        raw0 = "raw-output0" in flags
        end = (b"" if "join-output" in flags or raw0 else b"\n") + (b"\0" if raw0 else b"")
        prefix = b"\x1e" if "seq" in flags else b""
        unbuffered = "unbuffered" in flags
        dumpopts = self.o.dumpopts
        dump_string = cdll.jv_dump_string
        string_value = cdll.jv_string_value
        jv_free = cdll.jv_free
        jq_next = cdll.jq_next
        string_at = ctypes.string_at
        out = self.out
        ret = OK_NO_OUTPUT
        cdll.jq_start(jq, value, 0)
        n = 0
        while True:
            r = jq_next(jq)
            kind = r.kind_flags & 0x0F
            if kind == INVALID:
                break
            if raw and kind == STRING:
                if ascii_:
                    data = self.dump(r, ASCII)
                else:
                    data = string_bytes(cdll, r)
                    jv_free(r)
                    if raw0 and b"\0" in data:
                        r = cdll.jv_invalid_with_msg(
                            jstring(
                                cdll,
                                "Cannot dump a string containing NUL with --raw-output0 option",
                            )
                        )
                        break
                ret = OK
            else:
                ret = OK_NULL_KIND if kind in (FALSE, NULL) else OK
                js = dump_string(r, dumpopts)
                data = prefix + string_at(string_value(js))
                jv_free(js)
            data += end
            out.append(data)
            self.out_size += len(data)
            if unbuffered or self.out_size >= CHUNK:
                self.flush()
            n += 1
            if n & 1023 == 0:
                self.inv.cancel.check()
        if cdll.jq_halted(jq):
            cdll.jv_free(r)
            code = cdll.jq_get_exit_code(jq)
            kind = cdll.jv_get_kind(code)
            if kind == INVALID:
                ret = OK
            elif kind == NUMBER:
                ret = int(cdll.jv_number_value(code))
            else:
                ret = ERROR_UNKNOWN
            cdll.jv_free(code)
            msg = cdll.jq_get_error_message(jq)
            kind = cdll.jv_get_kind(msg)
            if kind == STRING:
                self.err(string_bytes(cdll, msg))
                cdll.jv_free(msg)
            elif kind in (NULL, INVALID):
                cdll.jv_free(msg)
            else:
                self.err(self.dump(msg, 0) + b"\n")
        elif r.kind_flags & HAS_MSG:
            msg = cdll.jv_invalid_get_msg(r)
            pos = self.position().encode("utf-8", "surrogateescape")
            if cdll.jv_get_kind(msg) == STRING:
                text = string_bytes(cdll, msg)
                cdll.jv_free(msg)
                self.err(b"jq: error (at " + pos + b"): " + text + b"\n")
            else:
                text = self.dump(msg, 0)
                self.err(b"jq: error (at " + pos + b") (not a string): " + text + b"\n")
            ret = ERROR_UNKNOWN
        else:
            cdll.jv_free(r)
        return ret


def string_bytes_owned(cdll: ctypes.CDLL, value: JV) -> bytes:
    """The bytes of a jv string, freeing it."""
    data = string_bytes(cdll, value)
    cdll.jv_free(value)
    return data


class _Loop:
    """The main loop over inputs; jq's ``main()`` after compiling."""

    def __init__(self, runner: _Runner) -> None:
        self.r = runner
        self.ret = OK_NO_OUTPUT
        self.last_result = -1
        self.stop = False

    def handle(self, value: JV) -> None:
        r = self.r
        ret = r.process(value)
        self.ret = ret
        if ret <= 0 and ret != OK_NO_OUTPUT:
            self.last_result = int(ret != OK_NULL_KIND)
        if r.cdll.jq_halted(r.jq):
            self.stop = True

    def parse_error(self, value: JV) -> None:
        r = self.r
        msg = string_bytes_owned(r.cdll, r.cdll.jv_invalid_get_msg(value))
        pos = r.position().encode("utf-8", "surrogateescape")
        if "seq" in r.o.flags:
            r.err(b"jq: ignoring parse error (at " + pos + b"): " + msg + b"\n")
            return
        r.err(b"jq: error (at " + pos + b"): " + msg + b"\n")
        self.ret = ERROR_SYSTEM
        self.stop = True

    # -- streaming: JSON texts parsed chunk by chunk, each run as soon as it is complete
    def run_streaming(self) -> None:
        r = self.r
        cdll = r.cdll
        slurp = "slurp" in r.o.flags
        acc = cdll.jv_array() if slurp else None
        parser = cdll.jv_parser_new(r.o.parser_flags)
        r.pos_parser = parser
        current = None
        lines = 0
        try:
            for src, data in r.chunks():
                if src is not current:
                    current, lines = src, 0
                else:
                    lines += r.pos_chunk.count(NL)
                r.read_any = True
                r.pos_chunk = data
                r.segments = [(0, src.name, lines)]
                cdll.jv_parser_set_buf(parser, data, len(data), 1)
                acc = self._drain(parser, acc)
                if self.stop:
                    return
            if current is not None:
                lines += r.pos_chunk.count(NL)
                r.pos_chunk = b""
                r.segments = [(0, current.name, lines)]
            cdll.jv_parser_set_buf(parser, b"", 0, 0)
            acc = self._drain(parser, acc)
            if acc is not None and not self.stop:
                self.handle(acc)
                acc = None
        finally:
            if acc is not None:
                cdll.jv_free(acc)
            cdll.jv_parser_free(parser)
            r.pos_parser = None

    def _drain(self, parser: int, acc: JV | None) -> JV | None:
        cdll = self.r.cdll
        while True:
            v = cdll.jv_parser_next(parser)
            if not v.kind_flags & 0x0F:
                if v.kind_flags & HAS_MSG:
                    self.parse_error(v)
                    if self.stop:
                        return acc
                    continue
                cdll.jv_free(v)
                return acc
            if acc is not None:
                acc = cdll.jv_array_append(acc, v)
            else:
                self.handle(v)
                if self.stop:
                    return acc

    # -- raw lines (-R) streamed
    def run_raw_streaming(self) -> None:
        r = self.r
        cdll = r.cdll
        r.raw_streaming = True
        slurp = "slurp" in r.o.flags
        pending = b""
        parts: list[bytes] = []
        name = "<unknown>"
        for src, data in r.chunks():
            if src.name != name or not r.read_any:
                name, r.raw_lines = src.name, 0
            r.pos_name = name
            r.read_any = True
            if slurp:
                parts.append(data)
                continue
            data = pending + data
            lines = data.split(NL)
            pending = lines.pop()
            for line in lines:
                r.raw_lines += 1
                self.handle(cdll.jv_string_sized(line, len(line)))
                if self.stop:
                    return
        if slurp:
            data = b"".join(parts)
            self.handle(cdll.jv_string_sized(data, len(data)))
        elif pending:
            self.handle(cdll.jv_string_sized(pending, len(pending)))

    # -- everything read first: the program reads `input`/`inputs` itself
    def run_buffered(self, null_input: bool) -> None:
        r = self.r
        cdll = r.cdll
        o = r.o
        raw = "raw-input" in o.flags
        slurp = "slurp" in o.flags
        segments: list[tuple[int, str, int]] = []
        parts: list[bytes] = []
        size = 0
        last = None
        for src, data in r.chunks():
            if src is not last:
                segments.append((size, src.name, 0))
                last = src
            parts.append(data)
            size += len(data)
        data = b"".join(parts)
        if raw:
            data = _raw_as_json(data, slurp)
            slurp = False
        r.read_any = bool(segments)
        r.segments = segments or [(0, "<unknown>", 0)]
        r.pos_chunk = data
        util = cdll.jq_util_input_init(None, None)
        parser = cdll.jv_parser_new(o.parser_flags)
        cdll.jq_util_input_set_parser(util, parser, int(slurp))
        cdll.jv_parser_set_buf(parser, data, len(data), 0)
        r.pos_parser = parser
        r.util = util
        cdll.jq_set_input_cb(r.jq, input_cb_address(cdll), util)
        current_name = segments[0][1] if segments else ""
        if segments:
            _replace_jv(util + UTIL_FILENAME_OFFSET, jstring(cdll, current_name))
        try:
            if null_input:
                self.handle(cdll.jv_null())
                return
            while not self.stop:
                v = cdll.jq_util_input_next_input(util)
                if cdll.jv_get_kind(v) == INVALID:
                    if cdll.jv_invalid_has_msg(cdll.jv_copy(v)):
                        self.parse_error(v)
                        continue
                    cdll.jv_free(v)
                    break
                name, _, line = r.position().rpartition(":")
                if name != current_name and segments:
                    current_name = name
                    _replace_jv(util + UTIL_FILENAME_OFFSET, jstring(cdll, name))
                set_size_t(util + UTIL_LINE_OFFSET, int(line) if line.isdigit() else 0)
                self.handle(v)
        finally:
            _data_keepalive = data
            r.pos_parser = None
            box = c_void_p(util)
            cdll.jq_util_input_free(ctypes.byref(box))  # frees the parser too
            r.util = None


def _raw_as_json(data: bytes, slurp: bool) -> bytes:
    """-R input as JSON string texts, one per line, so libjq's parser can serve `input`."""
    import json

    text = data.decode("utf-8", "replace")
    if slurp:
        return json.dumps(text, ensure_ascii=False).encode()
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode()


def run(inv: Invocation) -> int:
    o = _parse_args(inv)
    if o.program is None:
        o.program = "."
    cdll_ready = lib()
    if "from-file" in o.flags:
        try:
            with inv.fs.open(inv.abs(o.program), "rb") as f:
                o.program = f.read().decode("utf-8", "surrogateescape")
        except OSError as e:
            inv.stderr.write(f"jq: error: Could not open {o.program}: {e.strerror}\n".encode())
            return ERROR_SYSTEM
    o.dumpopts |= SORTED if "sort-keys" in o.flags else 0
    o.dumpopts |= ASCII if "ascii-output" in o.flags else 0
    if "color-output" in o.flags and "monochrome-output" not in o.flags:
        o.dumpopts |= COLOR
        colors = inv.env.get("JQ_COLORS")
        if colors is not None and not cdll_ready.jq_set_colors(colors.encode()):
            inv.stderr.write(b"Failed to set $JQ_COLORS\n")
    if "seq" in o.flags:
        o.parser_flags |= PARSE_SEQ
    runner = _Runner(inv, o)
    try:
        return _main(runner)
    finally:
        runner.flush()
        box = c_void_p(runner.jq.value)
        runner.cdll.jq_teardown(ctypes.byref(box))


def _main(runner: _Runner) -> int:
    o = runner.o
    assert o.program is not None
    if not runner.compile(o.program):
        return ERROR_COMPILE
    loop = _Loop(runner)
    uses_input = bool(_INPUT_RE.search(o.program))
    null_input = "null-input" in o.flags
    if uses_input:
        loop.run_buffered(null_input)
    elif null_input:
        loop.handle(runner.cdll.jv_null())
    elif "raw-input" in o.flags:
        loop.run_raw_streaming()
    else:
        loop.run_streaming()
    ret = loop.ret
    if runner.failures:
        ret = ERROR_SYSTEM
    if "exit-status" in o.flags:
        if ret != OK_NO_OUTPUT:
            return abs(ret)
        return {-1: 4, 0: 1}.get(loop.last_result, 0)
    return max(0, ret)
