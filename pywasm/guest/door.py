"""vshell's door back into the shell, inside the Python guest.

The guest cannot start processes; vshell gives it the next best thing: every process the
program starts through ``subprocess`` (``run``, ``call``, ``check_call``, ``check_output``,
``getoutput``, ``Popen`` with pipes, ``communicate``, ``wait``, ``poll``, ``returncode``),
``os.system`` or ``os.popen`` becomes one request through ``host::call`` (the ``_host``
module), and vshell runs the command in the same sandbox: the same files, policies, limits,
timeout and cancellation.  An argv list runs as ``exec`` would (vshell's commands and scripts
in the sandbox); a string with ``shell=True`` runs through ``sh -c``.

A command runs to its end in one call (the guest has no threads): a ``Popen`` runs at its
first use (``communicate``, ``wait``, ``poll``, reading its output, closing its input), so a
``timeout`` given there applies; one never used runs when the program ends.  Output
a command writes to the guest's own stdout/stderr goes straight to the sandbox's streams.
"""

import base64
import io
import json
import os
import sys

import _host

PIPE = -1
STDOUT = -2
DEVNULL = -3
_next_pid = [1000]
PYTHON_NAMES = ("python", "python3", "python3.15")
_pending = []  # Popen objects made but not yet run


def _run_pending():
    while _pending:
        proc = _pending[0]
        try:
            proc._ensure()
        except Exception:  # noqa: BLE001 - at exit, as a child would, it just runs
            if proc in _pending:
                _pending.remove(proc)


def _call(request):
    try:
        raw = _host.call(json.dumps(request).encode())
    except ConnectionRefusedError:
        raise OSError(58, "Not supported: no door to the shell here") from None
    answer = json.loads(raw)
    if "error" in answer:
        raise OSError(22, answer["error"])
    return answer


def _flush():
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass


def _argv(args, shell, executable):
    if isinstance(args, (str, bytes, os.PathLike)):
        args = [args]
    argv = [os.fsdecode(a) for a in args]
    if shell:
        if not argv:
            raise ValueError("no command")
        return [executable or "sh", "-c", *argv]
    if not argv:
        raise IndexError("list index out of range")
    if executable is not None:
        argv[0] = os.fsdecode(executable)
    if argv[0] == sys.executable or os.path.basename(argv[0]) in PYTHON_NAMES:
        argv[0] = "python3"  # the guest's own python is vshell's python command
    return argv


def _data(stream):
    """The bytes a file-like stdin holds from its position on (our pipe, a file, a fd)."""
    if isinstance(stream, int):
        if stream == 0:
            return "inherit"
        chunks = []
        while True:
            chunk = os.read(stream, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks)
    data = stream.read()
    if isinstance(data, str):
        data = data.encode(getattr(stream, "encoding", None) or "utf-8")
    return data


def _run(argv, stdin, stdout, stderr, cwd, env, timeout, shell):
    """Run one command through the door: (status, out bytes, err bytes)."""
    _flush()
    req = {"argv": argv, "cwd": os.fspath(cwd) if cwd is not None else os.getcwd(),
           "env": None if env is None else {os.fsdecode(k): os.fsdecode(v)
                                           for k, v in env.items()},
           "stdin": stdin if isinstance(stdin, str) or stdin is None
           else base64.b64encode(stdin).decode(),
           "stdout": stdout, "stderr": stderr, "timeout": timeout, "shell": bool(shell)}
    answer = _call(req)
    if answer.get("notfound"):
        raise FileNotFoundError(2, "No such file or directory", argv[0])
    out = base64.b64decode(answer.get("stdout", ""))
    err = base64.b64decode(answer.get("stderr", ""))
    return answer["status"], out, err, bool(answer.get("timeout"))


def _spec(value, what):
    """How the host should treat a stream: (spec, guest file to copy into or None)."""
    if value is None:
        return "inherit", None
    if value == PIPE:
        return "capture", None
    if value == DEVNULL:
        return "null", None
    if value == STDOUT and what == "stderr":
        return "stdout", None
    if isinstance(value, int):
        if value == 1:
            return "inherit" if what == "stdout" else "stdout", None
        if value == 2:
            return "inherit" if what == "stderr" else "capture", None
        return "capture", value
    if value is sys.stdout or value is getattr(sys.stdout, "buffer", None):
        return ("inherit" if what == "stdout" else "stdout"), None
    if value is sys.stderr or value is getattr(sys.stderr, "buffer", None):
        return ("inherit" if what == "stderr" else "capture"), None
    return "capture", value


def _copy_into(target, data, text_hint=False):
    if target is None or not data:
        return
    if isinstance(target, int):
        os.write(target, data)
        return
    try:
        target.write(data)
    except TypeError:
        target.write(data.decode(getattr(target, "encoding", None) or "utf-8", "replace"))
    try:
        target.flush()
    except (AttributeError, OSError, ValueError):
        pass


class _InputPipe(io.BytesIO):
    """``Popen(..., stdin=PIPE).stdin``: what is written is the command's input; closing it
    runs the command."""

    def __init__(self, proc):
        super().__init__()
        self._proc = proc

    def close(self):
        if not self.closed:
            self._proc._input = self.getvalue()
            super().close()
            self._proc._start()


class Popen:
    """A process of the sandbox, run through vshell's door (see the module's text)."""

    def __init__(self, args, bufsize=-1, executable=None, stdin=None, stdout=None,
                 stderr=None, preexec_fn=None, close_fds=True, shell=False, cwd=None,
                 env=None, universal_newlines=None, startupinfo=None, creationflags=0,
                 restore_signals=True, start_new_session=False, pass_fds=(), *, user=None,
                 group=None, extra_groups=None, encoding=None, errors=None, text=None,
                 umask=-1, pipesize=-1, process_group=None):
        self.args = args
        self.text_mode = bool(encoding or errors or text or universal_newlines)
        self.encoding, self.errors = encoding, errors
        self._argv = _argv(args, shell, executable)
        self._shell = shell
        self._cwd, self._env = cwd, env
        self._out_spec, self._out_file = _spec(stdout, "stdout")
        self._err_spec, self._err_file = _spec(stderr, "stderr")
        self.returncode = None
        self.pid = _next_pid[0]
        _next_pid[0] += 1
        self._started = False
        self._input = None
        self._timeout = None
        self.stdin = self.stdout = self.stderr = None
        if stdin == PIPE:
            self._stdin_spec = None
            raw = _InputPipe(self)
            self.stdin = self._wrap(raw, write=True)
        elif stdin is None:
            self._stdin_spec = "inherit"
        elif stdin == DEVNULL:
            self._stdin_spec = b""
        else:
            self._stdin_spec = _data(stdin)
        self._out = self._err = b""
        _pending.append(self)  # runs at its first use (so a timeout can apply), else at exit

    def _wrap(self, raw, write=False):
        if not self.text_mode:
            return raw
        return io.TextIOWrapper(raw, encoding=self.encoding or "utf-8",
                                errors=self.errors or "strict", write_through=write)

    def _start(self, timeout=None):
        if self._started:
            return
        self._started = True
        if self in _pending:
            _pending.remove(self)
        stdin = self._stdin_spec if self._stdin_spec is not None else (self._input or b"")
        status, out, err, timed_out = _run(self._argv, stdin, self._out_spec, self._err_spec,
                                           self._cwd, self._env, timeout, self._shell)
        if timed_out:  # stopped by its timeout: it has ended, as if killed
            self.returncode = -9
            import subprocess

            raise subprocess.TimeoutExpired(self.args, timeout, out, err)
        self.returncode = status
        self._out, self._err = out, err
        if self._out_file is not None:
            _copy_into(self._out_file, out)
            out = b""
        if self._err_file is not None:
            _copy_into(self._err_file, err)
            err = b""
        if self._out_spec == "capture" and self._out_file is None:
            self.stdout = self._wrap(io.BytesIO(out))
        if self._err_spec == "capture" and self._err_file is None:
            self.stderr = self._wrap(io.BytesIO(err))

    def _ensure(self, timeout=None):
        if not self._started:
            if self.stdin is not None and not self.stdin.closed:
                try:
                    self.stdin.flush()
                except ValueError:
                    pass
                raw = self.stdin.buffer if self.text_mode else self.stdin
                self._input = raw.getvalue()
            self._start(timeout)

    def __getattribute__(self, name):
        if name in ("stdout", "stderr"):
            d = object.__getattribute__(self, "__dict__")
            if not d.get("_started") and d.get("_out_spec" if name == "stdout" else
                                               "_err_spec") == "capture":
                return _LazyPipe(self, name)
        return object.__getattribute__(self, name)

    def communicate(self, input=None, timeout=None):
        if input is not None and self._stdin_spec is None and not self._started:
            if isinstance(input, str):
                input = input.encode(self.encoding or "utf-8", self.errors or "strict")
            raw = self.stdin.buffer if self.text_mode else self.stdin
            raw.write(input)
        self._ensure(timeout)
        out = self.stdout.read() if self.stdout is not None and self._out_file is None else None
        err = self.stderr.read() if self.stderr is not None and self._err_file is None else None
        return out, err

    def wait(self, timeout=None):
        self._ensure(timeout)
        return self.returncode

    def poll(self):
        self._ensure()
        return self.returncode

    def send_signal(self, sig):
        pass  # the command has already ended

    def terminate(self):
        pass

    def kill(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for stream in (self.stdout, self.stderr, self.stdin):
            try:
                if stream is not None:
                    stream.close()
            except (OSError, ValueError):
                pass
        self.wait()

    def __repr__(self):
        return f"<Popen: returncode: {self.returncode} args: {self.args!r}>"


class _LazyPipe:
    """A Popen's stdout/stderr asked for before the command ran: reading runs it."""

    def __init__(self, proc, name):
        self._proc, self._name = proc, name

    def __getattr__(self, attr):
        proc = self._proc
        if attr in ("close",) and not proc._started:
            return lambda: None
        proc._ensure()
        return getattr(getattr(proc, self._name), attr)

    def __iter__(self):
        self._proc._ensure()
        return iter(getattr(self._proc, self._name))


def system(command):
    """``os.system``: the command through ``sh -c`` with this program's streams; the wait
    status (exit status << 8), as on Linux."""
    status, _, _, _ = _run(["sh", "-c", os.fsdecode(command)], "inherit", "inherit",
                           "inherit", None, None, None, True)
    if status > 128 and status < 160:
        return status - 128  # killed by a signal
    return (status & 0xFF) << 8


class _Wrap(io.TextIOWrapper):
    def __init__(self, raw, proc, reading):
        super().__init__(raw, encoding="utf-8", errors="strict", write_through=not reading)
        self._proc, self._reading = proc, reading

    def close(self):
        if self.closed:
            return None
        super().close()
        status = self._proc.wait()
        return None if status == 0 else (status & 0xFF) << 8


def popen(cmd, mode="r", buffering=-1):
    """``os.popen``: read the command's output, or write its input (``mode="w"``)."""
    if mode not in ("r", "w"):
        raise ValueError(f"invalid mode {mode!r}")
    if mode == "r":
        proc = Popen(cmd, shell=True, stdout=PIPE)
        proc._ensure()
        return _Wrap(io.BytesIO(proc._out), proc, True)
    proc = Popen(cmd, shell=True, stdin=PIPE)
    return _Wrap(proc.stdin, proc, False)  # closing it closes the input: the command runs


def patch_subprocess(mod):
    """Make ``subprocess`` run commands through the door."""
    mod.Popen = Popen
    mod._can_fork_exec = True
    mod._USE_POSIX_SPAWN = False


def install():
    os.system = system
    os.popen = popen
    if "subprocess" in sys.modules:
        patch_subprocess(sys.modules["subprocess"])
