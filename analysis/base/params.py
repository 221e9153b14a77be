"""Parameter specifications and validated frozen dataclasses.

Every value a user can set — a ruleset variant, a check's target, a fighter's
body — is described by a :class:`Spec`.  A spec parses the value from text (the
CLI, sweep configs), validates it (the Python API), and describes what is
allowed (``--help``, ``dicelab systems``).  Rulesets and fighters subclass
:class:`Validated`, so they are checked once, where they are made.

>>> Int(0, 10).validate("rating", 11)
Traceback (most recent call last):
...
analysis.base.params.ParamError: rating = 11 is not allowed; allowed: an integer in 0..10
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import re
import reprlib
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterable, Mapping, Sequence

LIMIT = 100
"""Default bound on any integer a designer types: |value| <= LIMIT."""

SHOWN_CHARS = 40
"""How much of a value an error message echoes before cutting it."""

_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxtuple, _REPR.maxdict, _REPR.maxstring = 3, 8, 8, 6, SHOWN_CHARS


def shown(value: Any, limit: int = SHOWN_CHARS) -> str:
    """A value as an error message echoes it: its ``repr``, cut to about ``limit`` characters with a length note.

    >>> shown("body")
    "'body'"
    >>> shown("x" * 5000)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…' (5,000 characters)"
    >>> shown(10 ** 60)
    '1000000000000000000000000000000000000000… (61 digits)'
    """
    if isinstance(value, str):
        return repr(value) if len(value) <= limit else f"{value[:limit]!r}"[:-1] + f"…' ({len(value):,} characters)"
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            text = repr(value)
        except ValueError:  # past Python's limit on int -> str conversion
            return f"an integer of about {math.floor(abs(value).bit_length() * math.log10(2)) + 1:,} digits"
        digits = len(text.lstrip("-"))
        return text if len(text) <= limit else f"{text[:limit]}… ({digits:,} digits)"
    try:
        text = _REPR.repr(value)
    except (ValueError, RecursionError):
        return f"a {type(value).__name__}"
    return text if len(text) <= limit + 10 else text[:limit] + "…"


class DicelabError(ValueError):
    """An error the user can act on; the CLI prints it as one line."""


class ParamError(DicelabError):
    """A parameter has a value outside what is allowed."""

    def __init__(self, name: str, value: Any, allowed: str, where: str = ""):
        self.name, self.value, self.allowed = name, value, allowed
        prefix = f"{where}: " if where else ""
        super().__init__(f"{prefix}{name} = {shown(value)} is not allowed; allowed: {allowed}")


class Spec:
    """How one parameter is parsed from text, validated and described."""

    allowed: str = "any value"

    def parse(self, name: str, text: str) -> Any:
        """Turn command-line text into a value (then :meth:`validate` it)."""
        return self.validate(name, text)

    def validate(self, name: str, value: Any) -> Any:
        """Return the canonical value, or raise :class:`ParamError`."""
        return value

    def to_json(self, value: Any) -> Any:
        """The value as it appears in JSON output."""
        return value


MAX_DIGITS = 30
"""The longest number a designer types (characters): anything longer is refused before it is converted."""


def _typed(name: str, text: Any, allowed: str, cast: type, validate: Any) -> Any:
    """``validate(name, cast(text))``; text that is not a plain number is refused echoing it as typed (``0_5`` is
    not read as 5: digit separators, ``inf``, ``nan`` and numbers of more than :data:`MAX_DIGITS` characters).

    >>> _typed("p", "0_5", "a number in (0, 1]", float, lambda n, v: v)
    Traceback (most recent call last):
    ...
    analysis.base.params.ParamError: p = '0_5' is not allowed; allowed: a number in (0, 1]
    """
    try:
        value = plain_number(text, cast)
        if not math.isfinite(value):
            raise ValueError(text)
    except ValueError:
        raise ParamError(name, text, allowed) from None
    return validate(name, value)


def plain_number(text: Any, cast: type) -> Any:
    """``cast(text)`` (``int`` or ``float``) for text that is a plain number, else ``ValueError``: digit separators
    (``0_5``) and more than :data:`MAX_DIGITS` characters are not (``inf`` and ``nan`` are left to the caller).

    >>> plain_number(" 0.75 ", float), plain_number("12", int)
    (0.75, 12)
    """
    typed = str(text).strip()
    if "_" in typed or len(typed) > MAX_DIGITS:
        raise ValueError(f"not a plain number: {typed[:MAX_DIGITS]!r}")
    return cast(typed)


@dataclass(frozen=True)
class Int(Spec):
    """An integer in ``lo..hi``; with ``optional`` also ``None`` (text: ``none``).

    >>> Int(-5, 5).parse("x", "3")
    3
    """

    lo: int = -LIMIT
    hi: int = LIMIT
    optional: bool = False

    @property
    def allowed(self) -> str:  # type: ignore[override]
        text = f"an integer in {self.lo}..{self.hi}"
        return text + " or none" if self.optional else text

    def parse(self, name: str, text: str) -> Any:
        text = str(text).strip()
        if self.optional and text.lower() in ("none", "null"):
            return None
        return _typed(name, text, self.allowed, int, self.validate)

    def validate(self, name: str, value: Any) -> Any:
        if value is None and self.optional:
            return None
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            if isinstance(value, numbers.Real) and float(value).is_integer() and not isinstance(value, bool):
                value = int(value)
            else:
                raise ParamError(name, value, self.allowed)
        value = int(value)
        if not self.lo <= value <= self.hi:
            raise ParamError(name, value, self.allowed)
        return value


@dataclass(frozen=True)
class Float(Spec):
    """A finite number in ``lo..hi`` (``open_lo``/``open_hi`` leave an end out); ``inf`` and ``nan`` are refused.

    >>> Float(0, 1, open_lo=True).parse("p", "0.9999999")
    0.9999999
    >>> Float(0, 1, open_lo=True).parse("p", "nan")
    Traceback (most recent call last):
    ...
    analysis.base.params.ParamError: p = 'nan' is not allowed; allowed: a number in (0, 1]
    """

    lo: float = -math.inf
    hi: float = math.inf
    open_lo: bool = False
    open_hi: bool = False

    @property
    def allowed(self) -> str:  # type: ignore[override]
        if math.isinf(self.lo) and math.isinf(self.hi):
            return "a finite number"
        if math.isinf(self.hi):
            return f"a number {'>' if self.open_lo else '>='} {self.lo:g}"
        if math.isinf(self.lo):
            return f"a number {'<' if self.open_hi else '<='} {self.hi:g}"
        return f"a number in {'(' if self.open_lo else '['}{self.lo:g}, {self.hi:g}{')' if self.open_hi else ']'}"

    def parse(self, name: str, text: str) -> Any:
        return _typed(name, text, self.allowed, float, self.validate)

    def validate(self, name: str, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ParamError(name, value, self.allowed)
        value = float(value)
        low_ok = value > self.lo if self.open_lo else value >= self.lo
        high_ok = value < self.hi if self.open_hi else value <= self.hi
        if not (math.isfinite(value) and low_ok and high_ok):
            raise ParamError(name, value, self.allowed)
        return value


@dataclass(frozen=True)
class Bool(Spec):
    """A boolean; text ``true/false/yes/no/1/0/on/off``.

    >>> Bool().parse("crits", "yes")
    True
    """

    allowed: str = "true or false"
    _TEXT: ClassVar[dict[str, bool]] = {
        "true": True, "yes": True, "1": True, "on": True,
        "false": False, "no": False, "0": False, "off": False,
    }

    def parse(self, name: str, text: str) -> Any:
        key = str(text).strip().lower()
        if key not in self._TEXT:
            raise ParamError(name, text, self.allowed)
        return self._TEXT[key]

    def validate(self, name: str, value: Any) -> Any:
        if isinstance(value, bool):
            return value
        if isinstance(value, numbers.Integral) and value in (0, 1):
            return bool(value)
        if isinstance(value, str):
            return self.parse(name, value)
        raise ParamError(name, value, self.allowed)


@dataclass(frozen=True)
class Choice(Spec):
    """One of a fixed set of values (strings or integers).

    >>> Choice(("3d6", "1d20")).validate("dice", "2d6")
    Traceback (most recent call last):
    ...
    analysis.base.params.ParamError: dice = '2d6' is not allowed; allowed: one of 3d6, 1d20
    """

    choices: tuple = ()

    @property
    def allowed(self) -> str:  # type: ignore[override]
        return "one of " + ", ".join(str(c) for c in self.choices)

    def parse(self, name: str, text: str) -> Any:
        for choice in self.choices:
            if str(choice) == str(text).strip():
                return choice
        raise ParamError(name, text, self.allowed)

    def validate(self, name: str, value: Any) -> Any:
        if isinstance(value, str) and not any(isinstance(c, str) for c in self.choices):
            return self.parse(name, value)
        if isinstance(value, bool) or value not in self.choices:
            raise ParamError(name, value, self.allowed)
        return next(c for c in self.choices if c == value)  # 6.0 is the choice 6, as Int takes 5.0 for 5


@dataclass(frozen=True)
class Faces(Spec):
    """A non-empty tuple of integer die faces, or the name of a preset.

    >>> Faces(presets={"fudge": (-1, 0, 1)}).parse("dk_faces", "fudge")
    (-1, 0, 1)
    >>> Faces().parse("dk_faces", "-2,-1,0,0,1,2")
    (-2, -1, 0, 0, 1, 2)
    """

    presets: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    max_faces: int = 100
    lo: int = -LIMIT
    hi: int = LIMIT

    @property
    def allowed(self) -> str:  # type: ignore[override]
        text = f"a non-empty list of at most {self.max_faces} integers in {self.lo}..{self.hi}"
        if self.presets:
            text += " or one of " + ", ".join(self.presets)
        return text

    def parse(self, name: str, text: str) -> Any:
        key = str(text).strip()
        if key in self.presets:
            return self.presets[key]
        parts = [p for p in key.strip("()[]").replace(" ", "").split(",") if p]
        try:
            values = tuple(int(p) for p in parts)
        except ValueError:
            raise ParamError(name, text, self.allowed) from None
        return self.validate(name, values)

    def validate(self, name: str, value: Any) -> Any:
        if isinstance(value, str):
            return self.parse(name, value)
        if not isinstance(value, Sequence) or isinstance(value, (bytes, str)):
            raise ParamError(name, value, self.allowed)
        if not 0 < len(value) <= self.max_faces:
            raise ParamError(name, tuple(value), self.allowed)
        faces = []
        for face in value:
            if isinstance(face, bool) or not isinstance(face, numbers.Integral) or not self.lo <= face <= self.hi:
                raise ParamError(name, tuple(value), self.allowed)
            faces.append(int(face))
        return tuple(faces)

    def to_json(self, value: Any) -> Any:
        return list(value)


KINDS = ("variant", "constant", "option", "param", "policy")
"""What a field is: a rule *variant* (a reading of the text), a rule *constant* (a number of the book a house
rule may change), a duel *option* (how the lab plays the duel: ``after_out``, ``lethal_at``...), a fighter
*param*, or a fighter's tactical *policy*.  Rulesets list variants, then constants, then options."""


@dataclass(frozen=True)
class Row(Faces):
    """A list of integers, one per named slot, each within its own bounds (strictly increasing if asked).

    >>> Row(names=("fatigue", "light"), bounds=((0, 8), (0, 4))).parse("track", "4,2")
    (4, 2)
    >>> Row(names=("a", "b"), bounds=((1, 9), (1, 9)), increasing=True).validate("t", [3, 3])
    Traceback (most recent call last):
    ...
    analysis.base.params.ParamError: t = (3, 3) is not allowed; allowed: a list of 2 integers (a 1..9, b 1..9), strictly increasing
    """

    names: tuple[str, ...] = ()
    bounds: tuple[tuple[int, int], ...] = ()
    increasing: bool = False

    @property
    def allowed(self) -> str:  # type: ignore[override]
        slots = ", ".join(f"{n} {lo}..{hi}" for n, (lo, hi) in zip(self.names, self.bounds))
        return f"a list of {len(self.names)} integers ({slots})" + (", strictly increasing" if self.increasing else "")

    def validate(self, name: str, value: Any) -> Any:
        if isinstance(value, str):
            return self.parse(name, value)
        if not isinstance(value, Sequence) or len(value) != len(self.names):
            raise ParamError(name, tuple(value) if isinstance(value, Sequence) else value, self.allowed)
        if not all(not isinstance(v, bool) and isinstance(v, numbers.Integral) and lo <= v <= hi
                   for v, (lo, hi) in zip(value, self.bounds)):
            raise ParamError(name, tuple(value), self.allowed)
        out = tuple(int(v) for v in value)
        if self.increasing and any(x >= y for x, y in zip(out, out[1:])):
            raise ParamError(name, out, self.allowed)
        return out


def param(default: Any, spec: Spec, help: str, kind: str = "") -> Any:
    """A dataclass field carrying its :class:`Spec`, a one-line help text and its kind (:data:`KINDS`).

    Without ``kind``, a field of a ruleset is a variant and a field of a fighter a param.
    """
    if kind and kind not in KINDS:
        raise ValueError(f"kind {kind!r} is not one of {KINDS}")
    return field(default=default, metadata={"spec": spec, "help": help, "kind": kind})


@dataclass(frozen=True)
class ParamInfo:
    """What ``--help`` and ``dicelab systems`` say about one parameter."""

    name: str
    default: Any
    allowed: str
    help: str
    kind: str = "variant"


class Validated:
    """Base of frozen dataclasses whose fields are declared with :func:`param`.

    Fields are validated (and canonicalised) on construction; ``where`` names
    the kind of object in error messages.
    """

    where: ClassVar[str] = ""
    default_kind: ClassVar[str] = "variant"
    none_note: ClassVar[str] = ""
    """What to say when a name is given to a class that has no parameters at all."""

    def __post_init__(self) -> None:
        try:
            for f in dataclasses.fields(self):  # type: ignore[arg-type]
                spec: Spec | None = f.metadata.get("spec")
                if spec is not None:
                    object.__setattr__(self, f.name, spec.validate(f.name, getattr(self, f.name)))
            self.check()
        except ParamError as err:
            if not self.where or str(err).startswith(self.where):
                raise
            raise ParamError(err.name, err.value, err.allowed, self.where) from None

    def check(self) -> None:
        """Cross-field validation; subclasses raise :class:`ParamError`."""

    @classmethod
    def _fields(cls) -> list[dataclasses.Field]:
        """The parameter fields: variants, then constants, then options (declaration order within a kind)."""
        fs = [f for f in dataclasses.fields(cls) if "spec" in f.metadata]  # type: ignore[arg-type]
        return sorted(fs, key=lambda f: KINDS.index(cls.kind_of(f)))

    @classmethod
    def kind_of(cls, f: dataclasses.Field) -> str:
        """A field's kind (:data:`KINDS`)."""
        return f.metadata.get("kind") or cls.default_kind

    @classmethod
    def specs(cls, kind: str | None = None) -> dict[str, Spec]:
        """Parameter name -> spec (of one ``kind`` only, if given)."""
        return {f.name: f.metadata["spec"] for f in cls._fields() if kind is None or cls.kind_of(f) == kind}

    @classmethod
    def describe(cls) -> list[ParamInfo]:
        """Every parameter with its default, what is allowed, its help and its kind."""
        return [ParamInfo(f.name, f.metadata["spec"].to_json(f.default), f.metadata["spec"].allowed,
                          f.metadata["help"], cls.kind_of(f)) for f in cls._fields()]

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """Every parameter's default, JSON-ready."""
        return {i.name: i.default for i in cls.describe()}

    @classmethod
    def from_text(cls, values: Mapping[str, str], base: "Validated | None" = None):
        """Build from ``name -> text`` pairs (CLI, configs), over ``base`` or the defaults."""
        specs = cls.specs()
        parsed = {}
        for name, text in values.items():
            if name not in specs:
                raise cls.unknown(name, text)
            try:
                parsed[name] = specs[name].parse(name, text) if isinstance(text, str) else text
            except ParamError as err:
                raise ParamError(err.name, err.value, err.allowed, cls.where) from None
        return dataclasses.replace(base, **parsed) if base is not None else cls(**parsed)

    @classmethod
    def unknown(cls, name: str, value: Any) -> ParamError:
        """The error for a name that is not a parameter: the names allowed, or that there are none."""
        specs = cls.specs()
        allowed = "a parameter among " + ", ".join(specs) if specs else f"none: there are no {cls.where}"
        return ParamError(name, value, allowed + (f" ({cls.none_note})" if cls.none_note and not specs else ""),
                          cls.where)

    def replace(self, **changes: Any):
        """A copy with some fields changed (validated again)."""
        specs = self.specs()
        for name in changes:
            if name not in specs:
                raise self.unknown(name, changes[name])
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]

    def to_dict(self) -> dict[str, Any]:
        """Every parameter and its value, JSON-ready."""
        return {name: spec.to_json(getattr(self, name)) for name, spec in self.specs().items()}

    def house_rules(self) -> dict[str, Any]:
        """The rule constants that differ from the book, JSON-ready (empty for the book's rules)."""
        return changed_constants(type(self), self.to_dict())


def changed_constants(cls: type[Validated], values: Mapping[str, Any]) -> dict[str, Any]:
    """The constants of ``cls`` whose value in ``values`` (JSON-ready) differs from the book's."""
    book = cls.defaults()
    return {name: values[name] for name in cls.specs("constant") if name in values and values[name] != book[name]}


PAIRS_ALLOWED = "name=value pairs separated by commas"


def parse_pairs(text: str, what: str = "value") -> dict[str, str]:
    """Parse ``key=value,key=value`` into a dict of strings; empty text, an empty item, an item without ``=`` and a
    key given twice are refused.

    >>> parse_pairs("body=5,mind=4")
    {'body': '5', 'mind': '4'}
    >>> parse_pairs("dk_faces=-1,0,1")
    {'dk_faces': '-1,0,1'}
    >>> parse_pairs("body=5,body=6", "--a")
    Traceback (most recent call last):
    ...
    analysis.base.params.DicelabError: --a: body is given twice ('5' and '6'); give each name once
    """
    if not text.strip():
        raise DicelabError(f"{what} = {shown(text)} is not allowed; allowed: {PAIRS_ALLOWED}")
    out: dict[str, str] = {}
    for item in _split_pairs(text):
        if not item.strip():
            raise DicelabError(f"{what}: {shown(text)} has an empty item (two commas in a row, or one at an end); "
                               f"allowed: {PAIRS_ALLOWED}")
        key, sep, value = item.partition("=")
        if not sep:
            raise DicelabError(f"{what}: {shown(item.strip())} has no '='; allowed: {PAIRS_ALLOWED}")
        key, value = key.strip(), value.strip()
        if not key:
            raise DicelabError(f"{what}: {shown(item.strip())} has no name before '='; allowed: {PAIRS_ALLOWED}")
        if key in out:
            raise DicelabError(f"{what}: {key} is given twice ({shown(out[key])} and {shown(value)}); "
                               "give each name once")
        out[key] = value
    return out


def merge_pairs(items: Iterable[str], what: str, given: Mapping[str, str] | None = None) -> dict[str, str]:
    """The pairs of a repeatable option (``--variant a=1 --variant b=2``) in one dict, over ``given`` (values that
    other options set); a name set twice, in one item or across them, is refused with both values.

    >>> merge_pairs(["die=6", "shock_rule=true"], "--variant")
    {'die': '6', 'shock_rule': 'true'}
    >>> merge_pairs(["die=6", "die=8"], "--variant")
    Traceback (most recent call last):
    ...
    analysis.base.params.DicelabError: --variant: die is given twice ('6' and '8'); give each name once
    """
    out = dict(given or {})
    for item in items:
        for key, value in parse_pairs(item, what).items():
            if key in out:
                raise DicelabError(f"{what}: {key} is given twice ({shown(out[key])} and {shown(value)}); "
                                   "give each name once")
            out[key] = value
    return out


_LIST_ITEM = re.compile(r"\s*[\[(]?\s*[-+]?\d+\s*[\])]?\s*")


def _split_pairs(text: str) -> list[str]:
    """Split on commas; a chunk that is a bare integer continues the previous value (``faces=-1,0,1`` stays whole),
    any other chunk starts a new item (so ``body=5,mind`` is an item without ``=``, not ``body = '5,mind'``)."""
    items: list[str] = []
    for chunk in text.split(","):
        if items and "=" in items[-1] and _LIST_ITEM.fullmatch(chunk):
            items[-1] += "," + chunk
        else:
            items.append(chunk)
    return items


MAX_NAME = 80
"""The longest fighter name (characters)."""
MAX_NOTE = 2_000
"""The longest fighter note (characters)."""


def check_text(name: str, value: Any, limit: int, where: str = "") -> str:
    """Text a designer names things with: a string of 1 to ``limit`` characters, not blank, every one a character
    (no lone surrogate, which no file or terminal can hold).  Control characters are kept: outputs escape them.

    >>> check_text("name", "", 80)
    Traceback (most recent call last):
    ...
    analysis.base.params.ParamError: name = '' is not allowed; allowed: text of 1 to 80 characters
    """
    allowed = f"text of 1 to {limit:,} characters"
    if not isinstance(value, str) or not value.strip() or len(value) > limit:
        raise ParamError(name, value, allowed, where)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ParamError(name, value, f"{allowed} (a lone surrogate is not a character: the text is not UTF-8)",
                         where) from None
    return value


@dataclass(frozen=True)
class FighterBase(Validated):
    """Base of every system's fighter: a name and a note beside the parameters (:func:`check_text`; the note may be
    empty: none)."""

    default_kind: ClassVar[str] = "param"

    name: str = field(default="fighter", compare=False)
    note: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        check_text("name", self.name, MAX_NAME, self.where)
        if self.note != "":
            check_text("note", self.note, MAX_NOTE, self.where)
        super().__post_init__()

    def replace_meta(self, **meta: str):
        """A copy with another name or note."""
        return dataclasses.replace(self, **meta)  # type: ignore[type-var]
