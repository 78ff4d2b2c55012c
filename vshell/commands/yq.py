"""yq: jq over YAML, as Debian's ``yq`` (kislyuk/yq 3) does it, on vshell's own jq.

Each YAML document of the inputs (PyYAML's safe loader; dates become ISO strings) is
handed to jq as JSON with the jq options and filter given; jq's output is printed as it
is, or with ``-y`` turned back into YAML (block style, lists indented unless
``--indentless-lists``, ``---`` between documents).  ``-i`` rewrites the files in place.
``-Y`` (round-trip of comments and styles) is not supported.  Needs PyYAML.
"""

from __future__ import annotations

import datetime
import io
import json
import re
from typing import Any

from vshell.command import Exit, Invocation
from vshell.commands._lib.futil import enc, strerror
from vshell.commands._lib.helptext import help_text
from vshell.commands._lib.opts import switches
from vshell.records import replace

USAGE = help_text("yq-usage")

HELP = help_text("yq")

# jq options and how many values each takes
_JQ_VALUES = {"--arg": 2, "--argjson": 2, "--slurpfile": 2, "--rawfile": 2, "--argfile": 2,
              "--indent": 1, "-f": 1, "--from-file": 1, "-L": 1}


# the options that only turn a setting on
_SWITCHES = switches(yaml_out="-y --yaml-output", in_place="-i --in-place",
                     indentless="--indentless-lists --indentless",
                     explicit_start="--explicit-start", explicit_end="--explicit-end")


class _Args:
    def __init__(self) -> None:
        self.yaml_out = False
        self.width: int | None = None
        self.indentless = False
        self.explicit_start = False
        self.explicit_end = False
        self.in_place = False
        self.jq: list[str] = []
        self.filter: str | None = None
        self.files: list[str] = []
        self.from_file = False


ERROR_USAGE = help_text("yq-error-usage")


def _usage(inv: Invocation, message: str) -> Exit:
    inv.stderr.write(enc(ERROR_USAGE + f"yq: error: {message}\n"))
    return Exit(2)


def _parse(inv: Invocation) -> _Args:
    a = _Args()
    args = list(inv.args)
    i = 0
    while i < len(args):
        x = args[i]
        i += 1
        if x in ("-h", "--help"):
            inv.stdout.write(HELP.encode())
            raise Exit(0)
        if x == "--version":
            inv.stdout.write(b"yq 3.1.0 (vshell)\n")
            raise Exit(0)
        if x in _SWITCHES:
            setattr(a, _SWITCHES[x], True)
        elif x in ("-Y", "--yaml-roundtrip"):
            raise _usage(inv, "-Y/--yaml-roundtrip is not supported in the sandbox (use -y)")
        elif x in ("-w", "--width") or x.startswith("--width="):
            value = x.split("=", 1)[1] if "=" in x else (args[i] if i < len(args) else "")
            i += 0 if "=" in x else 1
            if not value.isdigit():
                raise _usage(inv, f"argument --width/-w: invalid int value: '{value}'")
            a.width = int(value)
        elif x in _JQ_VALUES:
            n = _JQ_VALUES[x]
            if i + n > len(args):
                raise _usage(inv, f"{x} takes {n} value(s)")
            a.jq += [x, *args[i : i + n]]
            a.from_file = a.from_file or x in ("-f", "--from-file")
            i += n
        elif x == "--":
            rest = args[i:]
            if a.filter is None and not a.from_file and rest:
                a.filter, rest = rest[0], rest[1:]
            a.files += rest
            break
        elif x.startswith("-") and x != "-":
            a.jq.append(x)
        elif a.filter is None and not a.from_file:
            a.filter = x
        else:
            a.files.append(x)
    return a


_LOADERS: dict[int, Any] = {}


def _loader(yaml: Any) -> Any:
    """PyYAML's safe loader with the YAML 1.2 core schema's resolvers, as yq 3 reads its
    input: only true/false are booleans (``yes`` stays a string), ``0o17`` is a number."""
    cached = _LOADERS.get(id(yaml))
    if cached is not None:
        return cached

    class Loader(yaml.SafeLoader):
        pass

    kept = {"tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:merge"}
    Loader.yaml_implicit_resolvers = {
        ch: [(tag, rx) for tag, rx in rules if tag in kept]
        for ch, rules in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    for tag, pattern, first in (
        ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
        ("int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
        ("float", r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
                  r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", "-+0123456789."),
        ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ):
        Loader.add_implicit_resolver(f"tag:yaml.org,2002:{tag}", re.compile(pattern),
                                     list(first))

    _LOADERS[id(yaml)] = Loader
    return Loader


def _dumper(yaml: Any, flat_lists: bool) -> Any:
    class Dumper(yaml.SafeDumper):
        def increase_indent(self, flow: bool = False, indentless: bool = False) -> Any:
            return super().increase_indent(flow, indentless if flat_lists else False)

    return Dumper


class _JSONEncoder(json.JSONEncoder):
    def default(self, o: Any) -> Any:
        if isinstance(o, (datetime.date, datetime.datetime, datetime.time)):
            return o.isoformat()
        if isinstance(o, bytes):
            return o.decode("latin-1")
        return super().default(o)


def run(inv: Invocation) -> int:
    try:
        import yaml
    except ImportError:
        raise Exit(1, "needs PyYAML, which is not installed with this vshell") from None
    a = _parse(inv)
    if a.filter is None and not a.from_file:
        a.filter = "."
    if a.in_place and not a.files:
        raise _usage(inv, "--in-place can only be used with filenames")
    sources = a.files or ["-"]
    if a.in_place:
        status = 0
        for name in sources:
            status = max(status, _one(inv, yaml, a, [name], in_place=True))
        return status
    return _one(inv, yaml, a, sources, in_place=False)


def _one(inv: Invocation, yaml: Any, a: _Args, sources: list[str], in_place: bool) -> int:
    docs_json = io.BytesIO()
    for name in sources:
        try:
            data = inv.stdin.read() if name == "-" else _read(inv, name)
        except OSError as e:
            raise _usage(inv, f"argument files: can't open '{name}': [Errno {e.errno}] "
                              f"{strerror(e)}: '{name}'") from None
        stream = io.StringIO(data.decode("utf-8", "surrogateescape"))
        stream.name = "<stdin>" if name == "-" else name
        try:
            for doc in yaml.load_all(stream, Loader=_loader(yaml)):
                docs_json.write(json.dumps(_plain(doc), cls=_JSONEncoder).encode() + b"\n")
        except yaml.YAMLError as e:
            inv.stderr.write(enc(f"yq: Error running jq: {type(e).__name__}: {e}.\n"))
            return 1
    from vshell.commands import jq as jqmod

    out = io.BytesIO() if (a.yaml_out or in_place) else inv.stdout
    jq_args = [*a.jq, *([a.filter] if a.filter is not None else [])]
    sub = replace(inv, name="jq", args=jq_args, stdin=io.BytesIO(docs_json.getvalue()),
                  stdout=out)
    try:
        status = jqmod.run(sub) or 0
    except Exit as e:
        if e.message:
            inv.stderr.write(enc(f"jq: {e.message}\n"))
        status = e.status
    if out is inv.stdout:
        return status
    text = out.getvalue()  # type: ignore[attr-defined]  # not stdout: the BytesIO above
    if a.yaml_out:
        text = _to_yaml(yaml, a, text)
    if in_place:
        try:
            with inv.fs.open(inv.abs(sources[0]), "wb") as f:
                f.write(text)
        except OSError as e:
            raise Exit(1, f"{sources[0]}: {strerror(e)}") from None
    else:
        inv.stdout.write(text)
    return status


def _plain(value: Any) -> Any:
    """Whole floats as integers, as yq's jq 1.6 prints them (1.0 -> 1)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        return int(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {_key(k): _plain(v) for k, v in value.items()}
    return value


def _key(key: Any) -> str:
    """A mapping key as JSON needs it: a string (``1`` -> "1", ``true`` -> "true")."""
    if isinstance(key, str):
        return key
    if isinstance(key, (datetime.date, datetime.datetime)):
        return key.isoformat()
    if isinstance(key, (bool, type(None))):
        return json.dumps(key)
    return str(key)


def _read(inv: Invocation, name: str) -> bytes:
    with inv.fs.open(inv.abs(name), "rb") as f:
        return f.read()


def _to_yaml(yaml: Any, a: _Args, text: bytes) -> bytes:
    """jq's JSON output stream as YAML documents."""
    decoder = json.JSONDecoder()
    s = text.decode("utf-8", "surrogateescape")
    docs, i = [], 0
    while True:
        while i < len(s) and s[i].isspace():
            i += 1
        if i >= len(s):
            break
        value, i = decoder.raw_decode(s, i)
        docs.append(value)
    dumped = yaml.dump_all(docs, Dumper=_dumper(yaml, a.indentless), width=a.width,
                           allow_unicode=True, default_flow_style=False,
                           explicit_start=a.explicit_start, explicit_end=a.explicit_end,
                           sort_keys=False)
    return dumped.encode("utf-8", "surrogateescape")
