"""vshell's bootstrap for ``python -S`` (no ``site``, so sitecustomize never runs).

vshell passes this file as ``-c`` code, rendered per run (the ``_VSHELL`` line carries the
settings), in place of the user's program; it sets the working directory, ``sys.argv`` and
``sys.path[0]`` the way CPython would have, then runs the real program as ``__main__``.
"""

_VSHELL = {}


def _vshell_main(cfg):
    import os
    import sys

    import __main__

    ours = {_vshell_main.__code__, sys._getframe(1).f_code}

    def excepthook(kind, exc, tb, report=sys.excepthook):
        while tb is not None and tb.tb_frame.f_code in ours:  # hide the bootstrap's frames
            tb = tb.tb_next
        if exc is not None:
            exc.__traceback__ = tb
        report(kind, exc, tb)

    sys.excepthook = excepthook
    for name in ("_VSHELL", "_vshell_main"):
        __main__.__dict__.pop(name, None)
    cwd = cfg.get("cwd")
    if cwd:
        try:
            os.chdir(cwd)
        except OSError:
            pass
    if cfg.get("line_buffered") and sys.stdout is not None:
        try:
            sys.stdout.reconfigure(line_buffering=True)
        except (AttributeError, ValueError):
            pass
    sys.dont_write_bytecode = True
    if not sys.executable:  # unknown to a WASI guest; name the guest's own binary
        sys.executable = "/usr/local/bin/python3"
    kind, value, argv = cfg["kind"], cfg["value"], cfg["argv"]
    safe = sys.flags.safe_path
    if sys.path and sys.path[0] == "" and not safe:
        del sys.path[0]
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
            import runpy  # a directory or zip with __main__.py (sys.argv[0] becomes the path)

            runpy.run_path(value, run_name="__main__")
            return
        try:
            with open(value, "rb") as f:
                source = f.read()
        except OSError as e:
            sys.stderr.write(f"{cfg['prog']}: can't open file {value!r}: [Errno {e.errno}] "
                             f"{e.strerror}\n")
            raise SystemExit(2) from None
        __main__.__dict__.update(__file__=value, __cached__=None)
        exec(compile(source, value, "exec"), __main__.__dict__)
        return
    if kind == "c":
        source, filename = value, "<string>"
        sys.argv[:] = ["-c", *argv[1:]]
    else:
        source, filename = sys.stdin.read(), "<stdin>"
        sys.argv[:] = argv
    if not safe:
        sys.path.insert(0, "")
    exec(compile(source, filename, "exec"), __main__.__dict__)


_vshell_main(_VSHELL)
