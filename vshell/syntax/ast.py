"""vshell's own syntax tree.

The parser (bashlex behind a shim) is converted into these records right after parsing;
nothing outside ``vshell.syntax`` ever sees a bashlex node, so the parser can be replaced
here alone.  Words keep their raw source text: the interpreter expands them itself.
"""

from __future__ import annotations

from vshell.records import field, record


@record
class Word:
    """One shell word exactly as written in the source (quotes, ``$``-forms and all)."""

    raw: str
    pos: int = 0  # offset of the first character in the parsed source
    line: int = 1  # 1-based line of the first character


@record
class HereDoc:
    """The body of a ``<<`` / ``<<-`` here-document.

    ``body`` is the text between the operator's line and the delimiter line, each line
    ending in ``\\n``; for ``<<-`` leading tabs are already stripped.  ``quoted`` is true
    when any part of the delimiter was quoted, in which case the body is not expanded.
    ``unterminated`` is true when the input ended before the delimiter line (bash then
    warns "here-document at line N delimited by end-of-file (wanted `EOF')" and runs it).
    """

    body: str
    quoted: bool
    unterminated: bool = False


@record
class Redirect:
    """A redirection: ``[fd|{var}]op target``.

    op is one of ``<  >  >>  >|  <>  <&  >&  &>  &>>  <<  <<-  <<<``.  ``fd`` is the explicit
    descriptor number written before the operator (None when absent); ``fd_var`` is the
    name in the ``{name}>file`` form.  ``target`` is the file / descriptor / here-string
    word, or the delimiter word for here-documents (whose body is in ``heredoc``).
    """

    op: str
    target: Word | None
    fd: int | None = None
    fd_var: str | None = None
    heredoc: HereDoc | None = None
    line: int = 1


@record
class Assignment:
    """``name=value``, ``name+=value``, ``name[index]=value`` or ``name=(elements)``.

    ``index`` is the raw subscript text (without brackets).  ``value`` is the raw value
    word (may be an empty Word).  ``array`` holds the raw element words of a compound
    assignment ``name=( … )``; an element like ``[k]=v`` is kept as one raw word.
    """

    name: str
    value: Word | None = None
    index: str | None = None
    append: bool = False
    array: list[Word] | None = None
    line: int = 1


@record
class SimpleCommand:
    """Assignments, words and redirections of one simple command, in source order per kind."""

    assigns: list[Assignment] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    line: int = 1


@record
class Subshell:
    body: CommandList
    redirects: list[Redirect] = field(default_factory=list)
    line: int = 1


@record
class Group:
    """``{ body; }``"""

    body: CommandList
    redirects: list[Redirect] = field(default_factory=list)
    line: int = 1


@record
class IfClause:
    condition: CommandList
    body: CommandList


@record
class If:
    """``if c1; then b1; elif c2; then b2; else b3; fi`` — clauses in order, else may be None."""

    clauses: list[IfClause]
    else_body: CommandList | None = None
    redirects: list[Redirect] = field(default_factory=list)
    line: int = 1


@record
class While:
    """``while``/``until`` loop (``until`` is True for the latter)."""

    condition: CommandList
    body: CommandList
    until: bool = False
    redirects: list[Redirect] = field(default_factory=list)
    line: int = 1


@record
class For:
    """``for var [in words]; do body; done`` — ``words`` None means ``"$@"``."""

    var: str
    words: list[Word] | None
    body: CommandList
    redirects: list[Redirect] = field(default_factory=list)
    line: int = 1


@record
class ArithFor:
    """``for (( init; cond; step )); do body; done`` — the three raw expression texts."""

    init: str
    cond: str
    step: str
    body: CommandList
    redirects: list[Redirect] = field(default_factory=list)
    line: int = 1


@record
class Select:
    var: str
    words: list[Word] | None
    body: CommandList
    redirects: list[Redirect] = field(default_factory=list)
    line: int = 1


@record
class CaseItem:
    """One ``pat1|pat2) body ;;`` arm; terminator is ``;;``, ``;&`` or ``;;&``."""

    patterns: list[Word]
    body: CommandList
    terminator: str = ";;"


@record
class Case:
    word: Word
    items: list[CaseItem]
    redirects: list[Redirect] = field(default_factory=list)
    line: int = 1


@record
class ArithCommand:
    """``(( expr ))`` with the raw expression text."""

    expr: str
    redirects: list[Redirect] = field(default_factory=list)
    line: int = 1


@record
class CondCommand:
    """``[[ … ]]``: the tokens between the brackets as raw words.

    Operators (``( ) ! && ||`` and the binary/unary test operators) are words of their own;
    the operand right of ``=~`` is one word running to blank at paren depth 0.
    """

    words: list[Word]
    redirects: list[Redirect] = field(default_factory=list)
    line: int = 1


@record
class FunctionDef:
    """``name() compound`` or ``function name compound``; redirects belong to the body."""

    name: str
    body: Command
    line: int = 1


@record
class Coproc:
    name: str
    body: Command
    line: int = 1


Command = (
    SimpleCommand
    | Subshell
    | Group
    | If
    | While
    | For
    | ArithFor
    | Select
    | Case
    | ArithCommand
    | CondCommand
    | FunctionDef
    | Coproc
)


@record
class Pipeline:
    """``[time [-p]] [!] cmd1 | cmd2 |& cmd3``.

    ``stderr_pipes[i]`` is True when the junction after ``commands[i]`` is ``|&``.
    """

    commands: list[Command]
    negated: bool = False
    timed: bool = False
    time_posix: bool = False
    stderr_pipes: list[bool] = field(default_factory=list)
    line: int = 1


@record
class AndOr:
    """``p1 && p2 || p3``: the first pipeline, then (operator, pipeline) pairs."""

    first: Pipeline
    rest: list[tuple[str, Pipeline]] = field(default_factory=list)
    line: int = 1


@record
class ListItem:
    """One element of a command list; ``background`` for a trailing ``&``.

    ``start``/``end`` are the source offsets of the item (end exclusive), so a caller
    can re-parse or report the rest of a script.
    """

    command: AndOr
    background: bool = False
    start: int = 0
    end: int = 0


@record
class CommandList:
    items: list[ListItem] = field(default_factory=list)


Script = CommandList
