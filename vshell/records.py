"""Record classes: the part of :mod:`dataclasses` vshell uses, at a fraction of its start-up cost.

``vshell -c`` is called once per agent step, so start-up is paid on every command.  Importing
:mod:`dataclasses` pulls in ``inspect``, ``ast``, ``dis`` and ``tokenize`` (about 6 ms), and
each decorated class costs about 0.25 ms more (signature objects, several ``exec`` calls);
vshell declares some fifty record classes on its start-up path alone.  :func:`record` gives
the same generated ``__init__`` (compiled on the class's first instance), ``__repr__``,
``__eq__`` (and, when frozen, ``__hash__`` and immutability), ``__match_args__`` and the
``__post_init__`` call, and :func:`replace`, :func:`fields` and :func:`is_record` — nothing
else (no ordering, no slots, no keyword-only fields).  To :mod:`dataclasses` itself a record
looks like a dataclass (``is_dataclass``, ``asdict``, ``replace`` work on it).

It also holds :func:`cast` for the modules on the start-up path: they import nothing of
:mod:`typing` at run time (its names live under ``if TYPE_CHECKING:``).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: importing typing costs every start-up
if not TYPE_CHECKING:
    # What typing's helpers do at run time, without importing typing (with the re, enum and
    # collections it loads, about as much as the interpreter's own start): ``cast`` returns
    # its value, ``overload`` and ``dataclass_transform`` leave the function as it is.
    def cast(_type, value):
        return value

    def overload(func):
        return func

    def dataclass_transform(**_kwargs):
        return overload

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform, overload
    from typing import cast as cast  # vshell's modules import it from here (see above)

    T = TypeVar("T")

__all__ = ["FrozenInstanceError", "field", "fields", "is_record", "record", "replace"]

_MISSING: Any = object()


class FrozenInstanceError(AttributeError):
    """Assignment to a field of a frozen record."""


class _Field:
    """One declared field: its name, default or default factory, and repr/compare flags."""

    __slots__ = ("name", "default", "default_factory", "repr", "compare")

    def __init__(
        self,
        default: Any = _MISSING,
        default_factory: Any = _MISSING,
        repr: bool = True,  # noqa: A002 - the dataclasses spelling
        compare: bool = True,
    ) -> None:
        self.name = ""
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare


def field(
    *,
    default: Any = _MISSING,
    default_factory: Callable[[], Any] | Any = _MISSING,
    repr: bool = True,  # noqa: A002 - the dataclasses spelling
    compare: bool = True,
) -> Any:
    """A field with a default factory, or left out of ``repr`` / ``==`` (as in dataclasses)."""
    return _Field(default, default_factory, repr, compare)


def _own_fields(cls: type) -> list[_Field]:
    fields = []
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        if str(annotation).startswith(("ClassVar", "typing.ClassVar")):
            continue
        value = cls.__dict__.get(name, _MISSING)
        spec = value if isinstance(value, _Field) else _Field(default=value)
        spec.name = name
        if isinstance(value, _Field):
            if spec.default is _MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, spec.default)
        fields.append(spec)
    return fields


def _init_source(fields: list[_Field], frozen: bool, post_init: bool) -> tuple[str, dict]:
    params, body = [], []
    env: dict[str, Any] = {"_MISSING": _MISSING, "_set": object.__setattr__}
    for f in fields:
        if f.default_factory is not _MISSING:
            env[f"_f_{f.name}"] = f.default_factory
            params.append(f"{f.name}=_MISSING")
            value = f"_f_{f.name}() if {f.name} is _MISSING else {f.name}"
        elif f.default is not _MISSING:
            env[f"_d_{f.name}"] = f.default
            params.append(f"{f.name}=_d_{f.name}")
            value = f.name
        else:
            params.append(f.name)
            value = f.name
        body.append(f"_set(self, {f.name!r}, {value})" if frozen else f"self.{f.name} = {value}")
    if post_init:
        body.append("self.__post_init__()")
    source = f"def __init__(self, {', '.join(params)}):\n    " + "\n    ".join(body or ["pass"])
    return source, env


# A record class's first instances are made by one generic ``__init__`` that binds the
# arguments as the generated one would; the class compiles its own at the instance after
# these.  Compiling costs ~150 µs a class in a fresh process (12 classes make 2 ms of a
# ``vshell -c true``), binding generically a few µs an instance.
_GENERIC_INSTANCES = 8


def _bind(fields: list[_Field], args: tuple[Any, ...], kwargs: dict[str, Any]
          ) -> list[Any] | None:
    """Each field's value for a call with ``args`` and ``kwargs`` (``_MISSING`` where its
    default factory is to be called), or None for a call the generated ``__init__`` would
    refuse: that one is then compiled, and raises the TypeError."""
    if len(args) > len(fields):
        return None
    values = list(args)
    taken = 0
    for f in fields[len(args):]:
        if f.name in kwargs:
            values.append(kwargs[f.name])
            taken += 1
        elif f.default_factory is not _MISSING:
            values.append(_MISSING)
        elif f.default is not _MISSING:
            values.append(f.default)
        else:
            return None  # a required argument is missing
    return values if taken == len(kwargs) else None  # else a name given twice, or unknown


def _defaults_last(fields: list[_Field]) -> bool:
    """Whether no required field follows one with a default."""
    defaulted = False
    for f in fields:
        if f.default is not _MISSING or f.default_factory is not _MISSING:
            defaulted = True
        elif defaulted:
            return False
    return True


def _deferred_init(cls: type, fields: list[_Field], frozen: bool) -> Callable[..., None]:
    """An ``__init__`` that binds the arguments generically for the class's first instances
    and then compiles the real one and steps aside (see _GENERIC_INSTANCES): most record
    classes make few instances, or none, in a short ``vshell -c`` run."""
    made = 0
    post_init: bool | None = None  # whether the class has __post_init__ (asked once)
    # as the generated one: a field named "self" or a required one after a defaulted one
    # makes it a SyntaxError, which only compiling it raises
    bindable = _defaults_last(fields) and all(f.name != "self" for f in fields)
    assign = object.__setattr__ if frozen else setattr

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        nonlocal made, post_init
        if post_init is None:
            post_init = hasattr(cls, "__post_init__")
        made += 1
        values = _bind(fields, args, kwargs) if made <= _GENERIC_INSTANCES and bindable \
            else None
        if values is None:
            init = _compile_init(cls, fields, frozen, post_init)
            init(self, *args, **kwargs)
            return
        for f, value in zip(fields, values, strict=True):
            if value is _MISSING and f.default_factory is not _MISSING:
                value = f.default_factory()
            assign(self, f.name, value)
        if post_init:
            self.__post_init__()

    return __init__


def _compile_init(cls: type, fields: list[_Field], frozen: bool, post_init: bool
                  ) -> Callable[..., None]:
    """The generated ``__init__`` of ``cls``, compiled and put in the class."""
    source, env = _init_source(fields, frozen, post_init)
    exec(source, env)  # noqa: S102 - our own generated source, as dataclasses does
    init: Callable[..., None] = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    type.__setattr__(cls, "__init__", init)
    return init


def _repr(self: Any) -> str:
    shown = [f for f in self.__record_fields__ if f.repr]
    parts = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in shown)
    return f"{type(self).__qualname__}({parts})"


def _compared(self: Any) -> tuple[Any, ...]:
    return tuple(getattr(self, f.name) for f in self.__record_fields__ if f.compare)


def _eq(self: Any, other: object) -> bool:
    if other.__class__ is not self.__class__:
        return NotImplemented
    return _compared(self) == _compared(other)


def _hash(self: Any) -> int:
    return hash(_compared(self))


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


class _DataclassFields:
    """``__dataclass_fields__``, built on first use: ``dataclasses.is_dataclass``, ``fields``,
    ``asdict`` and ``replace`` then work on records (hosts may serialize a Result that
    way), and only a host that asks pays for importing :mod:`dataclasses`."""

    def __get__(self, obj: Any, owner: type) -> dict[str, Any]:
        import dataclasses

        built = {}
        for f in owner.__record_fields__:  # type: ignore[attr-defined]  # set on every record class by record()
            kwargs: dict[str, Any] = {}
            if f.default_factory is not _MISSING:
                kwargs["default_factory"] = f.default_factory
            elif f.default is not _MISSING:
                kwargs["default"] = f.default
            spec = dataclasses.field(repr=f.repr, compare=f.compare, **kwargs)
            spec.name = f.name
            spec._field_type = dataclasses._FIELD  # type: ignore[attr-defined]  # dataclasses' private field marker, so dataclasses.fields() works
            built[f.name] = spec
        type.__setattr__(owner, "__dataclass_fields__", built)
        return built


def _build(cls: type[T], frozen: bool) -> type[T]:
    if not frozen and any(b.__dict__.get("__record_frozen__") for b in cls.__mro__[1:]):
        raise TypeError("cannot inherit non-frozen record from a frozen one")
    cls.__record_frozen__ = frozen  # type: ignore[attr-defined]  # record()'s own class attribute
    inherited: dict[str, _Field] = {}
    for base in reversed(cls.__mro__[1:]):
        for f in base.__dict__.get("__record_fields__", ()):
            inherited[f.name] = f
    for f in _own_fields(cls):
        inherited[f.name] = f
    fields = list(inherited.values())
    cls.__record_fields__ = tuple(fields)  # type: ignore[attr-defined]  # record()'s own class attribute
    # The generated members are installed with type.__setattr__: the class is being built,
    # which a type checker cannot follow (it sees only the class body).
    install = type.__setattr__
    install(cls, "__match_args__", tuple(f.name for f in fields))
    install(cls, "__dataclass_fields__", _DataclassFields())
    own = cls.__dict__
    if "__init__" not in own:
        install(cls, "__init__", _deferred_init(cls, fields, frozen))
    if "__repr__" not in own:
        install(cls, "__repr__", _repr)
    if "__eq__" not in own:
        install(cls, "__eq__", _eq)
        install(cls, "__hash__", _hash if frozen else None)
    if frozen:
        install(cls, "__setattr__", _frozen_setattr)
        install(cls, "__delattr__", _frozen_delattr)
    return cls


@overload
def record(cls: type[T], /) -> type[T]: ...
@overload
def record(*, frozen: bool = False) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(field_specifiers=(field,))
def record(cls: type[T] | None = None, /, *, frozen: bool = False) -> Any:
    """Class decorator: ``@record`` or ``@record(frozen=True)``, like ``@dataclass``."""
    if cls is None:
        return lambda c: _build(c, frozen)
    return _build(cls, frozen)


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of record ``obj`` with some fields changed (``dataclasses.replace``)."""
    values = {f.name: getattr(obj, f.name) for f in obj.__record_fields__}  # type: ignore[attr-defined]  # set on every record class by record()
    values.update(changes)
    return obj.__class__(**values)


def fields(obj: Any) -> tuple[_Field, ...]:
    """The fields of a record class or instance, in ``__init__`` order."""
    return obj.__record_fields__


def is_record(obj: Any) -> bool:
    """Whether ``obj`` is a record class or an instance of one."""
    return hasattr(type(obj) if not isinstance(obj, type) else obj, "__record_fields__")
