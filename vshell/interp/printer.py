"""Printing the AST back as shell source, the way bash shows functions (``type f``,
``declare -f``)."""

from __future__ import annotations

from vshell.syntax import ast

IND = "    "


def print_function(name: str, fn: ast.FunctionDef) -> str:
    body = fn.body
    if isinstance(body, ast.Group):
        inner = _list_lines(body.body, 1)
        text = f"{name} () \n{{ \n" + "\n".join(inner) + "\n}" + _redirs(body.redirects)
        return text
    return f"{name} () \n{{ \n{IND}{_command(body, 1)}\n}}"


def andor_text(ao: ast.AndOr) -> str:
    """One ``a && b | c`` on one line (``jobs`` shows a background job so)."""
    return _andor(ao, 0)


def _redirs(rs: list[ast.Redirect]) -> str:
    out = []
    for r in rs:
        fd = "" if r.fd is None else str(r.fd)
        if r.fd_var:
            fd = "{" + r.fd_var + "}"
        if r.op in ("<<", "<<-") and r.heredoc is not None:
            out.append(f" {fd}{r.op} {r.target.raw if r.target else ''}")
            continue
        out.append(f" {fd}{r.op} {r.target.raw if r.target else ''}")
    return "".join(out)


def _heredocs(rs: list[ast.Redirect]) -> list[str]:
    out = []
    for r in rs:
        if r.op in ("<<", "<<-") and r.heredoc is not None:
            delim = (r.target.raw if r.target else "EOF").strip("'\"\\")
            out.append(r.heredoc.body + delim)
    return out


def _list_lines(cl: ast.CommandList, depth: int) -> list[str]:
    lines: list[str] = []
    items = cl.items
    for k, item in enumerate(items):
        text = _andor(item.command, depth)
        last = k == len(items) - 1
        if item.background:
            text += " &"
        elif not last:
            text += ";"
        lines.append(IND * depth + text)
    return lines


def _andor(ao: ast.AndOr, depth: int) -> str:
    parts = [_pipeline(ao.first, depth)]
    for op, pl in ao.rest:
        parts.append(f"{op} {_pipeline(pl, depth)}")
    return " ".join(parts)


def _pipeline(pl: ast.Pipeline, depth: int) -> str:
    text = " | ".join(_command(c, depth) for c in pl.commands)
    if pl.negated:
        text = "! " + text
    if pl.timed:
        text = "time " + text
    return text


def _command(c: ast.Command, depth: int) -> str:
    ind = IND * depth
    if isinstance(c, ast.SimpleCommand):
        words = []
        for a in c.assigns:
            if a.array is not None:
                val = "(" + " ".join(w.raw for w in a.array) + ")"
            else:
                val = a.value.raw if a.value else ""
            idx = f"[{a.index}]" if a.index is not None else ""
            words.append(f"{a.name}{idx}{'+' if a.append else ''}={val}")
        words.extend(w.raw for w in c.words)
        text = " ".join(words) + _redirs(c.redirects)
        docs = _heredocs(c.redirects)
        if docs:
            text += "\n" + "\n".join(docs)
        return text
    if isinstance(c, ast.Group):
        inner = "\n".join(_list_lines(c.body, depth + 1))
        return "{ \n" + inner + "\n" + ind + "}" + _redirs(c.redirects)
    if isinstance(c, ast.Subshell):
        inner = "; ".join(_andor(i.command, depth) for i in c.body.items)
        return f"( {inner} )" + _redirs(c.redirects)
    if isinstance(c, ast.If):
        out = []
        for k, cl in enumerate(c.clauses):
            kw = "if" if k == 0 else "elif"
            cond = "; ".join(_andor(i.command, depth) for i in cl.condition.items)
            out.append(f"{kw} {cond}; then")
            out.extend(_list_lines(cl.body, depth + 1))
            if k > 0:
                out[-len(_list_lines(cl.body, depth + 1)) - 1] = ind + out[
                    -len(_list_lines(cl.body, depth + 1)) - 1]
        if c.else_body is not None:
            out.append(ind + "else")
            out.extend(_list_lines(c.else_body, depth + 1))
        out.append(ind + "fi")
        return "\n".join(out) + _redirs(c.redirects)
    if isinstance(c, ast.While):
        kw = "until" if c.until else "while"
        cond = "; ".join(_andor(i.command, depth) for i in c.condition.items)
        body = "\n".join(_list_lines(c.body, depth + 1))
        return f"{kw} {cond}; do\n{body}\n{ind}done" + _redirs(c.redirects)
    if isinstance(c, ast.For):
        in_words = "" if c.words is None else " in " + " ".join(w.raw for w in c.words)
        body = "\n".join(_list_lines(c.body, depth + 1))
        return f"for {c.var}{in_words};\n{ind}do\n{body}\n{ind}done" + _redirs(c.redirects)
    if isinstance(c, ast.ArithFor):
        body = "\n".join(_list_lines(c.body, depth + 1))
        return (f"for (({c.init}; {c.cond}; {c.step}))\n{ind}do\n{body}\n{ind}done"
                + _redirs(c.redirects))
    if isinstance(c, ast.Case):
        out = [f"case {c.word.raw} in "]
        for item in c.items:
            out.append(ind + IND + " | ".join(p.raw for p in item.patterns) + ")")
            lines = _list_lines(item.body, depth + 2)
            out.append("\n".join(lines) if lines else "")
            out.append(ind + IND + item.terminator)
        out.append(ind + "esac")
        return "\n".join(out) + _redirs(c.redirects)
    if isinstance(c, ast.ArithCommand):
        return f"(({c.expr}))" + _redirs(c.redirects)
    if isinstance(c, ast.CondCommand):
        return "[[ " + " ".join(w.raw for w in c.words) + " ]]" + _redirs(c.redirects)
    if isinstance(c, ast.FunctionDef):
        return print_function(c.name, c)
    return ""
