"""Interpreter state in one place: variables and their scopes, options, positional
parameters, functions, the working directory.

A subshell behaves as a deep copy of it, but is made copy-on-write: the scopes and small
tables are copied (shallow), the variables are shared, and whichever of the two shells first
changes a shared variable changes a copy of its own (see :class:`Owner`).
"""

from __future__ import annotations

import itertools
import time

from vshell.interp.control import ShellError
from vshell.interp.limits import hold
from vshell.records import cast, field, record
from vshell.syntax import ast

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    import _random
    import random
    from collections.abc import Iterator
    from typing import Any

    from vshell.vfs.memory import Hold, MemoryBudget

Value = str | dict[int, str] | dict[str, str] | None


class Owner:
    """The token of the one state that may change a :class:`Var` in place.

    A state stamps the variables it makes with its token.  A fork (``subshell``) gives the
    parent and the child new tokens, so every variable made before it belongs to neither:
    both read it, and the first to change it changes a copy put in its own scope
    (``ShellState.own``).  So a fork copies no variable, and nothing shared is ever changed,
    which also makes a background job's reads safe while its parent goes on.

    A variable holding a memory charge (a big value) is never shared: at a fork the child
    gets an uncharged variable of its own over the same value, as a deep copy's copy was, so
    the charge ends with the parent's variable (unset, a function's return) as before.
    """

    __slots__ = ()


@record
class Var:
    value: Value = None
    attrs: set[str] = field(default_factory=set)

    def is_array(self) -> bool:
        return "a" in self.attrs or "A" in self.attrs

    # the memory charge of a big value (vshell.interp.limits); not a field, so no annotation
    hold = cast("Hold | None", None)
    # the state that may change this variable in place (None: no state; see Owner)
    owner = cast("Owner | None", None)

    def copy(self) -> Var:
        v = self.value
        if isinstance(v, dict):
            v = dict(v)
        # a copy shares the strings but not their charge (ShellState.own moves it along
        # when it replaces a charged variable): a subshell's copy, often kept alive by a
        # reference cycle until a collection, cannot pin it
        return Var(v, set(self.attrs))


# the names _special computes (every variable read asks, so a set answers first)
_SPECIAL_NAMES = frozenset(("RANDOM", "SECONDS", "LINENO", "EPOCHSECONDS", "EPOCHREALTIME",
                            "BASHPID", "SHELLOPTS", "BASHOPTS"))

_BIG = 1 << 16  # vshell.interp.limits.THRESHOLD: smaller values are never charged
_SHELL_OPTION_VARS = frozenset(("SHELLOPTS", "BASHOPTS"))  # readonly, made from the options
_SET_SPECIAL = frozenset(("SECONDS", "RANDOM"))  # an assignment does more


_CALL_STACK_ARRAYS = frozenset(("FUNCNAME", "BASH_SOURCE", "BASH_LINENO"))
# An internal attribute (never printed): a prefix binding like ``x=1 f``.  ``local x``
# without a value copies such a binding's value, as bash's make_local_variable does.
TEMPENV_ATTR = "tempenv"

SET_OPTIONS = {
    "allexport": "a",
    "braceexpand": "B",
    "errexit": "e",
    "errtrace": "E",
    "functrace": "T",
    "hashall": "h",
    "histexpand": "H",
    "keyword": "k",
    "monitor": "m",
    "noclobber": "C",
    "noexec": "n",
    "noglob": "f",
    "nolog": "",  # accepted and ignored, as in bash
    "notify": "b",
    "nounset": "u",
    "onecmd": "t",
    "physical": "P",
    "privileged": "p",
    "verbose": "v",
    "xtrace": "x",
    "pipefail": "",
    "posix": "",
    "ignoreeof": "",
    "interactive-comments": "",
    "emacs": "",
    "vi": "",
    "history": "",
}
FLAG_TO_OPTION = {v: k for k, v in SET_OPTIONS.items() if v}

SHOPT_DEFAULTS = {
    "autocd": False,
    "assoc_expand_once": False,  # accepted and listed; subscripts expand as without it
    "cdable_vars": False,
    "cdspell": False,
    "checkhash": False,
    "checkjobs": False,
    "checkwinsize": True,  # bash 5.2 turns it on in every shell; no terminal here
    "cmdhist": True,
    "compat31": False,
    "compat32": False,
    "compat40": False,
    "compat41": False,
    "compat42": False,
    "compat43": False,
    "compat44": False,
    "complete_fullquote": True,
    "direxpand": False,
    "dirspell": False,
    "dotglob": False,
    "execfail": False,
    "expand_aliases": False,
    "extdebug": False,
    "extglob": False,
    "extquote": True,
    "failglob": False,
    "force_fignore": True,
    "globasciiranges": True,
    "globskipdots": True,
    "globstar": False,
    "gnu_errfmt": False,
    "histappend": False,
    "histreedit": False,
    "histverify": False,
    "hostcomplete": True,
    "huponexit": False,
    "inherit_errexit": False,
    "interactive_comments": True,
    "lastpipe": False,
    "lithist": False,
    "localvar_inherit": False,
    "localvar_unset": False,
    "login_shell": False,
    "mailwarn": False,
    "no_empty_cmd_completion": False,
    "nocaseglob": False,
    "nocasematch": False,
    "noexpand_translation": False,
    "nullglob": False,
    "patsub_replacement": True,
    "progcomp": True,
    "progcomp_alias": False,
    "promptvars": True,
    "restricted_shell": False,
    "shift_verbose": False,
    "sourcepath": True,
    "varredir_close": False,
    "xpg_echo": False,
}


class Frame:
    """A function call's variable scope: its locals and positional parameters.

    (A plain class with slots: one is made per function call, and per frame at each fork.)"""

    __slots__ = ("locals", "name", "positional")

    def __init__(self, name: str, locals: dict[str, Var], positional: list[str]) -> None:
        self.name = name
        self.locals = locals  # a call's prefix bindings (``x=1 f``) start here, as in bash
        self.positional = positional

    def __repr__(self) -> str:
        return f"Frame({self.name!r}, {self.locals!r}, {self.positional!r})"


class CallEntry(tuple):  # (name, file, line, is_function)
    """One level of bash's call stack: a function call or a ``source``.

    ``file`` is where the function was defined (or the file sourced); ``line`` the line
    of the caller that made the call.  FUNCNAME, BASH_SOURCE, BASH_LINENO and ``caller``
    are read from these.  (A tuple: one is made for every function call.  Written out,
    not a typing.NamedTuple: that would import typing, and build the class with an
    ``exec``, on every start-up.)
    """

    __slots__ = ()

    def __new__(cls, name: str, file: str, line: int, is_function: bool = True) -> CallEntry:
        return tuple.__new__(cls, (name, file, line, is_function))

    @property
    def name(self) -> str:
        return self[0]

    @property
    def file(self) -> str:
        return self[1]

    @property
    def line(self) -> int:
        return self[2]

    @property
    def is_function(self) -> bool:
        return self[3]


class ShellState:
    """Variables, functions, options and positional parameters of one shell."""

    # set only by the builtins that use them (read with getattr and a default): declared here
    # for the type checker, never given a value at class level
    ulimits: dict[tuple[str, str], str]  # `ulimit` settings, by (resource, hard/soft)
    ignored_at_entry: frozenset[str]  # signals ignored when the shell started (a background job)
    _getopts_sub: int  # getopts: the position inside a bundle of flags (-abc)
    _getopts_ind: int | None  # getopts: the OPTIND that position belongs to

    def __init__(self) -> None:
        self.globals: dict[str, Var] = {}
        self.frames: list[Frame] = []
        self.positional: list[str] = []
        self.functions: dict[str, ast.FunctionDef] = {}
        self.options: dict[str, bool] = {k: False for k in SET_OPTIONS}
        self.options["braceexpand"] = True
        self.options["hashall"] = True
        self.options["interactive-comments"] = True
        self.shopt: dict[str, bool] = dict(SHOPT_DEFAULTS)
        self.aliases: dict[str, str] = {}
        self.hash: dict[str, list] = {}  # `hash`: command name -> [path, hits]
        self.cwd = "/"
        self.last_status = 0
        self.last_bg_pid: int | None = None
        self.script_name = "bash"
        self.start_time = time.monotonic()
        self.seconds_base = 0
        # $RANDOM's generator, made when first used: `random` stays off the start-up path
        # (a _random.Random, the same stream without random.py's methods, while only
        # subshells have drawn their seeds from it: see _next_seed)
        self._rng: random.Random | _random.Random | None = None
        self._rng_seed: float | None = None  # None: seeded from the OS (a fresh session)
        self._lineno = 1
        self.lineno_frozen = 0  # >0 while a trap runs: $LINENO keeps the trapped line
        self.traps: dict[str, str] = {}
        self.dir_stack: list[str] = []
        self.source_stack: list[str] = []
        self.call_stack: list[CallEntry] = []
        self.namerefs_used = False  # set by the first `declare -n`: lookups skip refs till then
        self.function_files: dict[str, str] = {}  # function name -> the file defining it
        self.main_file: str | None = None  # the script file being run (None: -c, the API)
        self.umask = 0o022
        self.bashpid = 4242
        self.disabled_builtins: frozenset[str] = frozenset()  # `enable -n`
        # the session's process ids: its subshells and nested shells draw from this one counter
        # (shared by copies of the state, never by two sessions)
        self.pids: Iterator[int] = itertools.count(5000)
        # the token this state stamps its variables with (see Owner): a fork replaces it
        self.owner = Owner()
        self.holds = False  # whether a variable of this line was ever charged (see Owner)
        # exported() is kept with the env_version it was built at; every change that can
        # alter it moves env_version on (env_changed), to a number no state of the session
        # had: states with one env_version have one environment, so a subshell's build
        # serves its parent and siblings too (the counter and the kept build are shared)
        self._env_versions: Iterator[int] = itertools.count(1)
        self.env_version = 0
        self._env_kept: list[tuple[int, dict[str, str]] | None] = [None]
        # command searches remembered under the hash table (interp.lookup.find_in_path):
        # shared by the subshells of this state, whose own finds die with them
        self.search_cache: dict[tuple[str, str, str],
                                tuple[int, object, tuple[str | None, str | None]]] = {}

    @property
    def random(self) -> random.Random:
        """The generator behind $RANDOM (seeded by assigning RANDOM)."""
        rng = self._rng
        if rng is None or type(rng).__module__ == "_random":
            import random

            full = random.Random(self._rng_seed)
            if rng is not None:  # subshells drew from the bare generator: go on from there
                full.setstate((random.Random.VERSION, rng.getstate(), None))
            rng = self._rng = full
        return cast("random.Random", rng)  # the bare generator was replaced just above

    def _next_seed(self) -> float:
        """The next draw of $RANDOM's generator, a subshell's seed.  Until $RANDOM is read,
        the generator is _random's (what random.Random is built on: the same sequence), so a
        pipeline does not import random.py and what it imports."""
        rng = self._rng
        if rng is None:
            import _random

            rng = self._rng = _random.Random(self._rng_seed)
        return rng.random()

    @property
    def lineno(self) -> int:
        return self._lineno

    @lineno.setter
    def lineno(self, value: int) -> None:
        if not self.lineno_frozen:
            self._lineno = value

    # --- copying -----------------------------------------------------------------
    def subshell(self) -> ShellState:
        """A copy for a subshell, pipeline stage or command substitution.

        It behaves as a deep copy, but copies only the containers: the variables are shared
        until one side changes one (see Owner), so a fork costs no per-variable work."""
        new = ShellState.__new__(ShellState)
        new.__dict__.update(self.__dict__)
        new.globals = dict(self.globals)
        new.frames = [Frame(f.name, dict(f.locals), list(f.positional)) for f in self.frames]
        new.positional = list(self.positional)
        new.functions = dict(self.functions)
        new.options = dict(self.options)
        new.shopt = dict(self.shopt)
        new.aliases = dict(self.aliases)
        # a subshell's finds stay its own (an entry is replaced, never changed in place)
        new.hash = dict(self.hash)
        # a subshell resets caught signals (ignored ones stay); -E keeps ERR, -T DEBUG/RETURN
        traps = self.traps
        if traps:
            options = self.options
            kept = {"ERR"} if options.get("errtrace") else set()
            if options.get("functrace"):
                kept |= {"DEBUG", "RETURN"}
            new.traps = {k: v for k, v in traps.items() if (not v and k != "EXIT") or k in kept}
        else:
            new.traps = {}
        new.dir_stack = list(self.dir_stack)
        new.source_stack = list(self.source_stack)
        new.call_stack = list(self.call_stack)
        new.function_files = dict(self.function_files)
        ulimits = self.__dict__.get("ulimits")
        if ulimits is not None:
            new.ulimits = dict(ulimits)  # `ulimit` changes its table in place
        # the copy's generator is seeded from the parent's now (so the parent's sequence moves
        # on as before) but made only when used: most subshells never read $RANDOM
        new._rng = None
        new._rng_seed = self._next_seed()
        new.bashpid = self.new_pid()
        if self.holds:  # a charged variable is the parent's alone (see Owner)
            for scope, into in zip([self.globals, *(f.locals for f in self.frames)],
                                   [new.globals, *(f.locals for f in new.frames)], strict=True):
                for k, v in scope.items():
                    if v.hold is not None:
                        into[k] = Var(v.value, set(v.attrs))
        # from now on every variable either side holds is shared: each copies before changing
        self.owner = Owner()
        new.owner = Owner()
        return new

    def own(self, scope: dict[str, Var], name: str, v: Var) -> Var:
        """``v`` (which is ``scope[name]``) as this state may change it in place: ``v``
        itself when this state made it since its last fork, else a copy put in its place.

        Every change to a variable goes through here (or is made on a variable just made):
        the other shells that hold ``v`` never see it change."""
        owner = self.owner
        if v.owner is owner:
            return v
        c = v.copy()
        c.owner = owner
        held = v.hold
        if held is not None:  # a charged variable is never shared: its charge comes along
            c.hold = held
            v.hold = None
        scope[name] = c
        return c

    def writable(self, name: str) -> Var | None:
        """The variable :meth:`lookup` finds for ``name`` (namerefs followed), made this
        state's own to change in place (None when there is none)."""
        self.env_version = next(self._env_versions)  # the caller changes it
        scope, key, v = self._locate(name)
        if v is None or scope is None or v.owner is self.owner:
            return v
        return self.own(scope, key, v)

    def writable_here(self, name: str) -> Var | None:
        """The variable ``name`` itself (a nameref not followed), this state's own."""
        self.env_version = next(self._env_versions)  # the caller changes it
        scope, v = self._find(name)
        if v is None or scope is None or v.owner is self.owner:
            return v
        return self.own(scope, name, v)

    def own_var(self, v: Var, name: str) -> Var:
        """``v`` (a variable this state held as ``name``, or as any name) as this state's
        own: for a change after something that may have forked since ``v`` was found."""
        self.env_version = next(self._env_versions)  # the caller changes it
        if v.owner is self.owner:
            return v
        scopes = [f.locals for f in reversed(self.frames)]
        scopes.append(self.globals)
        for scope in scopes:
            if scope.get(name) is v:
                return self.own(scope, name, v)
        for scope in scopes:
            for key, x in scope.items():
                if x is v:
                    return self.own(scope, key, v)
        return v.copy()  # no scope holds it now: a change to it must reach no one

    def new_var(self, scope: dict[str, Var], name: str, value: Value = None,
                attrs: set[str] | None = None) -> Var:
        """A new variable ``name`` in ``scope``, this state's own."""
        v = Var(value, set() if attrs is None else attrs)
        v.owner = self.owner
        scope[name] = v
        self.env_version = next(self._env_versions)  # it may be exported, or hide an exported one
        return v

    def new_pid(self) -> int:
        """A process id for a subshell or a new shell (vshell starts no processes)."""
        return next(self.pids)

    # --- lookup ------------------------------------------------------------------
    def _find(self, name: str) -> tuple[dict[str, Var] | None, Var | None]:
        for frame in reversed(self.frames):
            v = frame.locals.get(name)
            if v is not None:
                return frame.locals, v
        v = self.globals.get(name)
        if v is not None:
            return self.globals, v
        return None, None

    def lookup(self, name: str) -> Var | None:
        """The variable visible under ``name`` (dynamic scoping), namerefs resolved."""
        _, v = self._find(name)
        if v is None and name in _CALL_STACK_ARRAYS:
            return self._call_stack_array(name)
        depth = 0
        while v is not None and "n" in v.attrs and isinstance(v.value, str) and v.value:
            depth += 1
            if depth > 8:  # ref1 -> ref2 -> ref1: bash warns and reads nothing
                if self.warn_hook is not None:
                    self.warn_hook(f"warning: {name}: circular name reference")
                return None
            target = v.value
            if "[" in target:
                return v
            _, nv = self._find(target)
            if nv is None:
                return None
            v = nv
        return v

    def _locate(self, name: str) -> tuple[dict[str, Var] | None, str, Var | None]:
        """(scope, name there, variable) of what :meth:`lookup` finds, for a change to it
        (scope None: a variable no scope holds, made up for the reading)."""
        scope, v = self._find(name)
        if v is None:
            if name in _CALL_STACK_ARRAYS:
                return None, name, self._call_stack_array(name)
            return None, name, None
        depth = 0
        first = name
        while "n" in v.attrs and isinstance(v.value, str) and v.value:
            depth += 1
            if depth > 8:  # as lookup: bash warns and finds nothing
                if self.warn_hook is not None:
                    self.warn_hook(f"warning: {first}: circular name reference")
                return None, name, None
            target = v.value
            if "[" in target:
                return scope, name, v
            scope, nv = self._find(target)
            if nv is None:
                return None, target, None
            name, v = target, nv
        return scope, name, v

    def current_file(self) -> str:
        """The file whose code runs now, as BASH_SOURCE names it (bash: "environment" for -c)."""
        if self.source_stack:
            return self.source_stack[-1]
        return self.main_file or "environment"

    def call_stack_arrays(self) -> tuple[list[str], list[str], list[str]]:
        """FUNCNAME, BASH_SOURCE and BASH_LINENO, innermost first (``main`` for a script)."""
        entries = list(reversed(self.call_stack))
        names = [e.name for e in entries]
        files = [e.file for e in entries]
        lines = [str(e.line) for e in entries]
        if self.main_file is not None:
            names.append("main")
            files.append(self.main_file)
            lines.append("0")
        return names, files, lines

    def _call_stack_array(self, name: str) -> Var | None:
        names, files, lines = self.call_stack_arrays()
        if name == "FUNCNAME":
            if not any(e.is_function for e in self.call_stack):
                return None  # bash: unset outside functions
            items = names
        else:
            items = files if name == "BASH_SOURCE" else lines
        return Var(dict(enumerate(items)), {"a"}) if items else None

    def resolve_name(self, name: str) -> str:
        """Follow namerefs: the name a variable access really means."""
        if not self.namerefs_used:
            return name
        seen = 0
        first = name
        while seen < 10:
            _, v = self._find(name)
            if v is None or "n" not in v.attrs or not isinstance(v.value, str) or not v.value:
                return name
            name = v.value
            seen += 1
        raise ShellError(f"warning: {first}: circular name reference", abort_line=True)

    def get(self, name: str) -> str | None:
        """Scalar value (element 0 of an array), or None when unset."""
        if name in _SPECIAL_NAMES:
            special = self._special(name)
            if special is not None:
                return special
        # the usual case first: the variable found by _find, no nameref to follow
        frames = self.frames
        v = None
        if frames:
            for frame in reversed(frames):
                v = frame.locals.get(name)
                if v is not None:
                    break
        if v is None:
            v = self.globals.get(name)
        if v is None or "n" in v.attrs:
            v = self.lookup(name)
            if v is None:
                return None
        val = v.value
        if "n" in v.attrs and isinstance(val, str) and val.endswith("]") and "[" in val:
            return self._element_by_ref(val)
        if isinstance(val, dict):
            return val.get(0) if "A" not in v.attrs else val.get("0")  # type: ignore[call-overload]  # Var.value is dict[int, str] | dict[str, str]; this branch holds one kind
        return val

    def _element_by_ref(self, ref: str) -> str | None:
        """The value a nameref like ``a[2]`` points at."""
        base, _, sub = ref[:-1].partition("[")
        target = self.lookup(base)
        if target is None:
            return None
        val = target.value
        if not isinstance(val, dict):
            return val if sub in ("0", "@", "*") else None
        if "A" in target.attrs:
            return val.get(self.ref_key(sub))  # type: ignore[call-overload]  # Var.value is dict[int, str] | dict[str, str]; this branch holds one kind
        try:
            idx = self.eval_index(sub)
        except (ShellError, ValueError):
            return None
        return val.get(idx)  # type: ignore[call-overload]  # Var.value is dict[int, str] | dict[str, str]; this branch holds one kind

    def _special(self, name: str) -> str | None:
        if name == "RANDOM":
            v = self.lookup("RANDOM")
            if v is not None and "__unset_special" in v.attrs:
                return v.value if isinstance(v.value, str) else None
            return str(self.random.randrange(32768))
        if name == "SECONDS":
            return str(int(time.monotonic() - self.start_time) + self.seconds_base)
        if name == "LINENO":
            return str(self.lineno)
        if name == "EPOCHSECONDS":
            return str(int(time.time()))
        if name == "EPOCHREALTIME":
            return f"{time.time():.6f}"
        if name == "BASHPID":
            return str(self.bashpid)
        if name == "SHELLOPTS":
            return ":".join(k for k in sorted(SET_OPTIONS) if self.options.get(k))
        if name == "BASHOPTS":
            return ":".join(k for k in sorted(self.shopt) if self.shopt[k])
        return None

    def get_plain(self, name: str) -> str | None:
        v = self.globals.get(name)
        return v.value if v is not None and isinstance(v.value, str) else None

    def is_set(self, name: str) -> bool:
        if name in ("RANDOM", "SECONDS", "LINENO", "EPOCHSECONDS", "EPOCHREALTIME", "BASHPID"):
            return True
        v = self.lookup(name)
        if v is None:
            return False
        if isinstance(v.value, dict):
            return bool(v.value)
        return v.value is not None

    # --- assignment --------------------------------------------------------------
    def _target(self, name: str, *, local: bool = False) -> tuple[dict[str, Var], str]:
        name = self.resolve_name(name)
        if local and self.frames:
            return self.frames[-1].locals, name
        scope, _ = self._find(name)
        return (scope if scope is not None else self.globals), name

    def set(self, name: str, value: str, *, local: bool = False, append: bool = False) -> None:
        """Assign a scalar (or element 0 of an array), honouring attributes."""
        if "[" in name and name.endswith("]"):
            base, _, sub = name[:-1].partition("[")
            self.set_element(base, sub, value, append=append)
            return
        if self.namerefs_used:
            ref_scope, ref = self._find(name)
            if ref is not None and "n" in ref.attrs and not ref.value and not local:
                assert ref_scope is not None
                # a nameref with no target yet: the value names the target
                self.own(ref_scope, name, ref).value = value
                self.env_version = next(self._env_versions)
                return
            target = self.resolve_name(name)
            if target != name and "[" in target and target.endswith("]"):  # an element ref
                base, _, sub = target[:-1].partition("[")
                bv = self.lookup(base)
                if bv is not None and "A" in bv.attrs:
                    sub = self.ref_key(sub)
                self.set_element(base, sub, value, append=append)
                return
        frames = self.frames
        if self.namerefs_used:
            scope, name = self._target(name, local=local)
        elif local and frames:
            scope = frames[-1].locals
        else:  # _target without namerefs: the innermost scope that has the name
            scope = self.globals
            for frame in reversed(frames):
                if name in frame.locals:
                    scope = frame.locals
                    break
        if name in _SHELL_OPTION_VARS:
            raise ShellError(f"{name}: readonly variable")
        v = scope.get(name)
        if v is None:
            v = self.new_var(scope, name, None, {"x"} if self.options.get("allexport") else None)
        elif v.owner is not self.owner:
            v = self.own(scope, name, v)
        attrs = v.attrs
        if attrs:
            if "r" in attrs:
                raise ShellError(f"{name}: readonly variable")
            value = self._apply_attrs(v, value, append)
            if "i" in attrs:
                v = self.own_var(v, name)  # the arithmetic may have forked ($( )) or changed it
                attrs = v.attrs
        cur = v.value
        if isinstance(cur, dict):
            key: Any = "0" if "A" in attrs else 0
            if append:
                value = cur.get(key, "") + value
            cur[key] = value
        else:
            if append and cur is not None and "i" not in attrs:
                value = cur + value
            v.value = value
        if "x" in attrs:
            self.env_version = next(self._env_versions)
        if len(value) >= _BIG or v.hold is not None:
            self._charge(v)
        if name not in _SET_SPECIAL:
            return
        if name == "SECONDS":
            try:
                self.seconds_base = int(value)
                self.start_time = time.monotonic()
            except ValueError:
                pass
        elif name == "RANDOM":
            try:
                self.random.seed(int(value))
            except ValueError:
                pass

    def _apply_attrs(self, v: Var, value: str, append: bool) -> str:
        if "i" in v.attrs and self.arith_hook is not None:
            if append:
                cur = v.value if isinstance(v.value, str) else "0"
                value = str(self.arith_hook(f"({cur or 0})+({value or 0})"))
            else:
                value = str(self.arith_hook(value or "0"))
        if "l" in v.attrs:
            value = value.lower()
        elif "u" in v.attrs:
            value = value.upper()
        return value

    arith_hook: Any = None  # set by the interpreter: evaluate an arithmetic expression
    word_hook: Any = None  # set by the interpreter: expand a word (quotes, $key)
    warn_hook: Any = None  # set by the interpreter: print ``bash: line N: message``

    def ref_key(self, sub: str) -> str:
        """An associative subscript a nameref names (``A["K"]``, ``A[$key]``), expanded."""
        return self.word_hook(sub) if self.word_hook is not None else sub

    def set_element(self, name: str, sub: str | int, value: str, *, append: bool = False,
                    local: bool = False) -> None:
        scope, name = self._target(name, local=local)
        if "[" in name:  # `ref[0]=x` through a nameref to an element: bash refuses
            raise ShellError(f"`{name}': not a valid identifier", abort_line=True)
        v = scope.get(name)
        if v is None:
            v = self.new_var(scope, name, None, {"a"})
        elif v.owner is not self.owner:
            v = self.own(scope, name, v)
        if "r" in v.attrs:
            raise ShellError(f"{name}: readonly variable")
        if "x" in v.attrs:
            # an exported scalar made an array leaves the environment
            self.env_version = next(self._env_versions)
        if not append:
            value = self._apply_attrs(v, value, False)
            if "i" in v.attrs:
                v = self.own_var(v, name)  # the arithmetic may have forked or changed it
        if "A" in v.attrs:
            d = v.value if isinstance(v.value, dict) else {}
            key = str(sub)
            if append:
                value = d.get(key, "") + value  # type: ignore[call-overload]  # Var.value is dict[int, str] | dict[str, str]; this branch holds one kind
            d[key] = value  # type: ignore[index]  # Var.value is dict[int, str] | dict[str, str]; this branch holds one kind
            v.value = d
            if len(value) >= _BIG:
                self._charge(v)
            return
        if not isinstance(v.value, dict):
            old = v.value
            v.value = {} if old is None else {0: old}
            v.attrs.add("a")
        if isinstance(sub, int):
            idx = sub
        else:
            idx = self.eval_index(sub)
            v = self.own_var(v, name)  # the arithmetic may have forked or changed it
        d2: dict[int, str] = v.value  # type: ignore[assignment]  # Var.value is dict[int, str] | dict[str, str]; this branch holds one kind
        if idx < 0:
            top = max(d2) + 1 if d2 else 0
            if idx + top < 0:
                raise ShellError(f"{name}[{sub}]: bad array subscript")
            idx += top
        if append:
            value = d2.get(idx, "") + value
        d2[idx] = value
        if len(value) >= _BIG:
            self._charge(v)

    def eval_index(self, sub: str) -> int:
        if self.arith_hook is None:
            return int(sub)
        return int(self.arith_hook(sub))

    def set_array(self, name: str, items: dict[int, str] | dict[str, str], *, assoc: bool = False,
                  local: bool = False, append: bool = False) -> None:
        scope, name = self._target(name, local=local)
        v = scope.get(name)
        if v is None:
            v = self.new_var(scope, name)
        elif v.owner is not self.owner:
            v = self.own(scope, name, v)
        if "r" in v.attrs:
            raise ShellError(f"{name}: readonly variable")
        if "x" in v.attrs:
            self.env_version = next(self._env_versions)
        if assoc or "A" in v.attrs:
            v.attrs.add("A")
            v.attrs.discard("a")
            base: dict[Any, str] = dict(v.value) if append and isinstance(v.value, dict) else {}
            base.update(items)
            v.value = base
        else:
            v.attrs.add("a")
            if append:
                cur = v.value
                if isinstance(cur, str):
                    cur = {0: cur}
                base2: dict[int, str] = dict(cast("dict[int, str]", cur)) if isinstance(
                    cur, dict) else {}  # an indexed array
                start = max(base2) + 1 if base2 else 0
                keyed: dict[Any, str] = items
                for k in sorted(keyed):
                    base2[start + int(k)] = keyed[k]
                v.value = base2
            else:
                v.value = dict(items)
        if v.hold is not None or len(items) * 120 >= _BIG or any(
                len(x) >= _BIG for x in items.values()):
            self._charge(v)

    memory: MemoryBudget | None = None  # the sandbox's; shell data is charged to it

    def _charge(self, v: Var) -> None:
        """Make ``v``'s memory charge its value's size now (bash's xmalloc failing past the
        sandbox's limit raises MemoryLimitError; the old value is given back first)."""
        value = v.value
        if isinstance(value, dict):
            # each element costs ~120 bytes beyond its text (its str, key and dict slot)
            size = sum(map(len, value.values())) + 120 * len(value)
        else:
            size = len(value or "")
        v.hold = None
        try:
            v.hold = hold(self.memory, size)
            if v.hold is not None:
                self.holds = True
        except ShellError:
            v.value = None  # as if the allocation had failed: the value is not kept
            self.env_version = next(self._env_versions)
            raise

    def unset(self, name: str) -> None:
        scope, v = self._find(name)
        if v is None:
            return
        self.env_version = next(self._env_versions)
        if "r" in v.attrs:
            raise ShellError(f"{name}: cannot unset: readonly variable")
        if scope is not self.globals and self.frames and scope is self.frames[-1].locals \
                and TEMPENV_ATTR not in v.attrs:
            # unsetting a local in its own function leaves it local but unset (bash 5.2);
            # from a function it called, or a prefix binding, it goes and the outer shows
            self.new_var(scope, name)
            return
        assert scope is not None
        del scope[name]

    def exported(self) -> dict[str, str]:
        """The environment a command sees: exported scalars, innermost scope winning.

        Built once and kept until ``env_version`` moves (see ``env_changed``), for every
        state of the session at that version; each caller gets a dict of its own."""
        box = self._env_kept
        kept = box[0]
        version = self.env_version
        if kept is not None and kept[0] == version:
            return dict(kept[1])
        env = self.build_env()
        box[0] = (version, env)  # never changed after: each caller gets a copy
        return dict(env)

    def build_env(self) -> dict[str, str]:
        """What :meth:`exported` returns, made from the scopes now."""
        env: dict[str, str] = {}
        globals_ = self.globals
        for k, v in globals_.items():
            if "x" in v.attrs:
                value = v.value
                if isinstance(value, str):
                    env[k] = value
        # an inner scope's exported value wins; a local that is not exported, or has no
        # value, hides nothing (bash: `export A=1; f() { local +x A=3; env; }` shows A=1)
        for f in self.frames:
            for k, v in f.locals.items():
                if "x" in v.attrs and isinstance(v.value, str):
                    env[k] = v.value
        return env

    def env_changed(self) -> None:
        """Something :meth:`exported` reads may have changed: an exported variable's value,
        a variable's attributes, a scope's names (every change of a variable made outside
        this class's setters says so)."""
        self.env_version = next(self._env_versions)

    def all_names(self) -> list[str]:
        names = set(self.globals)
        for f in self.frames:
            names.update(f.locals)
        return sorted(n for n in names if self.lookup(n) is not None)
