"""The layer rules of ``docs/parts.toml``, checked on every module under ``vshell/``.

The test reads the parts file, parses each module with :mod:`ast` (imports at module level and
inside functions, relative imports resolved) and finds four kinds of violation:

- ``arrow``: a module imports one of another part that its part may not import;
- ``library``: a third-party library imported outside the part that owns it (or one that the
  parts file does not know), or an optional library reached from the start-up path;
- ``cycle``: modules that import each other in a circle (function-level imports included);
- ``private``: a private name (``_x``) imported from another module, or a private module
  imported from outside its own package.

Today's code breaks some rules; ``docs/layer-debt.toml`` lists those violations. The test is a
ratchet: it fails on a violation missing from the list and on a listed one that no longer
occurs, so the list only shrinks. ``python tests/unit/test_layers.py --write-debt`` rewrites
the list from the code, keeping the issue number and note of every entry that survives.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PARTS_FILE = ROOT / "docs" / "parts.toml"
DEBT_FILE = ROOT / "docs" / "layer-debt.toml"
PACKAGE = "vshell"
KINDS = ("arrow", "library", "cycle", "private")


@dataclass(frozen=True)
class Import:
    """One imported module (and the names taken from it) as one statement of a module says."""

    importer: str
    target: str
    names: tuple[str, ...]
    lazy: bool
    line: int


@dataclass(frozen=True)
class Violation:
    """One broken rule; ``key`` identifies it in the debt list, ``detail`` says where."""

    kind: str
    key: str
    detail: str


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the package by dotted name (a package is named by its ``__init__``)."""
    found: dict[str, Path] = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _is_type_checking(node: ast.AST) -> bool:
    if not isinstance(node, ast.If):
        return False
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(tree: ast.AST) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Import statements with their laziness (inside a function); ``if TYPE_CHECKING:`` bodies
    never run and are skipped.  Iterative: deep trees cost no generator chains."""
    todo: list[tuple[ast.AST, bool]] = [(tree, False)]
    while todo:
        node, lazy = todo.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, lazy
            continue
        if isinstance(node, ast.expr) and not isinstance(node, ast.Lambda):
            continue  # no statement, hence no import, lives inside an expression
        inner = lazy or isinstance(node, _SCOPES)
        children = node.orelse if _is_type_checking(node) else ast.iter_child_nodes(node)
        todo += [(child, inner) for child in children]


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(module: str, path: Path, known: set[str]) -> list[Import]:
    """The imports of one module; ``from pkg import mod`` names the submodule itself."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    is_package = path.name == "__init__.py"
    found: list[Import] = []
    for node, lazy in _import_nodes(tree):
        line = node.lineno
        if isinstance(node, ast.Import):
            found += [Import(module, a.name, (), lazy, line) for a in node.names]
            continue
        assert isinstance(node, ast.ImportFrom)
        source = _resolve(module, is_package, node)
        plain: list[str] = []
        for alias in node.names:
            sub = f"{source}.{alias.name}"
            if sub in known:
                found.append(Import(module, sub, (), lazy, line))
            else:
                plain.append(alias.name)
        if plain or not node.names:
            found.append(Import(module, source, tuple(plain), lazy, line))
    return found


@dataclass
class Parts:
    """The parts file: which part each module is in, the arrows, the libraries' owners."""

    modules: dict[str, list[str]]
    packages: dict[str, list[str]]
    may_import: dict[str, set[str]]
    forbidden: dict[tuple[str, str], str]
    libraries: dict[str, dict]
    first_party: set[str]
    startup: list[str]
    lazy_stdlib: list[str]

    @classmethod
    def load(cls, path: Path = PARTS_FILE) -> Parts:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        parts = data["parts"]
        forbidden = {(f["from"], f["to"]): f["why"] for f in data.get("forbidden", [])}
        return cls(
            modules={name: p.get("modules", []) for name, p in parts.items()},
            packages={name: p.get("packages", []) for name, p in parts.items()},
            may_import={name: set(p.get("may_import", [])) for name, p in parts.items()},
            forbidden=forbidden,
            libraries=data["libraries"],
            first_party=set(data.get("first_party", [])),
            startup=data.get("startup", []),
            lazy_stdlib=data.get("lazy_stdlib", []),
        )

    def part_of(self, module: str) -> str | None:
        """The part listing the module itself, else the one whose longest package covers it."""
        for part, names in self.modules.items():
            if module in names:
                return part
        best, best_len = None, -1
        for part, prefixes in self.packages.items():
            for prefix in prefixes:
                if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                    best, best_len = part, len(prefix)
        return best

    def allowed(self, src: str, dst: str) -> bool:
        return src == dst or dst in self.may_import[src]


def _top(name: str) -> str:
    return name.split(".")[0]


def _is_third_party(name: str, parts: Parts) -> bool:
    top = _top(name)
    return bool(top) and top != PACKAGE and top not in sys.stdlib_module_names and (
        top not in parts.first_party
    )


def _owner_ok(lib: dict, module: str, part: str | None) -> bool:
    return part in lib.get("parts", []) or module in lib.get("modules", [])


def check_arrows(imports: list[Import], parts: Parts, known: set[str]) -> list[Violation]:
    found = []
    for imp in imports:
        if _top(imp.target) != PACKAGE:
            continue
        src, dst = parts.part_of(imp.importer), parts.part_of(imp.target)
        if src is None or dst is None:
            what = imp.importer if src is None else imp.target
            found.append(Violation("arrow", f"{what} -> (no part)", f"{what} is in no part"))
        elif not parts.allowed(src, dst):
            why = parts.forbidden.get((src, dst), "not listed in may_import")
            found.append(Violation(
                "arrow", f"{imp.importer} -> {imp.target}",
                f"{src} -> {dst} ({why}) at {imp.importer}:{imp.line}",
            ))
    return found


def _eager_closure(roots: Iterable[str], imports: list[Import]) -> dict[str, list[str]]:
    """Modules run at start-up from ``roots`` (module-level imports only), with a path each."""
    eager: dict[str, list[str]] = {}
    for imp in imports:
        if not imp.lazy:
            eager.setdefault(imp.importer, []).append(imp.target)
    seen: dict[str, list[str]] = {}
    todo = [(r, [r]) for r in roots]
    while todo:
        mod, path = todo.pop()
        if mod in seen:
            continue
        seen[mod] = path
        # importing a.b.c runs a/__init__ and a/b/__init__ first
        parents = [mod.rsplit(".", n)[0] for n in range(1, mod.count(".") + 1)]
        todo += [(t, path + [t]) for t in eager.get(mod, []) + parents if t not in seen]
    return seen


def check_libraries(imports: list[Import], parts: Parts) -> list[Violation]:
    found = []
    for imp in imports:
        if not _is_third_party(imp.target, parts):
            continue
        lib = parts.libraries.get(_top(imp.target))
        part = parts.part_of(imp.importer)
        if lib is None:
            found.append(Violation(
                "library", f"{imp.importer} -> {_top(imp.target)}",
                f"{_top(imp.target)} (at {imp.importer}:{imp.line}) has no owner in parts.toml",
            ))
        elif not _owner_ok(lib, imp.importer, part):
            found.append(Violation(
                "library", f"{imp.importer} -> {_top(imp.target)}",
                f"{_top(imp.target)} belongs to {lib.get('parts', []) + lib.get('modules', [])}"
                f", imported by {imp.importer}:{imp.line} (part {part})",
            ))
    closure = _eager_closure(parts.startup, imports)
    for imp in imports:
        lib = parts.libraries.get(_top(imp.target))
        if lib and lib.get("lazy") and not imp.lazy and imp.importer in closure:
            chain = " -> ".join(closure[imp.importer] + [_top(imp.target)])
            found.append(Violation(
                "library", f"startup -> {_top(imp.target)} via {imp.importer}",
                f"{_top(imp.target)} (lazy only) reached at start-up: {chain}",
            ))
    for imp in imports:  # the standard library's slow-to-import modules, likewise
        std = next((m for m in parts.lazy_stdlib
                    if imp.target == m or imp.target.startswith(m + ".")), None)
        if std is not None and not imp.lazy and imp.importer in closure:
            chain = " -> ".join(closure[imp.importer] + [imp.target])
            found.append(Violation(
                "library", f"startup -> {std} via {imp.importer}",
                f"{std} (lazy_stdlib) imported at start-up: {chain}",
            ))
    return found


def _graph(imports: list[Import], known: set[str]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in known}
    for imp in imports:
        if imp.target in known and imp.target != imp.importer:
            graph[imp.importer].add(imp.target)
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one module, iteratively (no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return sorted(found)


def _one_cycle(comp: list[str], graph: dict[str, set[str]]) -> list[str]:
    """A shortest circle through the component's first module, to show in a message."""
    members, start = set(comp), comp[0]
    prev: dict[str, str] = {}
    queue = [start]
    for node in queue:
        for nxt in sorted(graph[node] & members):
            if nxt == start:
                path = [node]
                while path[-1] != start:
                    path.append(prev[path[-1]])
                return [start] + path[::-1][1:] + [start] if node != start else [start, start]
            if nxt not in prev:
                prev[nxt] = node
                queue.append(nxt)
    return comp


def check_cycles(imports: list[Import], known: set[str]) -> list[Violation]:
    graph = _graph(imports, known)
    return [
        Violation("cycle", " ".join(comp), "circle: " + " -> ".join(_one_cycle(comp, graph))
                  + f" (all {len(comp)} modules of the knot: {', '.join(comp)})")
        for comp in strongly_connected(graph)
    ]


def _package_of(module: str, known_packages: set[str]) -> str:
    return module if module in known_packages else module.rpartition(".")[0]


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def check_private(
    imports: list[Import], known: set[str], packages: set[str],
) -> list[Violation]:
    found = []
    for imp in imports:
        if _top(imp.target) != PACKAGE:
            continue
        for name in imp.names:
            if _private(name):
                found.append(Violation(
                    "private", f"{imp.importer} <- {imp.target}.{name}",
                    f"{imp.importer}:{imp.line} takes private {name} from {imp.target}",
                ))
        leaf = imp.target.rpartition(".")[2]
        owner = imp.target.rpartition(".")[0]
        home = _package_of(imp.importer, packages)
        inside = home == owner or home.startswith(owner + ".")
        if imp.target in known and _private(leaf) and not inside:
            found.append(Violation(
                "private", f"{imp.importer} <- {imp.target}",
                f"{imp.importer}:{imp.line} imports private module {imp.target} from outside "
                f"{owner}",
            ))
    return found


def scan(root: Path = ROOT, parts: Parts | None = None) -> list[Violation]:
    """Every violation in the code under ``root``, sorted and without repeats."""
    parts = parts or Parts.load(root / "docs" / "parts.toml")
    files = module_files(root)
    known = set(files)
    packages = {m for m, p in files.items() if p.name == "__init__.py"}
    imports = [imp for mod, path in files.items() for imp in imports_of(mod, path, known)]
    found = (
        check_arrows(imports, parts, known)
        + check_libraries(imports, parts)
        + check_cycles(imports, known)
        + check_private(imports, known, packages)
    )
    unique = {(v.kind, v.key): v for v in found}
    return [unique[k] for k in sorted(unique)]


def load_debt(path: Path = DEBT_FILE) -> list[dict]:
    if not path.exists():
        return []
    return tomllib.loads(path.read_text(encoding="utf-8")).get("debt", [])


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


DEBT_HEADER = """\
# Today's known violations of the layer rules in docs/parts.toml: the ratchet of
# tests/unit/test_layers.py.  The test fails on a violation not listed here and on a listed one
# that no longer occurs, so this list only shrinks: a fix deletes its entry.  Regenerate with
#     python tests/unit/test_layers.py --write-debt
# which keeps the issue number and note of every entry that survives (comments are not kept:
# put what an entry needs to say in its `note`).
"""


def _inherit(v: Violation, old: dict[tuple[str, str], dict], old_cycles: list[dict]) -> dict:
    """The issue and note of the old entry this violation continues (a cycle by overlap)."""
    entry = old.get((v.kind, v.key))
    if entry is None and v.kind == "cycle":
        mine = set(v.key.split())
        best = max(old_cycles, key=lambda e: len(mine & set(e["key"].split())), default=None)
        if best and mine & set(best["key"].split()):
            entry = best
    return entry or {}


def render_debt(violations: list[Violation], old_entries: list[dict]) -> str:
    old = {(e["kind"], e["key"]): e for e in old_entries}
    old_cycles = [e for e in old_entries if e["kind"] == "cycle"]
    out = [DEBT_HEADER.rstrip("\n")]
    for v in violations:
        entry = _inherit(v, old, old_cycles)
        out += ["", "[[debt]]", f"kind = {_quote(v.kind)}", f"key = {_quote(v.key)}"]
        out.append(f"issue = {int(entry.get('issue', 21))}")
        if entry.get("note"):
            out.append(f"note = {_quote(entry['note'])}")
    return "\n".join(out) + "\n"


def ratchet(violations: list[Violation], entries: list[dict]) -> tuple[list[Violation], list]:
    """(violations not in the debt list, listed entries that no longer occur)."""
    listed = {(e["kind"], e["key"]) for e in entries}
    current = {(v.kind, v.key) for v in violations}
    new = [v for v in violations if (v.kind, v.key) not in listed]
    gone = [e for e in entries if (e["kind"], e["key"]) not in current]
    return new, gone


HOW_TO_FIX = """
A new violation of the layer rules (docs/parts.toml; docs/architecture.md explains them).
Fix the import: move the shared code down to the part both sides may import, pass a
callable or protocol in instead of importing upward, make a private name public, or import
an optional library inside the function that needs it.  If the arrow is right and the parts
file is wrong, change docs/parts.toml in the same commit and say why.  Do not add the
violation to docs/layer-debt.toml: that list only shrinks."""

HOW_TO_SHRINK = """
These debt entries no longer occur: the code got better.  Delete them from
docs/layer-debt.toml (or run: python tests/unit/test_layers.py --write-debt)."""


# ---- the tests -------------------------------------------------------------------------------


def test_parts_file_is_consistent() -> None:
    parts = Parts.load()
    for src, targets in parts.may_import.items():
        assert targets <= set(parts.modules), f"{src} may_import unknown parts {targets}"
    for (src, dst), _why in parts.forbidden.items():
        assert src in parts.modules and dst in parts.modules, f"forbidden {src} -> {dst}"
        assert not parts.allowed(src, dst), f"{src} -> {dst} is both allowed and forbidden"
    for name, lib in parts.libraries.items():
        assert set(lib.get("parts", [])) <= set(parts.modules), f"library {name}: unknown part"
        assert lib.get("parts") or lib.get("modules"), f"library {name} has no owner"
    listed = [m for names in parts.modules.values() for m in names]
    assert len(listed) == len(set(listed)), "a module is listed in two parts"
    known = set(module_files())
    owners = [m for lib in parts.libraries.values() for m in lib.get("modules", [])]
    stale = [m for m in listed + owners if m not in known]
    assert not stale, f"docs/parts.toml names modules that do not exist: {stale}"


def test_every_module_is_in_a_part() -> None:
    parts = Parts.load()
    orphans = [m for m in module_files() if parts.part_of(m) is None]
    assert not orphans, f"modules in no part of docs/parts.toml: {orphans}"


def test_layer_rules_ratchet() -> None:
    violations = scan()
    entries = load_debt()
    for e in entries:
        assert e["kind"] in KINDS and isinstance(e.get("issue"), int), f"bad debt entry {e}"
    new, gone = ratchet(violations, entries)
    message = []
    if new:
        message.append(HOW_TO_FIX)
        message += [f"  [{v.kind}] {v.detail}" for v in new]
    if gone:
        message.append(HOW_TO_SHRINK)
        message += [f"  [{e['kind']}] {e['key']}" for e in gone]
    assert not message, "\n".join(message)


def test_startup_roots_reach_what_vshell_c_true_imports() -> None:
    """Every vshell module ``vshell -c true`` imports is reached from the ``startup`` list
    by module-level imports, so the start-up checks above see its imports too (a module a
    run imports from inside a function needs its own entry there)."""
    code = ("import sys, vshell.cli.main as m\n"
            "assert m.main(['-c', 'true']) == 0\n"
            "print(' '.join(sorted(k for k in sys.modules if k.split('.')[0] == 'vshell')))")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr
    ran = p.stdout.decode().split()
    parts = Parts.load()
    known = module_files()
    imports = [imp for m, path in known.items() for imp in imports_of(m, path, set(known))]
    reached = _eager_closure(parts.startup, imports)
    assert "vshell.interp.simple" in ran and "vshell.vfs.core" in ran, ran
    assert [m for m in ran if m not in reached] == []


def _diagram_arrows(markdown: str) -> set[tuple[str, str]]:
    """The arrows of the mermaid block in docs/architecture.md (``a & b --> c & d``)."""
    block = markdown.split("```mermaid", 1)[1].split("```", 1)[0]
    arrows = set()
    for line in block.splitlines():
        if "-->" not in line:
            continue
        left, right = line.split("-->")
        for src in left.split("&"):
            arrows |= {(src.strip(), dst.strip()) for dst in right.split("&")}
    return arrows


def test_architecture_diagram_matches_parts_file() -> None:
    """The map's diagram draws exactly the allowed arrows (those to records go unsaid)."""
    parts = Parts.load()
    allowed = {(s, d) for s, ds in parts.may_import.items() for d in ds if d != "records"}
    allowed |= {("net", "records"), ("text", "records"), ("contract", "records")}
    drawn = _diagram_arrows((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    assert drawn == allowed, (
        f"docs/architecture.md's diagram and docs/parts.toml disagree: drawn only "
        f"{sorted(drawn - allowed)}, allowed only {sorted(allowed - drawn)}"
    )


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


TOY_PARTS = """
first_party = []
startup = ["vshell"]
lazy_stdlib = ["re"]
[parts.api]
modules = ["vshell", "vshell.other"]
packages = ["vshell.lazy"]
may_import = ["low"]
[parts.low]
packages = ["vshell.low"]
[[forbidden]]
from = "low"
to = "api"
why = "downward only"
[libraries.httpx]
parts = ["low"]
[libraries.mcp]
parts = ["api"]
lazy = true
"""


def test_checker_finds_each_kind(tmp_path: Path) -> None:
    """The checker itself, on a toy tree that breaks every rule once."""
    _write(tmp_path, {
        "docs/parts.toml": TOY_PARTS,
        "vshell/__init__.py": "from vshell.low import a\nfrom vshell.lazy import leaf\n",
        "vshell/low/__init__.py": "",
        "vshell/lazy/__init__.py": "import mcp\nimport re\n",
        "vshell/lazy/leaf.py": "def f():\n    import re\n",
        "vshell/low/a.py": "from . import b\nfrom vshell.low.b import _hidden\n",
        "vshell/low/b.py": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import vshell\n"
            "def f():\n    from vshell.low import a\n    from ..other import x\n"
        ),
        "vshell/low/_priv.py": "",
        "vshell/other.py": "import httpx\nimport yaml\nfrom vshell.low import _priv\n",
    })
    found = {(v.kind, v.key) for v in scan(tmp_path)}
    assert found == {
        ("arrow", "vshell.low.b -> vshell.other"),
        ("cycle", "vshell.low.a vshell.low.b"),
        ("library", "startup -> mcp via vshell.lazy"),
        ("library", "startup -> re via vshell.lazy"),
        ("library", "vshell.other -> httpx"),
        ("library", "vshell.other -> yaml"),
        ("private", "vshell.low.a <- vshell.low.b._hidden"),
        ("private", "vshell.other <- vshell.low._priv"),
    }


def test_ratchet_reports_new_and_gone() -> None:
    now = [Violation("cycle", "a b", ""), Violation("arrow", "x -> y", "")]
    listed = [{"kind": "cycle", "key": "a b", "issue": 21}, {"kind": "private", "key": "p"}]
    new, gone = ratchet(now, listed)
    assert [v.key for v in new] == ["x -> y"]
    assert [e["key"] for e in gone] == ["p"]


def test_write_debt_keeps_notes() -> None:
    old = [
        {"kind": "cycle", "key": "a b c", "issue": 7, "note": "the \"front\" ends"},
        {"kind": "arrow", "key": "x -> y", "issue": 9, "note": "curl"},
    ]
    text = render_debt([Violation("cycle", "a b", ""), Violation("arrow", "x -> y", "")], old)
    back = tomllib.loads(text)["debt"]
    assert back[0] == {"kind": "cycle", "key": "a b", "issue": 7, "note": 'the "front" ends'}
    assert back[1] == {"kind": "arrow", "key": "x -> y", "issue": 9, "note": "curl"}


def main(argv: list[str]) -> int:
    """``--write-debt`` rewrites the debt list; ``--list`` prints every violation."""
    violations = scan()
    if "--write-debt" in argv:
        DEBT_FILE.write_text(render_debt(violations, load_debt()), encoding="utf-8")
        print(f"wrote {len(violations)} entries to {DEBT_FILE.relative_to(ROOT)}")
        return 0
    if "--list" in argv:
        for v in violations:
            print(f"[{v.kind}] {v.detail}")
        return 0
    print("usage: python tests/unit/test_layers.py --write-debt | --list", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
