"""``sh``, ``bash`` and ``vshell`` inside the sandbox: a nested shell in-process,
sharing the run's filesystem, commands and limits, with a fresh shell state."""

from __future__ import annotations

from vshell.interp.control import ExitShell
from vshell.interp.state import FLAG_TO_OPTION, SET_OPTIONS, ShellState, Var

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from vshell.interp.shell import Fds, Shell

DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"


def new_state(env: dict[str, str], cwd: str, script_name: str) -> ShellState:
    """A shell state as a fresh bash process has it: the environment exported, defaults set."""
    st = ShellState()
    st.cwd = cwd
    st.script_name = script_name
    for k, v in env.items():
        st.globals[k] = Var(v, {"x"})
    defaults = {
        "PATH": DEFAULT_PATH,
        "HOME": "/",
        "SHLVL": "1",
    }
    for k, v in defaults.items():
        if k not in st.globals:
            st.globals[k] = Var(v, {"x"})
    st.globals["PWD"] = Var(cwd, {"x"})
    if "OLDPWD" not in st.globals:
        st.globals["OLDPWD"] = Var(None, {"x"})
    st.globals["IFS"] = Var(" \t\n", set())
    st.globals["PS4"] = Var("+ ", set())
    st.globals["OPTIND"] = Var("1", set())
    st.globals["PPID"] = Var("1", {"r"})
    st.globals["UID"] = Var("1000", {"r"})
    st.globals["EUID"] = Var("1000", {"r"})
    st.globals["BASH"] = Var("/bin/bash", set())
    st.globals["BASH_VERSION"] = Var("5.2.15(1)-release", set())
    st.globals["BASH_VERSINFO"] = Var({0: "5", 1: "2", 2: "15", 3: "1", 4: "release",
                                       5: "x86_64-pc-linux-gnu"}, {"a", "r"})
    if "SHELL" not in env:  # bash sets it, unexported, from the login shell
        st.globals["SHELL"] = Var("/bin/bash", set())
    if "HOSTNAME" not in env:
        st.globals["HOSTNAME"] = Var("vshell", set())
    st.globals["OSTYPE"] = Var("linux-gnu", set())
    st.globals["MACHTYPE"] = Var("x86_64-pc-linux-gnu", set())
    st.globals["HOSTTYPE"] = Var("x86_64", set())
    st.globals["OPTERR"] = Var("1", set())
    st.globals["$$"] = Var("4242", set())
    st.globals["_"] = Var(script_name, set())
    if "SHELLOPTS" in env:
        for opt in env["SHELLOPTS"].split(":"):
            if opt in SET_OPTIONS:
                st.options[opt] = True
    return st


def _initial_pwd(sh: Shell, env_pwd: str | None) -> str:
    """The directory a new shell starts in, as bash picks it: an inherited ``$PWD`` when it
    is absolute and names the working directory, else the physical path (getcwd)."""
    cwd = sh.state.cwd
    fs = sh.ctx.fs
    try:
        if env_pwd and env_pwd.startswith("/"):
            if env_pwd == cwd or fs.realpath(env_pwd) == fs.realpath(cwd):
                return env_pwd
        return fs.realpath(cwd)
    except (OSError, ValueError):
        return cwd


def b_shell(sh: Shell, name: str, args: list[str]) -> int:
    env = sh.state.exported()
    return run_shell_command(sh, name, args, env, sh.fds)


def run_shell_command(sh: Shell, name: str, args: list[str], env: dict[str, str], fds: Fds
                      ) -> int:
    """``bash [options] [-c string | -s | file] [args]`` run in-process."""
    command: str | None = None
    read_stdin = False
    interactive = False
    opts_on: dict[str, bool] = {}
    shopts: dict[str, bool] = {}
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--" or a == "-":
            i += 1
            break
        if a.startswith("--"):
            if a in ("--rcfile", "--init-file"):  # vshell reads no startup files
                i += 2
                continue
            if a in ("--norc", "--noprofile", "--posix", "--login", "--noediting"):
                if a == "--posix":
                    opts_on["posix"] = True
                i += 1
                continue
            if a == "--version":
                sh.write_out(b"GNU bash, version 5.2.15(1)-release (vshell)\n")
                return 0
            sh.write_err(f"{name}: {a}: invalid option\n")
            return 2
        if a[:1] in "-+" and len(a) > 1:
            on = a[0] == "-"
            j = 1
            while j < len(a):
                c = a[j]
                if c == "c" and on:
                    command = ""
                elif c == "s" and on:
                    read_stdin = True
                elif c == "i":
                    interactive = True
                elif c in "lr":
                    pass
                elif c == "o":
                    i += 1
                    if i < len(args):
                        opts_on[args[i]] = on
                elif c == "O":
                    i += 1
                    if i < len(args):
                        shopts[args[i]] = on
                elif c in FLAG_TO_OPTION:
                    opts_on[FLAG_TO_OPTION[c]] = on
                else:
                    sh.write_err(f"{name}: -{c}: invalid option\n")
                    return 2
                j += 1
            i += 1
            continue
        break
    rest = args[i:]
    script_name = name
    main_file: str | None = None
    source: str
    if command is not None:
        if not rest:
            sh.write_err(f"{name}: -c: option requires an argument\n")
            return 2
        source = rest[0]
        rest = rest[1:]
        if rest:
            script_name = rest[0]
            rest = rest[1:]
    elif rest and not read_stdin:
        path = rest[0]
        try:
            with sh.ctx.fs.bind(fds).open(sh.abspath(path), "rb") as f:
                data = f.read()
                source = data.decode("utf-8", "surrogateescape")
        except IsADirectoryError:
            sh.write_err(f"{name}: {path}: Is a directory\n")
            return 126
        except OSError as e:
            sh.write_err(f"{name}: {path}: {e.strerror or 'No such file or directory'}\n")
            return 127
        if b"\0" in data[:80].partition(b"\n")[0]:  # bash's check for a binary file
            sh.write_err(f"{path}: {path}: cannot execute binary file\n")
            return 126
        script_name = main_file = path
        rest = rest[1:]
    else:
        source = ""  # read from stdin as the script runs (stdin_script)
    st = new_state(env, _initial_pwd(sh, env.get("PWD")), script_name)
    job_pid = sh.job_pid
    background = job_pid is not None
    st.pids = sh.state.pids  # one session, one counter of process ids
    st.bashpid = job_pid if job_pid is not None else sh.state.new_pid()
    sh.job_pid = None  # only the job's own command is that process
    if background:
        # an asynchronous command starts with SIGINT and SIGQUIT ignored, and a
        # non-interactive shell cannot trap what it was started ignoring (bash)
        st.traps.update({"INT": "", "QUIT": ""})
        st.ignored_at_entry = frozenset(("INT", "QUIT"))
    st.globals["$$"] = Var(str(st.bashpid), set())  # a new shell process: a pid of its own
    try:
        lvl = int(env.get("SHLVL", "1"))
    except ValueError:
        lvl = 1
    st.globals["SHLVL"] = Var(str(lvl + 1), {"x"})
    st.positional = list(rest)
    st.main_file = main_file
    st.umask = sh.state.umask
    if interactive:
        st.options["emacs"] = True  # an interactive bash starts with line editing on
    for k, v in opts_on.items():
        if k in st.options:
            st.options[k] = v
    for k, v in shopts.items():
        if k in st.shopt:
            st.shopt[k] = v
    child = sh.new_process(st, dict(fds))
    child.become_main()  # takes the signals sent to its own $$
    child.source_name = script_name if command is None else name
    child.interactive_c = command is not None
    child.extra_flags = ("i" if interactive else "") + (
        "s" if command is None and (read_stdin or not args[i:]) else "")
    if st.options.get("noexec"):
        from vshell.syntax import ParseError, parse

        if command is None and main_file is None and fds.get(0) is not None:
            source = fds[0].read().decode("utf-8", "surrogateescape")
        try:
            parse(source)
        except ParseError as e:
            child.report_parse_error(e, source, None)
            return 2
        return 0
    try:
        if command is None and main_file is None:
            from vshell.interp.stdin_script import run_stream

            return run_stream(child, fds.get(0))
        return child.run_toplevel(source)
    except ExitShell as e:
        return e.status
    finally:
        sh.ctx.shells.discard(st.get_plain("$$") or "")
