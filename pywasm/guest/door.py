"""vshell's door back into the shell, inside the Python guest.

The guest cannot start processes; vshell gives it the next best thing: every process the
program starts through ``subprocess`` (``run``, ``call``, ``check_call``, ``check_output``,
``getoutput``, ``Popen`` with pipes, ``communicate``, ``wait``, ``poll``, ``returncode``),
``os.system`` or ``os.popen`` becomes one request through ``host::call`` (the ``_host``
module), and vshell runs the command in the same sandbox: the same files, policies, limits,
timeout and cancellation.  An argv list runs as ``exec`` would (vshell's commands and scripts
in the sandbox); a string with ``shell=True`` runs through ``sh -c``.

A command starts when its ``Popen`` is made and runs beside the program (on a thread of the
host): ``p.stdout.readline()`` returns each line as the command writes it, ``p.stdin``
writes reach it at once, and ``wait``, ``poll``, ``communicate`` (with ``timeout``),
``kill`` and ``terminate`` act on the running command.  Output a command writes to the
guest's own stdout/stderr goes straight to the sandbox's streams.  Commands still running
when the program ends are waited for (their input closed) before the guest ends.
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
PYTHON_NAMES = ("python", "python3", "python3.15")
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


def _spec_in(value):
    """stdin for the host: "pipe", "inherit", "null", or the bytes (a file, a fd) now."""
    if value == PIPE:
        return "pipe"
    if value is None:
        return "inherit"
    if value == DEVNULL:
        return "null"
    data = _data(value)
    return data if isinstance(data, str) else base64.b64encode(data).decode()


def _spec(value, what):
    """How the host should treat an output: (spec, guest file to copy into or None)."""
    if value is None:
        return "inherit", None
    if value == PIPE:
        return "pipe", None
    if value == DEVNULL:
        return "null", None
    if value == STDOUT and what == "stderr":
        return "stdout", None
    if isinstance(value, int):
        if value == 1:
            return "inherit" if what == "stdout" else "stdout", None
        if value == 2:
            return "inherit" if what == "stderr" else "pipe", None
        return "pipe", value
    if value is sys.stdout or value is getattr(sys.stdout, "buffer", None):
        return ("inherit" if what == "stdout" else "stdout"), None
    if value is sys.stderr or value is getattr(sys.stderr, "buffer", None):
        return ("inherit" if what == "stderr" else "pipe"), None
    return "pipe", value


def _copy_into(target, data):
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


def _interrupted():
    raise KeyboardInterrupt


class _ChildOutput(io.RawIOBase):
    """The read end of a command's stdout or stderr pipe: each read one request."""

    def __init__(self, proc, fd):
        super().__init__()
        self._proc, self._fd = proc, fd

    def readable(self):
        return True

    def readinto(self, b):
        if self.closed:
            raise ValueError("I/O operation on closed file")
        answer = _call({"op": "read", "id": self._proc._id, "fd": self._fd, "n": len(b)})
        if answer.get("interrupted"):
            _interrupted()
        data = base64.b64decode(answer.get("data", ""))
        b[: len(data)] = data
        return len(data)

    def close(self):
        if not self.closed:
            super().close()
            try:
                _call({"op": "close", "id": self._proc._id, "fd": self._fd})
            except OSError:
                pass


class _ChildInput(io.RawIOBase):
    """The write end of a command's stdin pipe: each write one request; closing it is the
    command's end of input."""

    def __init__(self, proc):
        super().__init__()
        self._proc = proc

    def writable(self):
        return True

    def write(self, b):
        if self.closed:
            raise ValueError("I/O operation on closed file")
        data = bytes(b)
        if not data:
            return 0
        answer = _call({"op": "write", "id": self._proc._id,
                        "data": base64.b64encode(data).decode()})
        if answer.get("epipe"):
            raise BrokenPipeError(32, "Broken pipe")
        return len(data)

    def close(self):
        if not self.closed:
            super().close()
            try:
                _call({"op": "close", "id": self._proc._id, "fd": "stdin"})
            except OSError:
                pass


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
        self.returncode = None
        self.stdin = self.stdout = self.stderr = None
        self._id = None
        argv = _argv(args, shell, executable)
        out_spec, self._out_file = _spec(stdout, "stdout")
        err_spec, self._err_file = _spec(stderr, "stderr")
        _flush()
        req = {"op": "spawn", "argv": argv, "shell": bool(shell),
               "cwd": os.fspath(cwd) if cwd is not None else os.getcwd(),
               "env": None if env is None else {os.fsdecode(k): os.fsdecode(v)
                                               for k, v in env.items()},
               "stdin": _spec_in(stdin), "stdout": out_spec, "stderr": err_spec}
        answer = _call(req)
        if answer.get("notfound"):
            raise FileNotFoundError(2, "No such file or directory", argv[0])
        self._id = answer["id"]
        self.pid = 1000 + self._id
        self._got = {"stdout": [], "stderr": []}  # what communicate collected so far
        if stdin == PIPE:
            self.stdin = self._wrap(_ChildInput(self), write=True, buffered=bufsize != 0)
        if out_spec == "pipe" and self._out_file is None:
            self.stdout = self._wrap(_ChildOutput(self, "stdout"))
        if err_spec == "pipe" and self._err_file is None:
            self.stderr = self._wrap(_ChildOutput(self, "stderr"))

    def _wrap(self, raw, write=False, buffered=True):
        if write:
            stream = io.BufferedWriter(raw) if buffered or self.text_mode else raw
        else:
            stream = io.BufferedReader(raw)
        if not self.text_mode:
            return stream
        return io.TextIOWrapper(stream, encoding=self.encoding or "utf-8",
                                errors=self.errors or "strict", write_through=write,
                                line_buffering=False)

    def _ended(self, answer):
        if answer.get("interrupted"):
            _interrupted()
        if answer.get("status") is not None:
            self.returncode = answer["status"]
            self._copy_files()
        return self.returncode

    def _copy_files(self):
        """Output meant for a guest file (stdout=open(...)) lands there once it has ended."""
        for fd, target in (("stdout", self._out_file), ("stderr", self._err_file)):
            if target is None:
                continue
            while True:
                answer = _call({"op": "read", "id": self._id, "fd": fd, "n": 1 << 20})
                data = base64.b64decode(answer.get("data", ""))
                if not data:
                    break
                _copy_into(target, data)
        self._out_file = self._err_file = None

    def communicate(self, input=None, timeout=None):
        if self.stdin is not None and not self.stdin.closed:
            try:
                self.stdin.flush()
            except (BrokenPipeError, ValueError):
                pass
        if isinstance(input, str):
            input = input.encode(self.encoding or "utf-8", self.errors or "strict")
        # the host feeds the input, then closes the command's stdin
        answer = _call({"op": "communicate", "id": self._id, "timeout": timeout,
                        "input": base64.b64encode(input or b"").decode()})
        if self.stdin is not None and not self.stdin.closed:
            try:
                self.stdin.close()
            except (BrokenPipeError, OSError, ValueError):
                pass
        for fd, target in (("stdout", self._out_file), ("stderr", self._err_file)):
            data = base64.b64decode(answer.get(fd, ""))
            if target is not None:
                _copy_into(target, data)
            elif data:
                self._got[fd].append(data)
        if answer.get("interrupted"):
            _interrupted()
        if answer.get("timeout"):
            import subprocess

            out = b"".join(self._got["stdout"]) if self.stdout is not None else None
            err = b"".join(self._got["stderr"]) if self.stderr is not None else None
            raise subprocess.TimeoutExpired(self.args, timeout, out, err)
        self._ended(answer)
        return self._collected("stdout", self.stdout), self._collected("stderr", self.stderr)

    def _collected(self, fd, stream):
        """All of a pipe's output: what the guest's buffer read ahead, then what
        communicate gathered; the pipe is closed after."""
        if stream is None:
            return None
        tail = b"".join(self._got[fd])
        self._got[fd] = []
        try:
            head = stream.read() if not stream.closed else (b"" if not self.text_mode else "")
        except (OSError, ValueError):
            head = "" if self.text_mode else b""
        try:
            stream.close()
        except (OSError, ValueError):
            pass
        if not self.text_mode:
            return head + tail
        text = tail.decode(self.encoding or "utf-8", self.errors or "strict")
        return head + text.replace("\r\n", "\n").replace("\r", "\n")

    def wait(self, timeout=None):
        if self.returncode is not None:
            return self.returncode
        answer = _call({"op": "wait", "id": self._id, "timeout": timeout})
        if answer.get("timeout"):
            import subprocess

            raise subprocess.TimeoutExpired(self.args, timeout)
        return self._ended(answer)

    def poll(self):
        if self.returncode is not None:
            return self.returncode
        return self._ended(_call({"op": "poll", "id": self._id}))

    def send_signal(self, sig):
        if self.returncode is None and self._id is not None:
            _call({"op": "kill", "id": self._id, "signal": int(sig)})

    def terminate(self):
        self.send_signal(15)

    def kill(self):
        self.send_signal(9)

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


def system(command):
    """``os.system``: the command through ``sh -c`` with this program's streams; the wait
    status (exit status << 8), as on Linux."""
    proc = Popen(["sh", "-c", os.fsdecode(command)])
    status = proc.wait()
    if status < 0:
        return -status  # killed by a signal
    if status > 128 and status < 160:
        return status - 128  # killed by a signal
    return (status & 0xFF) << 8


class _Wrap(io.TextIOWrapper):
    def __init__(self, raw, proc, reading):
        super().__init__(raw, encoding="utf-8", errors="strict", write_through=not reading)
        self._proc = proc

    def close(self):
        if self.closed:
            return None
        super().close()
        status = self._proc.wait()
        return None if status == 0 else (status & 0xFF) << 8


def popen(cmd, mode="r", buffering=-1):
    """``os.popen``: read the command's output as it comes, or write its input
    (``mode="w"``)."""
    if mode not in ("r", "w"):
        raise ValueError(f"invalid mode {mode!r}")
    if mode == "r":
        proc = Popen(cmd, shell=True, stdout=PIPE)
        return _Wrap(proc.stdout, proc, True)
    proc = Popen(cmd, shell=True, stdin=PIPE)
    return _Wrap(proc.stdin, proc, False)  # closing it closes the input: the command ends


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
