"""Results that behave as numbers, and the errors the package raises.

One rule everywhere: an Estimate *is* its value (a float subclass: float(), comparisons and
arithmetic use the value and give plain floats) and carries .error, a bound on |true - value|
as estimated by the library; an Interval is a certified enclosure [lo, hi] and is not a
number: float(iv) is its midpoint, and a comparison with a number is True only when it holds
for every point of the interval (iv < 3 means hi < 3), so that a test that passes on an
Interval passes on the true value.
"""
import math
from typing import NamedTuple, Optional, Union

Number = Union[int, float]


class Estimate(float):
    """A double-precision value with an error estimate: |true - value| <= error."""

    __slots__ = ("error",)

    def __new__(cls, value: float, error: float = 0.0) -> "Estimate":
        self = super().__new__(cls, value)
        self.error = float(error)
        return self

    @property
    def value(self) -> float:
        """The value as a plain float."""
        return float(self)

    def __iter__(self):  # (value, error) = estimate
        yield float(self)
        yield self.error

    def __repr__(self) -> str:
        return "Estimate(%r, error=%.2g)" % (float(self), self.error)

    def __str__(self) -> str:
        v, e = float(self), self.error
        if not math.isfinite(v) or e == 0 or not math.isfinite(e) or v == 0:
            return "%.17g +- %.2g" % (v, e) if e else repr(v)
        digits = max(2, min(17, int(math.ceil(-math.log10(e / abs(v)))) if e else 17))
        return "%.*g +- %.2g" % (digits, v, e)

    def __reduce__(self):
        return (Estimate, (float(self), self.error))


class Interval:
    """A certified enclosure lo <= true value <= hi (doubles rounded outward)."""

    __slots__ = ("lo", "hi")

    def __init__(self, lo: float, hi: float) -> None:
        self.lo = float(lo)
        self.hi = float(hi)

    @property
    def mid(self) -> float:
        """The midpoint (inf when both ends are)."""
        if self.lo == self.hi:
            return self.lo
        return self.lo + (self.hi - self.lo) / 2

    @property
    def width(self) -> float:
        return self.hi - self.lo

    def contains(self, x: Number) -> bool:
        """Is x inside [lo, hi]?"""
        return self.lo <= x <= self.hi

    def __contains__(self, x: Number) -> bool:
        return self.contains(x)

    def __float__(self) -> float:
        return self.mid

    def __iter__(self):  # lo, hi = interval
        yield self.lo
        yield self.hi

    def __eq__(self, other) -> bool:
        if isinstance(other, Interval):
            return self.lo == other.lo and self.hi == other.hi
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.lo, self.hi))

    # comparisons with a number hold for every point of the interval
    def __lt__(self, x: Number) -> bool:
        return self.hi < _num(x, "hi")

    def __le__(self, x: Number) -> bool:
        return self.hi <= _num(x, "hi")

    def __gt__(self, x: Number) -> bool:
        return self.lo > _num(x, "lo")

    def __ge__(self, x: Number) -> bool:
        return self.lo >= _num(x, "lo")

    def __repr__(self) -> str:
        return "Interval(%r, %r)" % (self.lo, self.hi)

    def __str__(self) -> str:
        return "[%.17g, %.17g]" % (self.lo, self.hi)


def _num(x, end):
    if isinstance(x, Interval):  # another interval: its far end
        return x.lo if end == "hi" else x.hi
    return float(x)


class Directions(NamedTuple):
    """The two directions: xy = delta_{X,Y} (or D(X||Y)), yx = delta_{Y,X}; .worst, the
    larger."""
    xy: Union[Estimate, Interval]
    yx: Union[Estimate, Interval]

    @property
    def worst(self) -> Union[Estimate, Interval]:
        if isinstance(self.xy, Interval):
            return Interval(max(self.xy.lo, self.yx.lo), max(self.xy.hi, self.yx.hi))
        hi = max(self.xy + self.xy.error, self.yx + self.yx.error)
        top = self.xy if float(self.xy) >= float(self.yx) else self.yx
        return Estimate(float(top), max(top.error, hi - float(top)))


# ------------------------------------------------------------------ errors

STATUS = {0: "GA_OK", 1: "GA_EINVAL", 2: "GA_ENOMEM", 3: "GA_ETOL", 4: "GA_EUNDERFLOW",
          5: "GA_EDOM", 6: "GA_EPREC", 7: "GA_EIO", 8: "GA_EMAXITER", 9: "GA_ETIME",
          10: "GA_EDEP"}


class GaussauditError(Exception):
    """A failure reported by the library: .status (int), .status_name, .message."""

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        self.status_name = STATUS.get(status, "status %d" % status)
        self.message = message
        super().__init__("%s (%s)" % (message, self.status_name))


class InvalidArgument(GaussauditError, ValueError):
    """An argument refused before it reaches the library: the message names it and the rule
    (a ValueError)."""

    def __init__(self, message: str) -> None:
        super().__init__(1, message)


GaussauditArgumentError = InvalidArgument  # (the name of earlier releases)


class SpecError(GaussauditError):
    """A spec the parser or a builder refused: .file, .line, .column (None when the message
    names no position) and .field."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(status, message)
        self.file: Optional[str] = None
        self.line: Optional[int] = None
        self.column: Optional[int] = None
        self.field: Optional[str] = None
        # "<file>:<line>:<col>: <field>: <reason>"
        parts = message.split(": ", 1)
        head = parts[0].rsplit(":", 2)
        if len(head) == 3 and head[1].isdigit() and head[2].isdigit():
            self.file, self.line, self.column = head[0], int(head[1]), int(head[2])
            if len(parts) > 1 and ": " in parts[1]:
                self.field = parts[1].split(": ", 1)[0]


class SpecNotFoundError(GaussauditError, FileNotFoundError):
    """A spec file (or a file it names) that does not exist or cannot be opened."""

    def __init__(self, status: int, message: str) -> None:
        GaussauditError.__init__(self, status, message)


class ComputationError(GaussauditError):
    """An evaluation that failed (.status: GA_EMAXITER, GA_ETIME, GA_EDOM, ...): no value."""
