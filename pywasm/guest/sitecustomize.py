"""vshell's start-up hook inside the Python guest.

vshell serves this file at /lib/python3.12/site-packages/sitecustomize.py (the site directory
that /pyvenv.cfg selects) and renders it per run: the line assigning ``_VSHELL`` carries the
run's settings.  It runs before the user's program, after ``site`` has set up sys.path.

Why each step:
* chdir: wasi-libc starts every process in "/" and has no way to be told otherwise.
* argv[0]: the host passes the script as an absolute path (CPython would otherwise make it
  absolute against "/" before this hook runs); the user's spelling is put back.
* PYTHONPATH: ``site`` made relative entries absolute against "/"; re-anchor them at cwd.
* /lib/python/site-packages: sbsh's convention, a directory mounted there is a site
  directory (``.pth`` files processed).
* line-buffered stdout: output written before a timeout kills the guest is kept.
* no bytecode written: an agent's mounted directories stay free of __pycache__.
* sys.executable: empty under WASI; named so messages read like CPython's
  (``/usr/local/bin/python3: No module named x``).
* os.chmod: WASI has no call for it, and the guest's libc answers success without asking
  anyone.  The wrapper first asks the host whether the path may be changed at all, with a
  set-times to the file's own times (which the sandbox's mount rules govern), so chmod on
  a read-only, denied or missing path fails as it would natively.
"""

import os as _os
import sys as _sys

_VSHELL = {}


def _vshell_setup(cfg):
    cwd = cfg.get("cwd")
    if cwd:
        try:
            _os.chdir(cwd)
        except OSError:
            pass
    argv0 = cfg.get("argv0")
    if argv0 is not None and _sys.argv:
        _sys.argv[0] = argv0
    if cwd and cwd != "/" and not _sys.flags.ignore_environment:
        for entry in _os.environ.get("PYTHONPATH", "").split(":"):
            if entry and not entry.startswith("/"):
                wrong = _os.path.normpath("/" + entry)
                right = _os.path.normpath(_os.path.join(cwd, entry))
                _sys.path[:] = [
                    right if _os.path.normpath("/" + p.lstrip("/")) == wrong else p
                    for p in _sys.path
                ]
    site_dir = cfg.get("site_dir")
    if site_dir and site_dir not in _sys.path and _os.path.isdir(site_dir):
        import site

        site.addsitedir(site_dir)
    _sys.dont_write_bytecode = True
    if not _sys.executable:  # unknown to a WASI guest; name the guest's own binary
        _sys.executable = "/usr/local/bin/python3"
    if cfg.get("line_buffered") and _sys.stdout is not None:
        try:
            _sys.stdout.reconfigure(line_buffering=True)
        except (AttributeError, ValueError):
            pass


def _vshell_checked_chmod():
    real = _os.chmod

    def chmod(path, mode, *, dir_fd=None, follow_symlinks=True):
        if not isinstance(path, int):
            kw = {} if dir_fd is None else {"dir_fd": dir_fd}
            info = _os.stat(path, follow_symlinks=follow_symlinks, **kw)
            try:
                _os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns),
                          follow_symlinks=follow_symlinks, **kw)
            except OSError as e:
                if e.filename is None:
                    raise OSError(e.errno, e.strerror, path) from None
                raise
        return real(path, mode, dir_fd=dir_fd, follow_symlinks=follow_symlinks)

    chmod.__doc__ = real.__doc__
    _os.chmod = chmod


_vshell_setup(_VSHELL)
_vshell_checked_chmod()
del _vshell_setup, _vshell_checked_chmod
