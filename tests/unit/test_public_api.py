"""``vshell.__all__`` is the public surface, as httpx tests its own.

Every name listed imports and says what it is; nothing else at the top level of the package is
public without a leading underscore (submodules aside: they are the package's layout, and
their own names are private unless a module says otherwise).  A new public name goes into
``__all__`` (and, when lazily imported, ``_LAZY``) deliberately, with its docstring.
"""

from __future__ import annotations

import inspect
import subprocess
import sys
import types

import vshell

_NOT_DOCUMENTED_BY_DOCSTRING = {"__version__"}  # a plain string: the release it names


def test_every_listed_name_imports() -> None:
    for name in vshell.__all__:
        assert getattr(vshell, name) is not None, name
    namespace: dict[str, object] = {}
    exec("from vshell import *", namespace)  # noqa: S102 - the star import is the contract
    assert set(vshell.__all__) <= set(namespace)


def test_every_listed_name_is_documented() -> None:
    for name in sorted(set(vshell.__all__) - _NOT_DOCUMENTED_BY_DOCSTRING):
        obj = getattr(vshell, name)
        doc = inspect.getdoc(obj)
        assert doc and doc.strip(), f"vshell.{name} has no docstring"
    assert isinstance(vshell.__version__, str) and vshell.__version__


def test_lazy_names_come_from_the_module_they_name() -> None:
    for name, module in vshell._LAZY.items():
        assert name in vshell.__all__, f"_LAZY lists {name}, which __all__ does not"
        assert getattr(vshell, name) is getattr(sys.modules[module], name), name


def test_all_lists_each_name_once() -> None:
    assert len(vshell.__all__) == len(set(vshell.__all__))


def _public_extras(names: list[str]) -> list[str]:
    """Top-level public names beyond ``__all__`` that are not submodules of vshell."""
    extras = []
    for name in names:
        if name.startswith("_") or name in vshell.__all__:
            continue
        value = getattr(vshell, name)
        if isinstance(value, types.ModuleType) and value.__name__ == f"vshell.{name}":
            continue
        extras.append(name)
    return extras


def test_nothing_else_is_public_at_the_top_level() -> None:
    assert _public_extras(list(vars(vshell))) == []


def test_a_fresh_import_leaves_nothing_else_public() -> None:
    """``import vshell`` alone, before any lazy name is touched (helpers it imports must
    not leak into the namespace)."""
    code = ("import types, vshell\n"
            "print(sorted(k for k, v in vars(vshell).items() if not k.startswith('_')\n"
            "      and k not in vshell.__all__\n"
            "      and not (isinstance(v, types.ModuleType) and v.__name__ == 'vshell.' + k)))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert p.stdout == b"[]\n", p.stdout + p.stderr


def test_unknown_names_raise_attribute_error() -> None:
    try:
        vshell.no_such_name  # noqa: B018 - the lookup is the test
    except AttributeError as e:
        assert "no_such_name" in str(e)
    else:
        raise AssertionError("vshell.no_such_name did not raise")
