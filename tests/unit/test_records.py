"""vshell.records behaves as dataclasses does for every feature vshell uses."""

from __future__ import annotations

import dataclasses

import pytest

from vshell import records


def _pair(frozen: bool = False):
    """The same class declared with dataclasses and with records."""
    made = []
    for deco, fld in ((dataclasses.dataclass, dataclasses.field), (records.record, records.field)):

        class Point:
            x: int
            y: int = 0
            tags: list[str] = fld(default_factory=list)
            note: str = fld(default="", repr=False, compare=False)

        made.append(deco(frozen=frozen)(Point))
    return made


@pytest.mark.parametrize("frozen", [False, True])
def test_init_repr_eq_match_args_like_dataclasses(frozen: bool) -> None:
    dc, rc = _pair(frozen)
    for args, kwargs in (((1,), {}), ((1, 2), {}), ((1,), {"tags": ["a"], "note": "n"})):
        a, b = dc(*args, **kwargs), rc(*args, **kwargs)
        assert repr(a).split("(", 1)[1] == repr(b).split("(", 1)[1]
        assert (a.x, a.y, a.tags, a.note) == (b.x, b.y, b.tags, b.note)
    assert rc(1) == rc(1, note="other")  # compare=False
    assert rc(1) != rc(2)
    assert rc(1).__eq__(dc(1)) is NotImplemented
    assert rc.__match_args__ == dc.__match_args__
    assert rc(1).tags is not rc(1).tags  # a fresh default per instance
    with pytest.raises(TypeError):
        rc()
    with pytest.raises(TypeError):
        rc(1, nope=2)


def test_hash_follows_frozen() -> None:
    _, mutable = _pair(False)
    _, frozen = _pair(True)
    with pytest.raises(TypeError):
        hash(mutable(1))

    @records.record(frozen=True)
    class Key:
        a: int
        b: str = "x"

    assert hash(Key(1)) == hash(Key(1, "x"))
    assert {Key(1), Key(1)} == {Key(1)}
    with pytest.raises(records.FrozenInstanceError):
        Key(1).a = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del Key(1).a
    assert frozen(1).x == 1


def test_post_init_replace_and_inheritance() -> None:
    @records.record(frozen=True)
    class Base:
        path: str

        def __post_init__(self) -> None:
            object.__setattr__(self, "path", self.path.rstrip("/") or "/")

    @records.record(frozen=True)
    class Child(Base):
        mode: int = 0

    c = Child("/a/")
    assert (c.path, c.mode) == ("/a", 0)
    d = records.replace(c, mode=5)
    assert (type(d), d.path, d.mode) == (Child, "/a", 5)
    assert [f.name for f in records.fields(Child)] == ["path", "mode"]
    assert records.is_record(c) and records.is_record(Child) and not records.is_record(1)
    with pytest.raises(TypeError):

        @records.record
        class Mutable(Base):
            pass


def test_explicit_methods_are_kept() -> None:
    @records.record
    class Custom:
        a: int

        def __repr__(self) -> str:
            return "custom"

        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = object.__hash__

    assert repr(Custom(1)) == "custom"
    assert Custom(1) == Custom(2)
    assert isinstance(hash(Custom(1)), int)


def test_records_look_like_dataclasses_to_dataclasses() -> None:
    """Hosts may treat vshell's API objects as dataclasses (asdict for JSON, replace)."""
    from vshell import HostMount, Sandbox

    with Sandbox() as sb:
        res = sb.exec("echo hi")
    assert dataclasses.is_dataclass(res)
    as_dict = dataclasses.asdict(res)
    assert (as_dict["stdout"], as_dict["exit_code"]) == (b"hi\n", 0)
    mount = HostMount("/tmp", "/t")
    assert dataclasses.replace(mount, readonly=True) == HostMount("/tmp", "/t", readonly=True)
    _, point = _pair()
    assert [f.name for f in dataclasses.fields(point)] == ["x", "y", "tags", "note"]
    assert dataclasses.asdict(point(1)) == {"x": 1, "y": 0, "tags": [], "note": ""}


@pytest.mark.parametrize("frozen", [False, True])
def test_first_instances_are_bound_as_the_generated_init_binds(frozen: bool) -> None:
    """A record class's first instances are made without compiling its ``__init__`` (a
    compile costs start-up), the later ones by the compiled one: the same fields, the same
    post-init, and a call the generated one refuses fails with the same TypeError."""
    calls = [((1,), {}), ((1, 2), {}), ((), {"x": 1, "tags": ["t"]}), ((1,), {"note": "n"}),
             ((1, 2, ["a"], "b"), {}), ((), {"note": "n", "x": 4, "y": 5})]
    refused = [((), {}), ((1,), {"x": 2}), ((1,), {"zz": 1}), ((1, 2, [], "", 5), {}),
               ((), {"y": 1})]
    dc, rc = _pair(frozen)
    generic = records._GENERIC_INSTANCES
    made = 0
    for _ in range(2):  # the generic binding, then (past its count) the compiled one
        for args, kwargs in calls:
            a, b = dc(*args, **kwargs), rc(*args, **kwargs)
            made += 1
            assert (a.x, a.y, a.tags, a.note) == (b.x, b.y, b.tags, b.note), (args, kwargs)
            compiled = rc.__init__.__qualname__.endswith("Point.__init__")
            assert compiled == (made > generic), made
    _, fresh = _pair(frozen)
    for args, kwargs in refused:  # each refused call compiles: the message is the real one
        with pytest.raises(TypeError) as want:
            dc(*args, **kwargs)
        with pytest.raises(TypeError) as got:
            fresh(*args, **kwargs)
        assert str(got.value) == str(want.value), (args, kwargs)

    seen = []

    @records.record
    class Posted:
        a: int
        b: list[int] = records.field(default_factory=list)

        def __post_init__(self) -> None:
            seen.append((self.a, self.b))

    Posted(1)
    Posted(2, [3])
    assert seen == [(1, []), (2, [3])] and Posted(1).b is not Posted(1).b
