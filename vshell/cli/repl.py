"""The interactive loop behind ``vshell`` with no ``-c`` and no FILE.

On a terminal it is a prompt_toolkit line editor (history, completion, PS2 for incomplete
commands); prompt_toolkit is imported here only, so ``vshell -c`` never pays for it.  From a
pipe it reads line by line with no prompts, collecting lines until the parser says a
command is complete, so an agent can feed it a script.

Signals: SIGINT cancels the running command and comes back to the prompt; SIGTERM cancels
it and ends the REPL with status 143.  The caller (``cli.main``) closes the sandbox.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from vshell.cli.streams import StdStream
from vshell.command import CancelToken, normpath
from vshell.result import Outcome

if TYPE_CHECKING:
    from vshell.sandbox import Sandbox

BANNER = "vshell REPL (Ctrl-D to exit)\n"
PS1 = "$ "
PS2 = "> "

# Characters that end a word for completion purposes (shell metacharacters and blanks).
_BREAK = frozenset(" \t\n|&;()<>")
# After one of these words the next word is a command name.
_CMD_KEYWORDS = frozenset("if then else elif while until do ! { time exec command".split())
# Characters a completed file name must escape to stay one word.
_SPECIAL = frozenset(" \t\n\\'\"$`&;|()<>*?[]!{}#~=")


class _Terminated(Exception):
    """SIGTERM arrived while no command ran: leave the REPL with 143."""


# --- completion (pure functions, so they are testable without a terminal) ----------------
def _word_start(text: str) -> int:
    i = len(text)
    while i > 0 and text[i - 1] not in _BREAK:
        i -= 1
    return i


def _in_command_position(before: str) -> bool:
    """True when the word starting after ``before`` names a command."""
    head = before.rstrip(" \t")
    if not head or head[-1] in "|&;(\n":
        return True
    prev = head[_word_start(head):]
    return prev in _CMD_KEYWORDS


def _shell_quote(name: str) -> str:
    return "".join("\\" + c if c in _SPECIAL else c for c in name)


def _path_completions(sb: Sandbox, word: str, dirs_only: bool = False
                      ) -> list[tuple[str, str]]:
    """(replacement for ``word``, display) pairs for file names in the VFS."""
    raw = word.replace("\\", "")
    home_prefix = ""
    if raw.startswith("~/"):
        home = _home(sb)
        home_prefix, raw = "~/", home.rstrip("/") + "/" + raw[2:]
    cut = raw.rfind("/") + 1
    dirpart, base = raw[:cut], raw[cut:]
    if dirpart.startswith("/"):
        vdir = normpath(dirpart)
    else:
        vdir = normpath(sb.cwd.rstrip("/") + "/" + dirpart)
    try:
        entries = sb.fs.listdir(vdir)
    except (OSError, ValueError):
        return []
    shown = dirpart
    if home_prefix:
        shown = home_prefix + dirpart[len(_home(sb).rstrip("/") + "/"):]
    out: list[tuple[str, str]] = []
    for name in sorted(entries):
        if not name.startswith(base) or (name.startswith(".") and not base.startswith(".")):
            continue
        is_dir = sb.fs.isdir(vdir.rstrip("/") + "/" + name)
        if dirs_only and not is_dir:
            continue
        suffix = "/" if is_dir else ""
        out.append((_shell_quote(shown) + _shell_quote(name) + suffix, name + suffix))
    return out


def _home(sb: Sandbox) -> str:
    return sb.getenv("HOME") or "/"


def complete(sb: Sandbox, before: str) -> tuple[int, list[tuple[str, str]]]:
    """Completions for the word ending at the cursor: (its length, [(text, display)])."""
    start = _word_start(before)
    word = before[start:]
    dollar = word.rfind("$")
    if dollar >= 0:
        tail = word[dollar + 1:]
        brace = tail.startswith("{")
        name = tail[1:] if brace else tail
        if name == "" or name.replace("_", "a").isalnum():
            found = sorted(v for v in sb.variable_names() if v.startswith(name))
            close = "}" if brace else ""
            return len(name), [(v + close, "$" + v) for v in found]
    if _in_command_position(before[:start]) and "/" not in word:
        found = sorted(n for n in sb.command_names() if n.startswith(word))
        return len(word), [(n, n) for n in found]
    prev = before[:start].rstrip(" \t")
    dirs_only = prev[_word_start(prev):] in ("cd", "pushd", "rmdir")
    return len(word), _path_completions(sb, word, dirs_only)


# --- the terminal as a command's stdin ----------------------------------------------------
class TerminalInput:
    """The terminal as a command's stdin (``read x``, ``cat``), polled so it can be stopped.

    A blocking read of the tty would outlive a Ctrl-C and then steal the next prompt's
    keys, so reads wait in short ``select`` slices and check the run's cancel token.
    """

    interactive = True  # a person types here (python3 with no program gives its prompt)

    def __init__(self, fd: int, token: CancelToken) -> None:
        self._fd = fd
        self._token = token
        self._buf = b""

    def _fill(self) -> bool:
        """Read what the terminal has into the buffer; False at end of input (Ctrl-D)."""
        import os
        import select

        while True:
            self._token.check()
            ready, _, _ = select.select([self._fd], [], [], 0.05)
            if ready:
                break
        data = os.read(self._fd, 65536)
        self._buf += data
        return bool(data)

    def read(self, n: int | None = -1, /) -> bytes:
        if n is None or n < 0:
            while self._fill():
                pass
            data, self._buf = self._buf, b""
            return data
        if not self._buf and n > 0:
            self._fill()
        data, self._buf = self._buf[:n], self._buf[n:]
        return data

    read1 = read

    def wait_readable(self, timeout: float) -> bool:
        """Whether input is waiting, after at most ``timeout`` seconds (a reader that must
        notice something else meanwhile, Python's prompt a Ctrl-C, polls this)."""
        import select

        if self._buf:
            return True
        ready, _, _ = select.select([self._fd], [], [], timeout)
        return bool(ready)

    def readline(self, limit: int | None = -1, /) -> bytes:
        while b"\n" not in self._buf and (limit is None or limit < 0 or len(self._buf) < limit):
            if not self._fill():
                break
        end = self._buf.find(b"\n") + 1 or len(self._buf)
        if limit is not None and limit >= 0:
            end = min(end, limit)
        data, self._buf = self._buf[:end], self._buf[end:]
        return data

    def readable(self) -> bool:
        return True

    def close(self) -> None:
        pass


# --- the loop --------------------------------------------------------------------------
class _Repl:
    """One REPL run: the sandbox, the running command's token and the signal state."""

    def __init__(self, sb: Sandbox, history_file: str | None) -> None:
        self.sb = sb
        self.history_file = history_file
        self.token: CancelToken | None = None
        self.terminated = False
        self.interrupted = False
        self.app: Any = None
        self.raise_when_idle = False
        self.lend_terminal = False  # commands read the terminal (prompt_toolkit mode only)
        self.status = 0

    # signals
    def _on_signal(self, signum: int, frame: object) -> None:
        if signum == signal.SIGTERM:
            self.terminated = True
        token = self.token
        if signum == signal.SIGINT and token is not None and self.sb.interrupt():
            return  # Python's prompt takes it as KeyboardInterrupt and goes on
        if token is not None:
            self.interrupted = signum == signal.SIGINT
            token.cancel("interrupt" if signum == signal.SIGINT else "terminate")
            return
        if signum != signal.SIGTERM:
            return
        app = self.app
        if app is not None and app.is_running:
            app.loop.call_soon_threadsafe(lambda: app.exit(exception=_Terminated()))
        elif self.raise_when_idle:
            raise _Terminated

    def _exit_if_terminated(self) -> None:
        """Runs as the prompt starts: a SIGTERM that came just before it must not wait."""
        if self.terminated and self.app is not None:
            self.app.exit(exception=_Terminated())

    def _install(self) -> dict[int, Any]:
        old: dict[int, Any] = {}
        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                old[sig] = signal.signal(sig, self._on_signal)
            except ValueError:  # not the main thread: signals stay the host's business
                pass
        return old

    # running one command
    def execute(self, script: str, tty: bool) -> bool:
        """Run ``script``; False when the session should end (exit, SIGTERM)."""
        if self.terminated:
            return False
        self.interrupted = False
        token = CancelToken()
        self.token = token
        # a terminal session lends the terminal to commands; piped input is the script itself
        stdin = TerminalInput(sys.stdin.fileno(), token) if self.lend_terminal else None
        try:
            res = self.sb.exec(script, stdin=stdin, stdout=StdStream(sys.stdout.buffer),
                               stderr=StdStream(sys.stderr.buffer), cancel=token)
        finally:
            self.token = None
        self.status = res.exit_code
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        if self.interrupted and tty:
            sys.stderr.write("\n")
        if res.truncated:
            sys.stderr.write(f"vshell: output truncated at {self.sb.output_limit} bytes\n")
        if tty and self.status != 0 and not self.terminated:
            sys.stderr.write(f"(exit code {self.status})\n")
        sys.stderr.flush()
        if self.terminated:
            return False
        if res.outcome is Outcome.INVALID:  # a syntax error never ends an interactive shell
            return True
        return not self.sb.exit_requested

    def run(self) -> int:
        old = self._install()
        try:
            tty = sys.stdin is not None and sys.stdin.isatty() and sys.stderr.isatty()
            if tty and _have_prompt_toolkit():
                self._run_terminal()
            elif tty:
                self._run_lines(prompts=True)
            else:
                self.raise_when_idle = True
                self._run_lines(prompts=False)
        except _Terminated:
            self.terminated = True
        finally:
            for sig, handler in old.items():
                signal.signal(sig, handler)
        return 143 if self.terminated else self.status

    def _run_lines(self, prompts: bool) -> None:
        """Read line by line; a command runs once the parser says it is complete."""
        from vshell.syntax import is_complete

        if prompts:
            sys.stderr.write(BANNER)
        buf = ""
        while not self.terminated:
            if prompts:
                sys.stderr.write(PS2 if buf else PS1)
                sys.stderr.flush()
            line = sys.stdin.buffer.readline()
            if not line:
                break
            buf += line.decode("utf-8", "surrogateescape")
            if not is_complete(buf):
                continue
            script, buf = buf, ""
            if script.strip() and not self.execute(script, prompts):
                return
        if buf.strip():
            self.execute(buf, prompts)

    def _run_terminal(self) -> None:
        session = _make_session(self.sb, self.history_file)
        self.lend_terminal = True
        sys.stderr.write(BANNER)
        sys.stderr.flush()
        while not self.terminated:
            self.app = session.app
            try:
                text = session.prompt(PS1, pre_run=self._exit_if_terminated)
            except KeyboardInterrupt:  # Ctrl-C at the prompt: a fresh, empty line
                continue
            except EOFError:  # Ctrl-D on an empty line
                return
            finally:
                self.app = None
            if text.strip() and not self.execute(text + "\n", tty=True):
                return


def _make_session(sb: Sandbox, history_file: str | None) -> Any:
    """A prompt_toolkit session: Enter runs a complete command, otherwise opens a PS2 line."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import Completer, Completion
    from prompt_toolkit.history import FileHistory, History, InMemoryHistory
    from prompt_toolkit.key_binding import KeyBindings
    from prompt_toolkit.output import create_output

    from vshell.syntax import is_complete

    class ShellCompleter(Completer):
        def get_completions(self, document: Any, complete_event: Any) -> Iterable[Any]:
            length, found = complete(sb, document.text_before_cursor)
            for text, display in found:
                yield Completion(text, start_position=-length, display=display)

    bindings = KeyBindings()

    @bindings.add("enter")
    def _enter(event: Any) -> None:
        buf = event.current_buffer
        buf.complete_state = None
        if not is_complete(buf.text + "\n"):
            buf.insert_text("\n")
        else:
            buf.validate_and_handle()

    history: History = InMemoryHistory()
    if history_file and _usable_history_file(history_file):
        history = FileHistory(history_file)
    output = create_output(stdout=sys.stderr)
    return PromptSession(
        history=history,
        completer=ShellCompleter(),
        complete_while_typing=False,
        multiline=True,
        prompt_continuation=lambda width, line_number, wrap_count: PS2,
        key_bindings=bindings,
        output=output,
        enable_history_search=False,
    )


def _have_prompt_toolkit() -> bool:
    """Without prompt_toolkit a terminal gets the plain line loop, with prompts."""
    import importlib.util

    return importlib.util.find_spec("prompt_toolkit") is not None


def _usable_history_file(path: str) -> bool:
    """Check the host history file up front: prompt_toolkit would fail later, mid-session."""
    try:
        with open(path, "ab"), open(path, "rb"):
            return True
    except OSError as e:
        sys.stderr.write(f"vshell: history file {path}: {e.strerror or e} "
                         "(history kept for this session only)\n")
        return False


def run_repl(sb: Sandbox, history_file: str | None = None) -> int:
    """Run the REPL on ``sb`` until Ctrl-D, ``exit`` or SIGTERM; the last status (143 on
    SIGTERM)."""
    if history_file:
        sb.fs.protect(history_file)  # vshell's own file: never reachable from inside
    return _Repl(sb, history_file).run()
