"""Word expansion in bash's order: brace → tilde → parameter / command / arithmetic →
field splitting → pathname expansion → quote removal.

Expanded text is carried as segments that remember how each piece was quoted, because
splitting only cuts unquoted expansion results and globbing only honours unquoted
characters.
"""

from __future__ import annotations

from operator import itemgetter

from vshell.interp import limits
from vshell.interp.control import PLAIN_CHARS
from vshell.interp.state import ShellError
from vshell.lazy import lazy_function, lazy_module
from vshell.records import cast

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from vshell.interp.assoc_order import bash_order
    from vshell.interp.expand_host import ExpansionHost
    from vshell.interp.fatal import UnboundError
    from vshell.syntax import words as W
else:  # imported at first use (start-up): a stand-in puts the real one in its place
    bash_order = lazy_function("vshell.interp.assoc_order", "bash_order", globals())
    UnboundError = lazy_function("vshell.interp.fatal", "UnboundError", globals())

    W = lazy_module("vshell.syntax.words")  # the word lexer: a word that is not plain


def _decimal(text: str) -> int | None:
    """``text`` as a number when it is a plain decimal one (``${s:3:4}``), which needs no
    arithmetic; None otherwise (``010`` is octal there, ``i+1`` an expression)."""
    if text.isdigit() and text.isascii() and (text[0] != "0" or len(text) == 1):
        return int(text)
    return None


_UNEXPANDING_PATTERN = frozenset("$`'\"\\~").isdisjoint
"""Whether a pattern word is its own pattern: no expansion, quote, escape or tilde."""


# segment kinds
LIT = 0  # unquoted text from the source: globbed, not split
QUO = 1  # quoted: neither split nor globbed
EXP = 2  # unquoted expansion result: split and globbed
BREAK = None  # a field boundary forced by "$@" / ${a[@]}
_first = itemgetter(0)

Seg = tuple[str, int]

_GLOB_CHARS = frozenset("*?[")
_PAT_SPECIAL = frozenset("*?[]\\!@+()|^-")  # "-": a quoted dash in [a\-z] is literal


def _lex_arith(raw: str) -> list[W.Part]:
    return W.lex_word(raw, tilde=False)


class ExpansionError(ShellError):
    pass


def _guard(fn, raw: str):
    """Lex word text; a ``${…}`` bash cannot read is a fatal "bad substitution"."""
    try:
        return fn(raw)
    except W.BadSubst as e:
        raise ExpansionError(str(e), status=1, abort_line=True) from None  # as bash does


def lex_word(raw: str, **kw: bool) -> list[W.Part]:
    try:
        return W.lex_word(raw, **kw)
    except W.BadSubst as e:
        raise ExpansionError(str(e), status=1, abort_line=True) from None  # as bash does


def _towcase(text: str, upper: bool) -> str:
    """Case conversion a character at a time, as bash's towupper: a character whose case
    mapping is several characters (``ß`` -> ``SS``) stays as it is."""
    if text.isascii():  # one character to one: the same as the loop below
        return text.upper() if upper else text.lower()
    import unicodedata

    out = []
    for ch in text:
        mapped = ch.upper() if upper else ch.lower()
        if len(mapped) > 1:  # İ -> i + combining dot: the base letter, as glibc maps it
            mapped = mapped[0] if all(unicodedata.combining(c) for c in mapped[1:]) else ch
        out.append(mapped)
    return "".join(out)


def escape_glob(text: str) -> str:
    """Backslash-escape pattern characters so ``text`` matches only itself."""
    if not any(c in _PAT_SPECIAL for c in text):
        return text
    return "".join("\\" + c if c in _PAT_SPECIAL else c for c in text)


class Expander:
    """Expands words for one shell; ``sh`` supplies state, substitutions and the VFS."""

    def __init__(self, sh: ExpansionHost) -> None:
        self.sh = sh

    # --- entry points ------------------------------------------------------------
    def words(self, raws: list[str]) -> list[str]:
        """Full expansion of command words into fields."""
        out: list[str] = []
        st = self.sh.state
        plain = PLAIN_CHARS.issuperset
        for raw in raws:
            if raw and plain(raw):  # nothing to expand, split or glob: the word is its field
                out.append(raw)
                continue
            items = [raw]
            if st.options.get("braceexpand") and "{" in raw:
                from vshell.interp.braces import BraceExpansionError
                from vshell.interp.braces import expand as brace_expand

                try:
                    items = brace_expand(raw, self.sh.check)
                except BraceExpansionError as e:
                    raise ExpansionError(str(e), fatal=True) from None
            for count, item in enumerate(items):
                if count & 4095 == 4095:
                    self.sh.check()  # `{1..4000000}`: the words are many, the run may stop
                parts = lex_word(item)
                if len(parts) == 1:
                    p0 = parts[0]
                    if type(p0) is W.Lit:
                        text = p0.text
                        if not (_GLOB_CHARS & set(text) or self._extglob_in(text)) or \
                                st.options.get("noglob"):
                            out.append(text)
                            continue
                        from vshell.text.glob import has_magic

                        if not has_magic(text, st.shopt.get("extglob", False)):
                            out.append(text)  # `[` alone: no pattern, as split_and_glob finds
                            continue
                    elif type(p0) is W.Param and _plain_param(p0):  # `$x`, `${x}`
                        value = st.get(p0.name)
                        if value is None and not st.options.get("nounset"):
                            continue  # no field
                        if value is not None and self._one_field(value):
                            if value:
                                out.append(value)
                            continue
                    elif type(p0) is W.Quoted:  # 'text': one field, as it is
                        out.append(p0.text)
                        continue
                    elif type(p0) is W.DQ:
                        inner = p0.parts
                        if all(type(q) is W.Quoted for q in inner):  # "text"
                            out.append("".join([q.text for q in inner]))  # type: ignore[union-attr]  # all Quoted
                            continue
                        if len(inner) == 1 and type(inner[0]) is W.Param and _plain_param(
                                inner[0]):  # "$x"
                            value = st.get(inner[0].name)
                            if value is not None or not st.options.get("nounset"):
                                out.append(value or "")  # one field, as it is
                                continue
                segs = self.parts(parts, quoted=False)
                out.extend(self.split_and_glob(segs))
        return out

    def word(self, raw: str, *, assign: bool = False) -> str:
        """Expansion without splitting or globbing (assignments, here-strings, case word)."""
        parts = lex_word(raw, assign=assign)
        if len(parts) == 1:  # the usual whole words, without the segment machinery
            p0: Any = parts[0]  # (Any: each branch below knows its kind by type(p0))
            t0 = type(p0)
            if t0 is W.Lit or t0 is W.Quoted:
                text: str = p0.text
                return text
            st = self.sh.state
            if t0 is W.Param and _plain_param(p0):  # $x
                value = st.get(p0.name)
                if value is not None:
                    return value
                if not st.options.get("nounset"):
                    return ""
            elif t0 is W.DQ:
                inner = p0.parts
                if all(type(q) is W.Quoted for q in inner):  # "text"
                    return "".join([q.text for q in inner])
                if len(inner) == 1 and type(inner[0]) is W.Param and _plain_param(
                        inner[0]):  # "$x"
                    value = st.get(inner[0].name)
                    if value is not None or not st.options.get("nounset"):
                        return value or ""
            elif t0 is W.ArithSub:
                arith_parts = p0.parts
                # $((n+1)): no $ (a Lit or Quoted part is text, as string_parts gives it)
                if len(arith_parts) == 1 and type(arith_parts[0]) in (W.Lit, W.Quoted):
                    return str(self.sh.arith(arith_parts[0].text, p0.raw))
        segs = self.parts(parts, quoted=False, assign=assign, nosplit=True)
        if len(segs) > 1:
            self._check_size(segs)
        return "".join(" " if s is BREAK else s[0] for s in segs)

    def _check_size(self, segs: list[Seg | None]) -> None:
        """Refuse, before joining them, pieces that together pass the memory limit."""
        total = sum(map(len, map(_first, filter(None, segs))))  # BREAK is None: skipped
        if total >= limits.THRESHOLD:
            limits.need(self.sh.state.memory, total)

    def redirect_target(self, raw: str) -> str:
        """A redirection's file word: expanded; a glob must name exactly one file."""
        if raw and PLAIN_CHARS.issuperset(raw):  # `>> /tmp/log`: the word itself
            return raw
        if "{" in raw and self.sh.state.options.get("braceexpand"):
            from vshell.interp.braces import expand as brace_expand

            if len(brace_expand(raw)) > 1:
                raise ExpansionError(f"{raw}: ambiguous redirect")
        parts = lex_word(raw)
        segs = self.parts(parts, quoted=False)
        fields = self.split_and_glob(segs)
        if len(fields) != 1:
            raise ExpansionError(f"{raw}: ambiguous redirect")
        return fields[0]

    def pattern(self, raw: str) -> str:
        """A pattern word (case, [[ == ]]): quoted characters escaped, no splitting."""
        if _UNEXPANDING_PATTERN(raw):  # `0`, `*.txt`, `@(a|b)`: the word is the pattern
            return raw
        parts = lex_word(raw)
        return self.pattern_parts(parts)

    def pattern_parts(self, parts: list[W.Part]) -> str:
        return self._quoted_literal(parts, escape_glob)

    def regex_word(self, raw: str) -> str:
        """The right side of ``=~``: quoted parts match literally."""
        import re

        return self._quoted_literal(lex_word(raw), re.escape)

    def _quoted_literal(self, parts: list[W.Part], escape: Callable[[str], str]) -> str:
        """One unsplit pattern word whose quoted text is made literal by ``escape``."""
        out = []
        for s in self.parts(parts, quoted=False):
            if s is BREAK:
                out.append(" ")
            elif s[1] == QUO:
                out.append(escape(s[0]))
            else:
                out.append(s[0])
        return "".join(out)

    def string_parts(self, parts: list[W.Part]) -> str:
        segs = self.parts(parts, quoted=True)
        if len(segs) > 1:
            self._check_size(segs)
        return "".join(" " if s is BREAK else s[0] for s in segs)

    def heredoc(self, body: str) -> str:
        return self.string_parts(_guard(W.lex_heredoc, body))

    def arith_text(self, raw: str) -> str:
        """The text of an arithmetic expression after ``$`` expansions and quote removal."""
        if "$" not in raw and "`" not in raw and '"' not in raw and "'" not in raw \
                and "\\" not in raw:
            return raw
        parts = _guard(_lex_arith, raw)  # cached: a loop's `$(( $i + 1 ))` is lexed once
        segs = self.parts(parts, quoted=True)
        return "".join(" " if s is BREAK else s[0] for s in segs)

    # --- splitting and globbing ---------------------------------------------------
    def split_and_glob(self, segs: list[Seg | None]) -> list[str]:
        if len(segs) > 1:
            self._check_size(segs)
        fields = self.split(segs)
        st = self.sh.state
        out: list[str] = []
        noglob = st.options.get("noglob")
        extglob = st.shopt.get("extglob", False)
        for f in fields:
            if noglob or not any(k != QUO and (_GLOB_CHARS & set(t) or self._extglob_in(t))
                                 for t, k in f):
                out.append("".join(t for t, _ in f))
                continue
            pat = "".join(escape_glob(t) if k == QUO else t for t, k in f)
            from vshell.text.glob import has_magic

            if not has_magic(pat, extglob):
                out.append("".join(t for t, _ in f))
                continue
            matches = self.sh.glob(pat)
            if matches:
                out.extend(matches)
            elif st.shopt.get("failglob"):
                raise ExpansionError(f"no match: {''.join(t for t, _ in f)}", abort_line=True)
            elif st.shopt.get("nullglob"):
                continue
            else:
                out.append("".join(t for t, _ in f))
        return out

    def _one_field(self, value: str) -> bool:
        """Whether an unquoted expansion giving ``value`` is ``value`` itself: nothing in it
        that splitting cuts or pathname expansion matches."""
        ifs = self.sh.state.get("IFS")
        if ifs is None or ifs == " \t\n":
            if " " in value or "\t" in value or "\n" in value:
                return False
        elif any(c in value for c in ifs):
            return False
        return not (_GLOB_CHARS & set(value) or self._extglob_in(value))

    def _extglob_in(self, t: str) -> bool:
        return self.sh.state.shopt.get("extglob", False) and "(" in t and any(
            c + "(" in t for c in "@!+"
        )

    def split(self, segs: list[Seg | None]) -> list[list[Seg]]:
        """IFS field splitting of unquoted expansion results (bash's rules)."""
        ifs = self.sh.state.get("IFS")
        if ifs is None:
            ifs = " \t\n"
        ws = "".join(c for c in ifs if c in " \t\n")
        fields: list[list[Seg]] = []
        cur: list[Seg] = []
        started = False
        after_ws = False  # just ended a field at IFS whitespace
        for seg in segs:
            if seg is BREAK:
                if started or cur:
                    fields.append(cur)
                cur, started, after_ws = [], False, False
                continue
            text, kind = seg
            if kind != EXP or not ifs:
                if kind == QUO:
                    started = True
                if text:
                    cur.append((text, kind))
                    started = True
                    after_ws = False
                continue
            start = 0
            i = 0
            n = len(text)
            while i < n:
                c = text[i]
                if c not in ifs:
                    i += 1
                    continue
                if i > start:
                    cur.append((text[start:i], EXP))
                    started = True
                if c in ws:
                    if started:
                        fields.append(cur)
                        cur, started = [], False
                        after_ws = True
                else:  # a non-whitespace delimiter
                    if started or not after_ws:
                        fields.append(cur)
                        cur, started = [], False
                    after_ws = False
                # the delimiter and the IFS whitespace after it end the field
                i += 1
                while i < n and text[i] in ws:
                    i += 1
                start = i
            if start < n:
                cur.append((text[start:], EXP))
                started = True
                after_ws = False
        if started:
            fields.append(cur)
        return fields

    # --- the part walker ------------------------------------------------------------
    def parts(self, parts: list[W.Part], *, quoted: bool, assign: bool = False,
              nosplit: bool = False) -> list[Seg | None]:
        """Expand word parts into segments; ``nosplit``: a context without field splitting
        (assignment, ``case``, ``[[``, here-string), where bash joins ``$*`` with IFS's
        first character."""
        out: list[Seg | None] = []
        for p in parts:
            t = type(p)
            if t is W.Lit:
                out.append((p.text, QUO if quoted else LIT))  # type: ignore[union-attr]  # dispatch on type(x) is C, which mypy does not narrow
            elif t is W.Quoted:
                out.append((p.text, QUO))  # type: ignore[union-attr]  # dispatch on type(x) is C, which mypy does not narrow
            elif t is W.DQ:
                inner = self.parts(p.parts, quoted=True)  # type: ignore[union-attr]  # dispatch on type(x) is C, which mypy does not narrow
                if not inner:
                    out.append(("", QUO))
                else:
                    out.extend(inner)
            elif t is W.Param:
                segs = self.param(p, quoted)  # type: ignore[arg-type]  # dispatch on type(x) is C, which mypy does not narrow
                if not quoted and BREAK in segs:
                    segs = self._join_unquoted_list(segs, p, nosplit)  # type: ignore[arg-type]  # dispatch on type(x) is C, which mypy does not narrow
                out.extend(segs)
            elif t is W.CmdSub:
                text = self.sh.command_substitution(p.source)  # type: ignore[union-attr]  # dispatch on type(x) is C, which mypy does not narrow
                out.append((text, QUO if quoted else EXP))
            elif t is W.ArithSub:
                text = self.string_parts(p.parts)  # type: ignore[union-attr]  # dispatch on type(x) is C, which mypy does not narrow
                val = self.sh.arith(text, p.raw)  # type: ignore[union-attr]  # dispatch on type(x) is C, which mypy does not narrow
                out.append((str(val), QUO if quoted else EXP))
            elif t is W.ProcSub:
                path = self.sh.process_substitution(p.op, p.source)  # type: ignore[union-attr, arg-type]  # dispatch on type(x) is C, which mypy does not narrow
                out.append((path, QUO))
            elif t is W.Tilde:
                out.append((self.tilde(p.user), QUO))  # type: ignore[union-attr]  # dispatch on type(x) is C, which mypy does not narrow
        return out

    def _join_unquoted_list(self, segs: list[Seg | None], p: W.Param, nosplit: bool
                            ) -> list[Seg | None]:
        """bash joins the elements of an unquoted ``$@``/``$*``/``${a[@]}`` with IFS's first
        character and then splits the result, so with ``IFS=x`` an empty element before
        another still makes a field.  Where nothing is split, ``$*`` joins with that
        character and ``$@`` with a space.  With IFS null the elements stay separate."""
        sep = self._ifs_first()
        if nosplit:
            if "*" not in (p.name, p.index):
                return segs
        elif sep == "":
            return segs
        return [(sep, EXP) if s is BREAK else s for s in segs]

    def tilde(self, user: str) -> str:
        st = self.sh.state
        if user == "":
            home = st.get("HOME")
            return home if home is not None else "/"
        if user == "+":
            return st.get("PWD") or st.cwd
        if user == "-":
            old = st.get("OLDPWD")
            return old if old is not None else "~-"
        if user == "root":
            return "/root"
        if user == (st.get("USER") or ""):
            return st.get("HOME") or "/"
        return "~" + user

    # --- parameters ----------------------------------------------------------------
    def _values(self, p: W.Param) -> tuple[str | list[str] | None, bool]:
        """(value, is_list): a list for ``$@``, ``$*``, ``${a[@]}``, ``${a[*]}``."""
        st = self.sh.state
        name = p.name
        if name in ("@", "*"):
            return list(st.positional), True
        if p.index is not None:
            if "[" in name:
                raise ExpansionError(f"{p.raw}: bad substitution")
            name = st.resolve_name(name)
            v = st.lookup(name)
            if p.index in ("@", "*"):
                if v is None:
                    return [], True
                val = v.value
                if isinstance(val, dict):
                    if "A" in v.attrs:
                        assoc = cast("dict[str, str]", val)
                        return [assoc[k] for k in bash_order(assoc)], True
                    return [val[k] for k in sorted(val)], True  # type: ignore[index]  # Var.value is dict[int, str] | dict[str, str]; this branch holds one kind
                return ([] if val is None else [val]), True
            if v is None:
                if p.index and not (self._is_assoc_name(name)):
                    self.sh.arith(self.arith_text(p.index), p.index)
                return None, False
            val = v.value
            if "A" in v.attrs:
                key = self.word(p.index) if p.index else ""
                return (val.get(key) if isinstance(val, dict) else None), False  # type: ignore[call-overload]  # Var.value is dict[int, str] | dict[str, str]; this branch holds one kind
            idx = self.sh.arith(self.arith_text(p.index), p.index)
            if isinstance(val, dict):
                if idx < 0:
                    top = max(val) + 1 if val else 0  # type: ignore[operator]  # Var.value is dict[int, str] | dict[str, str]; this branch holds one kind
                    idx += top
                    if idx < 0:  # bash: a message, and the element is unset
                        self.sh.err(f"{p.name}: bad array subscript")
                        return None, False
                return val.get(idx), False  # type: ignore[call-overload]  # Var.value is dict[int, str] | dict[str, str]; this branch holds one kind
            if idx == 0 or idx == -1:
                return val, False
            return None, False
        if name.isdigit():
            k = int(name)
            if k == 0:
                return st.script_name, False
            return (st.positional[k - 1] if k <= len(st.positional) else None), False
        if name == "#":
            return str(len(st.positional)), False
        if name == "?":
            return str(st.last_status), False
        if name == "-":
            return self.sh.dash_flags(), False
        if name == "$":
            return "1" if st.get_plain("$$") is None else st.get_plain("$$"), False
        if name == "!":
            return (None if st.last_bg_pid is None else str(st.last_bg_pid)), False
        return st.get(name), False

    def _is_assoc_name(self, name: str) -> bool:
        v = self.sh.state.lookup(name)
        return v is not None and "A" in v.attrs

    def param(self, p: W.Param, quoted: bool) -> list[Seg | None]:
        st = self.sh.state
        kind = QUO if quoted else EXP
        if p.index == "" and p.raw.startswith("${"):
            # `${a[]}`: bash's bad substitution, which abandons the line
            raise ExpansionError(f"{p.raw}: bad substitution", status=1, abort_line=True)
        if p.prefix == "#":
            return [(self._length(p), kind)]
        if p.prefix == "!":
            return self._bang(p, quoted)
        value, is_list = self._values(p)
        op = p.op
        star = p.name == "*" or p.index == "*"
        if op is None:
            if value is None or (is_list and not value and p.name in ("@", "*")):
                if st.options.get("nounset") and not is_list:
                    self._unbound(p)
                if value is None:
                    return [] if not quoted else [("", QUO)]
            return self._emit(value, is_list, star, quoted)
        if op in (":-", "-", ":=", "=", ":?", "?", ":+", "+"):
            if is_list:
                vals = value if isinstance(value, list) else []
                if star and quoted:
                    sep = self._ifs_first()
                    is_null = sep.join(vals) == ""
                else:
                    is_null = not vals or (len(vals) == 1 and vals[0] == "")
                is_unset = not vals
            else:
                is_unset = value is None
                is_null = is_unset or value == ""
            missing = is_null if op.startswith(":") else is_unset
            base = op.lstrip(":")
            if base == "+":
                if missing:
                    if is_list and not star and not value:  # "${a[@]+x}" of no elements: no word
                        return self._emit([], True, False, quoted)
                    return [] if not quoted else [("", QUO)]
                return self._operand(p.arg, quoted)
            if not missing:
                return self._emit(value, is_list, star, quoted)
            if base == "-":
                segs = self._operand(p.arg, quoted)
                return segs if segs or not quoted else [("", QUO)]
            if base == "=":
                text = self.string_parts(p.arg or []) if quoted else self._segs_text(
                    self.parts(p.arg or [], quoted=False))
                if p.name.isdigit() or p.name in W.SPECIAL_PARAMS:
                    raise ExpansionError(f"${p.name}: cannot assign in this way")
                if p.index in ("@", "*"):
                    raise ExpansionError(f"{p.name}[{p.index}]: bad array subscript", status=2,
                                         abort_line=True)
                if p.index is not None:
                    st.set_element(p.name, p.index if self._is_assoc_name(p.name) else
                                   str(self.sh.arith(self.arith_text(p.index), p.index)), text)
                else:
                    st.set(p.name, text)
                return [(text, kind)]
            # ? / :?
            msg = self.string_parts(p.arg or []) if p.arg else ""
            if not msg:
                msg = "parameter null or not set" if op == ":?" else "parameter not set"
            label = p.name if p.index is None else f"{p.name}[{p.index}]"
            raise UnboundError(f"{label}: {msg}")
        if value is None or (is_list and not value):
            if st.options.get("nounset") and not is_list and op not in ("@Q",):
                self._unbound(p)
            if op in ("@Q", "@A", "@a", "@K", "@k", "@E", "@P", "@U", "@u", "@L"):
                if op == "@a" and not is_list:
                    v = st.lookup(p.name)
                    if v is not None:
                        return [(self._attr_letters(v), kind)]
                return [] if not quoted else [("", QUO)]
            if op == ":" and is_list:
                return self._emit([], True, star, quoted)
            if not quoted:
                return []
            return [("", QUO)]
        vals = cast("list[str]", value if is_list else [value])
        assert isinstance(vals, list)
        if op == ":":
            return self._slice(p, vals, is_list, star, quoted)
        if op in ("#", "##", "%", "%%"):
            import vshell.text.glob as P

            pat = self.pattern_parts(p.arg or [])
            kw = self._pat_flags()
            if op in ("#", "##"):
                res = [P.remove_prefix(v, pat, op == "##", **kw) for v in vals]
            else:
                res = [P.remove_suffix(v, pat, op == "%%", **kw) for v in vals]
            return self._emit(res if is_list else res[0], is_list, star, quoted)
        if op in ("/", "//", "/#", "/%"):
            import vshell.text.glob as P

            pat = self.pattern_parts(p.arg or [])
            amp = st.shopt.get("patsub_replacement", True)
            rep = self._replacement(p.arg2, amp) if p.arg2 else ""
            mode = {"/": "", "//": "/", "/#": "#", "/%": "%"}[op]
            kw = self._pat_flags()
            for text in vals:
                if len(text) * (1 + len(rep)) >= limits.THRESHOLD:
                    limits.need(st.memory, _replaced_size(text, pat, rep, mode))
            check = self.sh.check_cancel
            res = [P.replace(v, pat, rep, mode, ampersand=amp, check=check, **kw) for v in vals]
            return self._emit(res if is_list else res[0], is_list, star, quoted)
        if op in ("^", "^^", ",", ",,"):
            res = [self._case_mod(v, op, p.arg) for v in vals]
            return self._emit(res if is_list else res[0], is_list, star, quoted)
        if op.startswith("@"):
            res2 = self._transform(p, vals, op)
            if res2 is None:
                return []
            return self._emit(res2 if is_list else res2[0], is_list, star, quoted)
        raise ExpansionError(f"{p.raw}: bad substitution")

    def _operand(self, arg: list[W.Part] | None, quoted: bool) -> list[Seg | None]:
        """The word of ``${x-word}``: unquoted, its literal text is split like expansions."""
        segs = self.parts(arg or [], quoted=quoted)
        if quoted:
            return segs
        return [s if s is BREAK or s[1] != LIT else (s[0], EXP) for s in segs]

    def _replacement(self, parts: list[W.Part], amp: bool) -> str:
        """The replacement of ``${v/p/r}``: quoted ``&`` and ``\\`` stay literal."""
        segs = self.parts(parts, quoted=False)
        out = []
        for s in segs:
            if s is BREAK:
                out.append(" ")
            elif amp and s[1] == QUO:
                out.append(s[0].replace("\\", "\\\\").replace("&", "\\&"))
            else:
                out.append(s[0])
        return "".join(out)

    def _attr_letters(self, v) -> str:
        order = "aAilnrtux"
        return "".join(c for c in order if c in v.attrs)

    def _segs_text(self, segs: list[Seg | None]) -> str:
        return "".join(" " if s is BREAK else s[0] for s in segs)

    def _pat_flags(self) -> dict[str, bool]:
        return {"extglob": True, "nocase": False}

    def _ifs_first(self) -> str:
        ifs = self.sh.state.get("IFS")
        if ifs is None:
            return " "
        return ifs[:1]

    def _emit(self, value: str | list[str] | None, is_list: bool, star: bool, quoted: bool
              ) -> list[Seg | None]:
        kind = QUO if quoted else EXP
        if not is_list:
            return [(value or "", kind)] if value or quoted else []  # type: ignore[list-item]  # a str when not a list
        vals = value if isinstance(value, list) else []
        if star and quoted:
            return [(self._ifs_first().join(vals), QUO)]
        out: list[Seg | None] = []
        for i, v in enumerate(vals):
            if i:
                out.append(BREAK)
            out.append((v, kind))
        if not vals and quoted:
            return [("", -1)]  # "$@" with nothing: drops the field unless other text joins
        return out

    def _unbound(self, p: W.Param) -> None:
        label = p.name
        if p.index is not None:
            label = f"{p.name}[{p.index}]"
        elif not p.braced and not (p.name[:1].isalpha() or p.name[:1] == "_"):
            label = f"${p.name}"  # bash names a bare positional or special as written: $1
        raise UnboundError(f"{label}: unbound variable")

    def _length(self, p: W.Param) -> str:
        st = self.sh.state
        if p.name in ("@", "*") and p.index is None:
            return str(len(st.positional))
        if p.index in ("@", "*"):
            vals, _ = self._values(W.Param(p.name, p.index))
            return str(len(vals) if isinstance(vals, list) else 0)
        value, _ = self._values(W.Param(p.name, p.index, raw=p.raw))
        if value is None:
            if st.options.get("nounset"):
                self._unbound(p)
            return "0"
        assert isinstance(value, str)
        return str(len(value))

    def _bang(self, p: W.Param, quoted: bool) -> list[Seg | None]:
        st = self.sh.state
        kind = QUO if quoted else EXP
        if p.op in ("names@", "names*"):
            names = [n for n in st.all_names() if n.startswith(p.name)]
            return self._emit(names, True, p.op == "names*", quoted)
        if p.index in ("@", "*") and p.op is None:  # with an operator: indirection (bash)
            v = st.lookup(st.resolve_name(p.name))
            keys: list[str] = []
            if v is not None:
                if isinstance(v.value, dict):
                    keys = [str(k) for k in (bash_order(cast("dict[str, str]", v.value))
                                             if "A" in v.attrs
                                             else sorted(v.value))]
                elif v.value is not None:
                    keys = ["0"]
            return self._emit(keys, True, p.index == "*", quoted)
        v = st._find(p.name)[1] if p.index is None else None  # the variable itself
        if v is not None and "n" in v.attrs and p.op is None:
            # ${!ref} of a nameref gives the name it refers to (bash inverts it)
            return [(v.value if isinstance(v.value, str) else "", kind)]
        target, _ = self._values(W.Param(p.name, p.index, raw=p.raw))
        if target is None:
            if st.options.get("nounset"):
                self._unbound(p)
            if p.op is None:
                raise ExpansionError(f"{p.name}: invalid indirect expansion", abort_line=True)
            target = ""
        if isinstance(target, list):
            target = " ".join(target)
        if not _valid_ref(target):
            if target == "":
                if p.op is not None:
                    return self.param(W.Param("__vshell_empty__", op=p.op, arg=p.arg,
                                              arg2=p.arg2, raw=p.raw), quoted)
                raise ExpansionError(f"{p.name}: invalid indirect expansion", abort_line=True)
            raise ExpansionError(f"{target}: invalid variable name", abort_line=True)
        name, _, idx = target.partition("[")
        index = idx[:-1] if idx else None
        inner = W.Param(name, index, None, p.op, p.arg, p.arg2, raw=p.raw)
        return self.param(inner, quoted)

    def _slice(self, p: W.Param, vals: list[str], is_list: bool, star: bool, quoted: bool
               ) -> list[Seg | None]:
        off_text = self.string_parts(p.arg or [])
        off = _decimal(off_text)
        if off is None:
            off = self.sh.arith(self.arith_text(off_text), off_text)
        length: int | None = None
        if p.arg2 is not None:
            lt = self.string_parts(p.arg2)
            length = _decimal(lt)
            if length is None:
                length = self.sh.arith(self.arith_text(lt), lt) if lt.strip() else 0
        if is_list:
            seq = vals
            if p.name in ("@", "*") and p.index is None:
                seq = [self.sh.state.script_name] + vals
                if off < 0:
                    off = len(seq) + off
                    if off < 0:
                        return self._emit([], True, star, quoted)
            else:
                if off < 0:
                    # negative offsets count from the highest index + 1
                    v = self.sh.state.lookup(p.name)
                    if v is not None and isinstance(v.value, dict) and "A" not in v.attrs:
                        keys = sorted(v.value)
                        top = keys[-1] + 1 if keys else 0  # type: ignore[operator]  # Var.value is dict[int, str] | dict[str, str]; this branch holds one kind
                        start = top + off
                        if start < 0:
                            return self._emit([], True, star, quoted)
                        seq = [v.value[k] for k in keys if k >= start]  # type: ignore[operator, index]  # Var.value is dict[int, str] | dict[str, str]; this branch holds one kind
                        off = 0
                    else:
                        off = max(0, len(seq) + off)
                elif (v := self.sh.state.lookup(p.name)) is not None and isinstance(
                        v.value, dict) and "A" not in v.attrs:
                    keys = sorted(v.value)
                    seq = [v.value[k] for k in keys if k >= off]  # type: ignore[operator, index]  # Var.value is dict[int, str] | dict[str, str]; this branch holds one kind
                    off = 0
            if length is not None and length < 0:
                raise ExpansionError(f"{length}: substring expression < 0")
            res = seq[off:] if length is None else seq[off : off + length]
            return self._emit(res, True, star, quoted)
        s = vals[0]
        n = len(s)
        if off < 0:
            off = n + off
            if off < 0:
                return [("", QUO)] if quoted else []
        if off > n:
            return [("", QUO)] if quoted else []
        if length is None:
            res1 = s[off:]
        elif length < 0:
            end = n + length
            if end < off:
                raise ExpansionError(f"{length}: substring expression < 0")
            res1 = s[off:end]
        else:
            res1 = s[off : off + length]
        return self._emit(res1, False, star, quoted)

    def _case_mod(self, v: str, op: str, arg: list[W.Part] | None) -> str:
        pat = self.pattern_parts(arg) if arg else ""
        upper = op[0] == "^"
        allchars = len(op) == 2
        if not pat:
            if allchars:
                return _towcase(v, upper)
            return _towcase(v[:1], upper) + v[1:]
        import vshell.text.glob as P

        out = []
        for i, ch in enumerate(v):
            if (allchars or i == 0) and P.match(pat, ch):
                ch = _towcase(ch, upper)
            out.append(ch)
        return "".join(out)

    def _transform(self, p: W.Param, vals: list[str], op: str) -> list[str] | None:
        import vshell.interp.quoting as quoting

        st = self.sh.state
        if op == "@Q":
            return [quoting.single_quote(v) for v in vals]
        if op == "@E":
            return [W.decode_ansi_c(v.replace("'", "\\'") + "'", 0)[0] for v in vals]
        if op == "@P":
            return [self.sh.prompt_expand(v) for v in vals]
        if op == "@U":
            return [_towcase(v, True) for v in vals]
        if op == "@u":
            return [_towcase(v[:1], True) + v[1:] for v in vals]
        if op == "@L":
            return [_towcase(v, False) for v in vals]
        if op == "@a":
            var = st.lookup(p.name)
            letters = self._attr_letters(var) if var is not None else ""
            return [letters for _ in vals]
        if op == "@A":
            var = st.lookup(p.name)
            if p.name in ("@", "*") or p.name.isdigit():
                return [quoting.single_quote(v) for v in vals]
            if var is None:
                return None
            flags = self._attr_letters(var)
            if isinstance(var.value, dict) and p.index not in ("@", "*") and p.index is not None:
                return [f"{p.name}={quoting.single_quote(vals[0])}"]
            if isinstance(var.value, dict):
                return [self.sh.declare_line(p.name, var)]
            prefix = f"declare -{flags} " if flags else ""
            return [f"{prefix}{p.name}={quoting.single_quote(vals[0])}"]
        if op in ("@K", "@k"):
            var = st.lookup(p.name)
            if var is not None and isinstance(var.value, dict):
                assoc = cast("dict[str, str]", var.value)
                items = ([(k, assoc[k]) for k in bash_order(assoc)] if "A" in var.attrs
                         else sorted(var.value.items()))
                if op == "@K":  # declare -p's quoting; an associative one ends in a space
                    text = " ".join(f"{k} {quoting.declare_quote(v)}" for k, v in items)
                    return [text + " " if "A" in var.attrs and items else text]
                flat: list[str] = []
                for k, v in items:
                    flat.extend([str(k), v])
                return flat
            return [quoting.single_quote(v) for v in vals]
        raise ExpansionError(f"{p.raw}: bad substitution")


def _plain_param(p: W.Param) -> bool:
    """``$name`` or ``${name}`` of a variable: no operator, subscript or prefix, and not a
    special or positional parameter (those take Expander._values' own ways)."""
    if p.op is not None or p.index is not None or p.prefix is not None:
        return False
    c = p.name[:1]
    return c == "_" or c.isalpha()


def _valid_ref(target: str) -> bool:
    import re

    return bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\[.*\])?|[0-9]+|[@*#?$!-]", target))


def _replaced_size(value: str, pat: str, rep: str, mode: str) -> int:
    """An upper bound on the size of ``${value/pat/rep}``: exact for a literal pattern,
    else as if every character matched (checked against the memory limit first)."""
    literal = not any(c in pat for c in "*?[\\(")
    if mode in ("#", "%", "") or not pat:
        return len(value) + len(rep)
    if literal:
        return len(value) + value.count(pat) * (len(rep) - len(pat)) + len(rep)
    return len(value) * max(1, len(rep)) + len(rep)
