"""A seeded generator of hostile inputs for vshell: odd flags over every command, mutated scripts.

Two kinds of case, both plain ``(script, stdin)`` pairs so any failure can be replayed with
``vshell -c``:

* a command from the registries (shipped commands and shell builtins) with a random mix
  of its own options (read from its ``--help``), random single letters, and values that
  break naive parsers: huge, negative, empty, fractional and hexadecimal numbers, odd file
  names, missing files, binary files;
* a snippet of an Oils spec file or a test with tokens deleted, duplicated, swapped or
  replaced by such a value.

Everything derives from one ``random.Random(seed)``, so a seed names a run exactly.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path

from vshell.commands import names as command_names
from vshell.interp.builtins.registry import names as builtin_names

SPEC_DIR = Path("/work/shared/conformance/oils/spec")
REPO_TESTS = Path(__file__).resolve().parents[1]

# Commands left out: the Python guest has its own tests and a first-run compile that is
# never charged to a timeout; the network ones have no network here anyway.
SKIP = frozenset({"python", "python3", "curl", "wget", "exec", "exit", "logout", "suspend"})

NUMBERS = [
    "99999999999999999999", "-99999999999999999999", "18446744073709551616",
    "18446744073709551615", "9223372036854775808", "-9223372036854775809", "4294967296",
    "2147483648", "-2147483649", "0", "-0", "-1", "1", "+1", "", " ", "1e999", "1.5", "-1.5",
    "0x7fffffffffffffff", "0x", "077", "08", "9" * 60, "1k", "1Y", "1Q", "nan", "inf", "-inf",
    "1-99999999999999999999", "99999999999999999999-1", "1,99999999999999999999",
    "1.99999999999999999999", "%99999999999999999999", "[x*99999999999999999999]",
    "@99999999999999999999", "+99999999999999999999", "99999999999999999999 years",
]
NAMES = [
    "missing", "/nope/x", "", "-", "--", ".", "..", "/", "a.txt", "bin.dat", "empty",
    "dir", "dir/", "link", "loop", "a.txt/x", "-n", "--help", "\\", "*", "?", "[",
    "con\ntrol", "sp ace", "\u00e9t\u00e9", "/dev/null", "/proc/self/mem", "~", "$HOME",
]
FILES: dict[str, bytes] = {
    "a.txt": b"alpha beta\ngamma 12 delta\n\nzeta\t3\n",
    "bin.dat": bytes(range(256)) * 4 + b"\x00\xff\xfe" * 50,
    "empty": b"",
    "dir/b.txt": b"x\n",
    "nums": b"3\n1\n2\n99999999999999999999\n-5\n",
    "data.json": b'{"a": [1, 2, {"b": null}], "c": "d"}\n',
}
STDINS: list[bytes] = [
    b"", b"a b c\n1 2 3\n", bytes(range(256)), b"\x00" * 64, b"x" * 5000, b"\n" * 100,
    b"99999999999999999999\n", "\u00e9\u00e0\n\ud7ff".encode("utf-8", "surrogatepass"),
    b"line without newline",
]

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_OPT_RE = re.compile(r"(?<![\w-])(-[A-Za-z0-9]|--[a-z][a-z0-9-]+)(=?)")


def quote(text: str) -> str:
    """Single-quote ``text`` for the shell."""
    return "'" + text.replace("'", "'\\''") + "'"


def commands() -> list[str]:
    """Every command name the sandbox knows, minus the few the fuzzer leaves out."""
    return sorted((set(command_names()) | set(builtin_names())) - SKIP)


def options_from_help(help_text: str) -> list[tuple[str, bool]]:
    """``(option, takes_value)`` pairs named in a ``--help`` text."""
    found: dict[str, bool] = {}
    for m in _OPT_RE.finditer(help_text):
        found[m.group(1)] = found.get(m.group(1), False) or bool(m.group(2))
    return sorted(found.items())


def _value(rng: random.Random) -> str:
    return rng.choice(NUMBERS) if rng.random() < 0.7 else rng.choice(NAMES)


def command_case(rng: random.Random, name: str, opts: list[tuple[str, bool]]) -> str:
    """One command line for ``name``: a few options with hostile values, a few operands."""
    parts = [name]
    for _ in range(rng.randint(0, 4)):
        r = rng.random()
        if opts and r < 0.6:
            opt, takes = rng.choice(opts)
            if opt.startswith("--") and (takes or rng.random() < 0.2):
                parts.append(quote(f"{opt}={_value(rng)}"))
            elif takes or rng.random() < 0.3:
                value = _value(rng)
                if rng.random() < 0.5:
                    parts.append(quote(opt + value))
                else:
                    parts += [opt, quote(value)]
            else:
                parts.append(opt)
        elif r < 0.75:
            parts.append(quote("-" + rng.choice(_LETTERS) + _value(rng)))
        else:
            parts.append(quote("-" + rng.choice(NUMBERS).lstrip("-")))
    for _ in range(rng.randint(0, 3)):
        parts.append(quote(_value(rng)))
    return " ".join(parts)


_TOKEN_RE = re.compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"|\$\(\(|\)\)|[;&|<>(){}]+|[^\s;&|<>(){}]+")


def spec_snippets(limit_chars: int = 400) -> list[str]:
    """Code of the Oils spec cases (``#### name`` blocks without their ``##`` lines)."""
    out: list[str] = []
    if SPEC_DIR.is_dir():
        for path in sorted(SPEC_DIR.glob("*.test.sh")):
            text = path.read_text(encoding="utf-8", errors="replace")
            for block in text.split("\n#### ")[1:]:
                code = "\n".join(
                    line for line in block.split("\n")[1:] if not line.startswith("## ")
                ).strip()
                if code and len(code) <= limit_chars:
                    out.append(code)
    if not out:  # a checkout without the shared specs: fall back on scripts in our tests
        out = [
            "for i in 1 2 3; do echo $i; done | sort -r",
            "x=abc; echo ${x:1:1} ${#x} $((1 << 3))",
            "f() { local a=$1; echo ${a:-none}; }; f; f 2",
            "case $1 in a*) echo a;; *) echo other;; esac",
            "printf '%s\\n' a b | while read -r l; do echo \"[$l]\"; done",
        ]
    return out


def mutate(rng: random.Random, code: str, donors: list[str]) -> str:
    """``code`` with one to four token edits: delete, duplicate, swap, replace, splice."""
    tokens = _TOKEN_RE.findall(code) or [code]
    for _ in range(rng.randint(1, 4)):
        if not tokens:
            break
        i = rng.randrange(len(tokens))
        op = rng.random()
        if op < 0.25:
            del tokens[i]
        elif op < 0.45:
            tokens.insert(i, tokens[i])
        elif op < 0.65:
            j = rng.randrange(len(tokens))
            tokens[i], tokens[j] = tokens[j], tokens[i]
        elif op < 0.85:
            tokens[i] = rng.choice(NUMBERS) or "''"
        else:
            donor = _TOKEN_RE.findall(rng.choice(donors)) or ["x"]
            tokens.insert(i, rng.choice(donor))
    return " ".join(tokens)


def cases(seed: int, help_texts: dict[str, str]) -> Iterator[tuple[str, bytes]]:
    """An endless, reproducible stream of ``(script, stdin)``."""
    rng = random.Random(seed)
    names = commands()
    opts = {n: options_from_help(help_texts.get(n, "")) for n in names}
    snippets = spec_snippets()
    while True:
        if rng.random() < 0.65:
            name = rng.choice(names)
            script = command_case(rng, name, opts[name])
            if rng.random() < 0.3:
                script = f"{script} < {quote(rng.choice(list(FILES)))}"
            yield script, rng.choice(STDINS)
        else:
            yield mutate(rng, rng.choice(snippets), snippets), rng.choice(STDINS)
