"""gaussaudit: exact and certified privacy profiles of Gaussian mechanisms.

A thin binding over libgaussaudit.so with the standard library's ctypes. Matrices may be
nested lists or NumPy arrays of any real dtype and memory layout (NumPy is optional). Every
error of the library is raised as GaussauditError carrying its message and status.

    >>> import gaussaudit
    >>> gaussaudit.delta([0], [[1]], [1], [[1]], 1.0)        # the analytic Gaussian mechanism
    Directions(xy=Estimate(value=0.12693673750664..., error=...), yx=...)
"""
import ctypes
import json
import math
import os
import tempfile
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union

from . import _native as _n
from ._types import (ComputationError, Directions, Estimate, GaussauditArgumentError,
                     GaussauditError, InvalidArgument, Interval, SpecError, SpecNotFoundError,
                     STATUS as _STATUS)

__version__ = _n.PACKAGE_VERSION
__all__ = ["delta", "epsilon", "renyi", "audit", "audit_shard", "merge", "calibrate", "subsampled",
           "Subsampled", "profile", "Profile",
           "GaussauditError", "InvalidArgument", "SpecError", "SpecNotFoundError",
           "ComputationError", "GaussauditArgumentError",
           "Estimate", "Interval", "Directions", "AuditResult", "Claim", "Calibration"]

Matrix = Any   # a nested list or a NumPy array of real numbers
Spec = Union[str, "os.PathLike[str]", Dict[str, Any]]
Real = Union[int, float, str]


def _real(name: str, x: Any, lo: float = -math.inf, hi: float = math.inf,
          lo_open: bool = False) -> float:
    """x as a finite float in [lo, hi] (lo excluded with lo_open), or an error naming it; a
    decimal str is read as written (its text goes to the certified path unchanged)"""
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise GaussauditArgumentError("%s: expected a number, got %r" % (name, x)) from None
    if isinstance(x, bool) or not math.isfinite(v) or v < lo or v > hi or (lo_open and v == lo):
        rule = ("in %s%g, %g]" % ("(" if lo_open else "[", lo, hi) if math.isfinite(hi) else
                "%s %g" % (">" if lo_open else ">=", lo) if math.isfinite(lo) else "")
        raise InvalidArgument("%s: must be a finite number %s (got %r)" % (name, rule, x))
    return v


def _one_of(name: str, v: Any, alias: str, w: Any) -> Any:
    """the value given under name or under its alias (exactly one of them)"""
    if (v is None) == (w is None):
        raise InvalidArgument("%s: give it (or %s) exactly once" % (name, alias))
    return v if v is not None else w


def _delta_arg(delta: Any, name: str = "delta") -> float:
    """delta as a float in the open interval (0, 1), or InvalidArgument naming it"""
    v = _real(name, delta, 0, 1, lo_open=True)
    if v == 1:
        raise InvalidArgument("%s: must be a number in (0, 1) (got %r)" % (name, delta))
    return v


def _whole(name: str, x: Any, lo: float, hi: float) -> int:
    """x as a whole number in [lo, hi] (an int, or a float with no fraction), never truncated"""
    if isinstance(x, bool) or not isinstance(x, (int, float)) or \
            (isinstance(x, float) and not (math.isfinite(x) and x == int(x))) or \
            not lo <= x <= hi:
        raise GaussauditArgumentError("%s: must be a whole number from %g to %g (got %r)" %
                                      (name, lo, hi, x))
    return int(x)


def _message(status: int, msg) -> str:
    if msg is not None and msg.value:
        return msg.value.decode("utf-8", "replace")
    return _n.lib.ga_strerror(status).decode()


def _check(status: int, msg, allowed=(0,), what: str = "compute") -> None:
    """Raise for a status outside allowed: what is "spec" (loading a spec: SpecError,
    SpecNotFoundError), "argument" (InvalidArgument) or "compute" (ComputationError)."""
    if status in allowed:
        return
    text = _message(status, msg)
    if status == 2:
        raise MemoryError(text)
    if what == "spec":
        if status == 7 and ("No such file" in text or "cannot open" in text):
            raise SpecNotFoundError(status, text)
        if status in (1, 7):
            raise SpecError(status, text)
    if what == "argument" and status == 1:
        raise InvalidArgument(text)
    raise ComputationError(status, text)


def _floats(x, name):
    """x as a flat list of floats and its shape; NumPy arrays of any dtype and layout."""
    try:
        import numpy as np
    except ImportError:
        np = None
    if np is not None and not isinstance(x, (list, tuple)):
        a = np.asarray(x)
        if a.dtype.kind not in "biuf":
            raise InvalidArgument("%s: expected real numbers (dtype %s)" % (name, a.dtype))
        a = np.ascontiguousarray(a, dtype=np.float64)
        return [float(v) for v in a.ravel()], a.shape
    if isinstance(x, (int, float)):
        return [float(x)], ()
    rows = list(x)
    if rows and isinstance(rows[0], (list, tuple)) or (np is not None and rows and
                                                      hasattr(rows[0], "__len__")):
        flat = []
        for r in rows:
            r = list(r)
            if len(r) != len(list(rows[0])):
                raise InvalidArgument("%s: ragged rows" % name)
            flat.extend(float(v) for v in r)
        return flat, (len(rows), len(list(rows[0])) if rows else 0)
    return [float(v) for v in rows], (len(rows),)


class _Pair:
    """A reduced pair (ga_pair) with the arrays it was built from kept alive."""

    def __init__(self, mean_x, cov_x, mean_y, cov_y, columns):
        mx, smx = _floats(mean_x, "mean_x")
        my, smy = _floats(mean_y, "mean_y")
        sx, ssx = _floats(cov_x, "cov_x")
        sy, ssy = _floats(cov_y, "cov_y")
        d = len(mx)
        if len(smx) > 1 or len(smy) > 1 or len(my) != d:
            raise InvalidArgument("mean_x and mean_y must be vectors of the same length")
        for name, v, shape in (("cov_x", sx, ssx), ("cov_y", sy, ssy)):
            if len(shape) != 2 or shape[0] != d or shape[1] != d:
                raise InvalidArgument("%s must be a %d x %d matrix (got shape %s)" %
                                      (name, d, d, tuple(shape)))
        arr = ctypes.c_double * max(d * d, 1)
        self._mx, self._my = (ctypes.c_double * max(d, 1))(*mx), (ctypes.c_double * max(d, 1))(*my)
        self._sx, self._sy = arr(*sx), arr(*sy)
        self.input = _n.PairInput(d, self._mx, self._my, self._sx, self._sy, float(columns),
                                  (ctypes.c_char_p * 4)(b"mean_x", b"mean_y", b"cov_x", b"cov_y"))
        self.p = ctypes.c_void_p()
        msg = ctypes.create_string_buffer(_n.ERRMSG)
        _check(_n.lib.ga_pair_reduce(ctypes.byref(self.p), ctypes.byref(self.input), msg,
                                     _n.ERRMSG), msg, what="argument")

    def __del__(self):
        if getattr(self, "p", None):
            _n.lib.ga_pair_free(self.p)
            self.p = None


def _work():
    w = _n.lib.ga_gchisq_work_alloc()
    if not w:
        raise MemoryError("out of memory")
    return w


def _decimal(x):
    """A number as the decimal text the certified path reads exactly: a str as written, a
    float as its shortest round-trip decimal."""
    return x if isinstance(x, str) else repr(float(x))


def _pair_delta(p, pin, eps, certified):
    """delta of a reduced pair p (its ga_pair_input pin, or None) at eps, both directions."""
    if certified:
        c = _n.DeltaCert()
        st = _n.lib.ga_pair_delta_cert(ctypes.byref(c), p, pin, None, _decimal(eps).encode(),
                                       None)
        _check(st, None, (0, 6))  # GA_EPREC: valid, wider than asked
        return Directions(Interval(c.xy.lo, c.xy.hi), Interval(c.yx.lo, c.yx.hi))
    w = _work()
    try:
        d = _n.Delta()
        st = _n.lib.ga_pair_delta(ctypes.byref(d), p, float(eps), 0, None, w)
    finally:
        _n.lib.ga_gchisq_work_free(w)
    _check(st, None, (0, 3))  # GA_ETOL: values with honest (larger) error estimates
    return Directions(Estimate(d.xy.val, d.xy.err), Estimate(d.yx.val, d.yx.err))


def delta(mean_x: Matrix, cov_x: Matrix, mean_y: Matrix, cov_y: Matrix, eps: Real, *,
          columns: int = 1, certified: bool = False) -> Directions:
    """delta(eps) of X = N(mean_x, cov_x) against Y = N(mean_y, cov_y) (columns iid copies),
    both directions: Estimate(value, error) each, or with certified=True Interval(lo, hi)
    each (eps then read as the exact decimal it prints as, or as a str)."""
    _real("eps", eps, 0)
    p = _Pair(mean_x, cov_x, mean_y, cov_y, _whole("columns", columns, 1, 1e15))
    return _pair_delta(p.p, ctypes.byref(p.input), eps, certified)


def epsilon(mean_x: Matrix, cov_x: Matrix, mean_y: Matrix, cov_y: Matrix, *, delta: Real,
            columns: int = 1, certified: bool = False) -> Union[Estimate, Interval]:
    """The smallest eps with max(delta_XY, delta_YX)(eps) <= delta: Estimate, or with
    certified=True the Interval that contains it. inf when the supports differ."""
    _delta_arg(delta)
    p = _Pair(mean_x, cov_x, mean_y, cov_y, _whole("columns", columns, 1, 1e15))
    direction = ctypes.c_int()
    if certified:
        iv = _n.Interval()
        st = _n.lib.ga_pair_epsilon_cert(ctypes.byref(iv), ctypes.byref(direction), p.p,
                                         ctypes.byref(p.input), None, _decimal(delta).encode(),
                                         None)
        if st == 5:
            return Interval(math.inf, math.inf)
        _check(st, None)
        return Interval(iv.lo, iv.hi)
    w = _work()
    try:
        e = _n.Result()
        st = _n.lib.ga_pair_epsilon(ctypes.byref(e), ctypes.byref(direction), p.p, float(delta),
                                    None, w)
    finally:
        _n.lib.ga_gchisq_work_free(w)
    if st == 5:
        return Estimate(math.inf, 0.0)
    _check(st, None, (0, 3))
    return Estimate(e.val, e.err)


def renyi(mean_x: Matrix, cov_x: Matrix, mean_y: Matrix, cov_y: Matrix, *, alpha: Real,
          columns: int = 1, certified: bool = False) -> Directions:
    """Renyi divergences D_alpha(X||Y), D_alpha(Y||X) (alpha > 1): Estimate each, or
    Interval each with certified=True; inf where the divergence is infinite."""
    _real("alpha", alpha, 1, lo_open=True)
    p = _Pair(mean_x, cov_x, mean_y, cov_y, _whole("columns", columns, 1, 1e15))
    if certified:
        a, b = _n.Interval(), _n.Interval()
        st = _n.lib.ga_pair_renyi_cert(ctypes.byref(a), ctypes.byref(b), p.p,
                                       ctypes.byref(p.input), None, _decimal(alpha).encode(),
                                       None)
        _check(st, None, (0, 6))
        return Directions(Interval(a.lo, a.hi), Interval(b.lo, b.hi))
    a, b = _n.Result(), _n.Result()
    _check(_n.lib.ga_pair_renyi(ctypes.byref(a), ctypes.byref(b), p.p, float(alpha)), None)
    return Directions(Estimate(a.val, a.err), Estimate(b.val, b.err))


# ------------------------------------------------------------------ subsampled Gaussian (DP-SGD)

class Subsampled:
    """Poisson-subsampled Gaussian steps (DP-SGD accounting): rate q, noise multiplier sigma
    (noise std / clipping norm), steps T; the remove relation (X: the record is in the data)
    or, with add=True, the add relation. Exact composition of the T steps through the
    one-dimensional privacy loss; q = 1 is the Gaussian mechanism.

    >>> s = gaussaudit.subsampled(rate=256 / 60000, sigma=1.12, steps=14063)
    >>> s.epsilon(delta=1e-5)           # the exact eps (an Estimate)
    >>> s.rdp_accountant(delta=1e-5)    # what an RDP accountant reports, for comparison
    >>> s.pld_accountant(delta=1e-5)    # and a PLD accountant
    """

    def __init__(self, rate: Optional[Real] = None, sigma: Optional[Real] = None,
                 steps: int = 1, add: bool = False, *, sample_rate: Optional[Real] = None,
                 noise_multiplier: Optional[Real] = None, batch_size: Optional[int] = None,
                 dataset_size: Optional[int] = None) -> None:
        sigma = _one_of("sigma", sigma, "noise_multiplier", noise_multiplier)
        sg = _real("sigma", sigma, 0.001, 1e6)
        self._s = _decimal(sigma).encode() if isinstance(sigma, str) else None
        self._den = None
        if batch_size is not None or dataset_size is not None:
            # fixed-size batches (add/remove neighbours): the rate b/n, exactly, sensitivity 2
            if rate is not None or sample_rate is not None:
                raise InvalidArgument("rate: give a rate or batch_size and dataset_size, not both")
            n = _whole("dataset_size", dataset_size, 2, 2.0 ** 53)
            b = _whole("batch_size", batch_size, 1, n - 1)
            q, self._q, self._den = b / n, str(b).encode(), str(n).encode()
        else:
            rate = _one_of("rate", rate, "sample_rate", sample_rate)
            q = _real("rate", rate, 0, 1, lo_open=True)
            self._q = _decimal(rate).encode() if isinstance(rate, str) else None
        self.input = _n.SubsampledInput(q, sg, float(_whole("steps", steps, 1, 1e9)),
                                        int(bool(add)), self._q, self._s)
        if self._den:
            self.input.norm, self.input.norm_txt, self.input.q_den_txt = 2.0, b"2", self._den
        self.p = ctypes.c_void_p()
        msg = ctypes.create_string_buffer(_n.ERRMSG)
        _check(_n.lib.ga_pair_reduce_subsampled(ctypes.byref(self.p), ctypes.byref(self.input),
                                                1, msg, _n.ERRMSG), msg, what="argument")

    def __del__(self):
        if getattr(self, "p", None):
            _n.lib.ga_pair_free(self.p)
            self.p = None

    def delta(self, eps: Real, *, certified: bool = False) -> Directions:
        """delta(eps) in both directions: Estimate each; certified=True (one step only)
        Interval each."""
        _real("eps", eps, 0)
        return _pair_delta(self.p, None, eps, certified)

    def epsilon(self, *, delta: Real) -> Estimate:
        """The smallest eps with max(delta_XY, delta_YX)(eps) <= delta (an Estimate)."""
        _delta_arg(delta)
        w = _work()
        try:
            e, direction = _n.Result(), ctypes.c_int()
            st = _n.lib.ga_pair_epsilon(ctypes.byref(e), ctypes.byref(direction), self.p,
                                        float(delta), None, w)
        finally:
            _n.lib.ga_gchisq_work_free(w)
        _check(st, None, (0, 3))
        return Estimate(e.val, e.err)

    def renyi(self, *, alpha: Real) -> Directions:
        """Renyi divergences of order alpha > 1 in both directions (Estimates)."""
        _real("alpha", alpha, 1, lo_open=True)
        a, b = _n.Result(), _n.Result()
        _check(_n.lib.ga_pair_renyi(ctypes.byref(a), ctypes.byref(b), self.p, float(alpha)), None)
        return Directions(Estimate(a.val, a.err), Estimate(b.val, b.err))

    def rdp_accountant(self, *, delta: Real) -> Tuple[float, int]:
        """(eps, order): what an RDP accountant reports at delta (integer orders 2..256, the
        conversion of Balle et al. 2020, Theorem 21, as today's accountants use); an upper
        bound of the exact eps."""
        e, order = ctypes.c_double(), ctypes.c_int()
        _check(_n.lib.ga_pair_rdp_accountant(ctypes.byref(e), ctypes.byref(order), self.p,
                                             float(delta)), None)
        return e.value, order.value

    def pld(self, *, grid: Real = 1e-4, pessimistic: bool = True) -> Dict[str, Any]:
        """One step's privacy-loss distributions, certified for composition (what `gaussaudit
        pld` writes): {"value_discretization_interval", "pessimistic_estimate", "remove",
        "add"}, each direction {"lowest_loss_index", "probability_mass_function",
        "infinity_mass"}, mass i at the loss (lowest_loss_index + i) * grid. Pessimistic
        laws compose (in any accountant's convolution) to a delta at or above the true one,
        optimistic ones (pessimistic=False) at or below. The rate and sigma are read as the
        decimals given (a float: its shortest round-trip decimal)."""
        h = _real("grid", grid, 0, 1, lo_open=True)
        rm, ad = _n.PldPmf(), _n.PldPmf()
        step = _n.SubsampledInput(self.input.q, self.input.sigma, 1.0, 0,
                                  self._q or _decimal(self.input.q).encode(),
                                  self._s or _decimal(self.input.sigma).encode())
        if self._den:
            step.norm, step.norm_txt, step.q_den_txt = 2.0, b"2", self._den
        st = _n.lib.ga_subsampled_pld_step(ctypes.byref(rm), ctypes.byref(ad),
                                           ctypes.byref(step), h, int(bool(pessimistic)), 0.0)
        _check(st, None)
        try:
            def law(p):
                return {"lowest_loss_index": p.k0,
                        "probability_mass_function": [p.mass[i] for i in range(p.n)],
                        "infinity_mass": p.infinity_mass}
            return {"value_discretization_interval": h,
                    "pessimistic_estimate": bool(pessimistic),
                    "remove": law(rm), "add": law(ad)}
        finally:
            _n.lib.ga_pld_pmf_clear(ctypes.byref(rm))
            _n.lib.ga_pld_pmf_clear(ctypes.byref(ad))

    def pld_accountant(self, *, delta: Real, grid: Real = 1e-4) -> float:
        """eps that a PLD accountant (connect the dots on a grid of this spacing, FFT
        composition) reports at delta: slightly above the exact eps; for comparison."""
        e = ctypes.c_double()
        _check(_n.lib.ga_pair_pld_accountant(ctypes.byref(e), self.p,
                                             _real("delta", delta, 0, 1, lo_open=True),
                                             _real("grid", grid, 0, 1, lo_open=True)), None)
        return e.value


def subsampled(rate: Optional[Real] = None, sigma: Optional[Real] = None, steps: int = 1,
               add: bool = False, *, sample_rate: Optional[Real] = None,
               noise_multiplier: Optional[Real] = None, batch_size: Optional[int] = None,
               dataset_size: Optional[int] = None) -> Subsampled:
    """Poisson-subsampled Gaussian steps (see Subsampled); sample_rate and noise_multiplier
    are the names Opacus and dp_accounting use for rate and sigma. With batch_size and
    dataset_size instead of a rate: fixed-size batches drawn without replacement (add/remove
    neighbours: the rate batch_size/dataset_size, exactly, with sensitivity 2)."""
    return Subsampled(rate, sigma, steps, add, sample_rate=sample_rate,
                      noise_multiplier=noise_multiplier, batch_size=batch_size,
                      dataset_size=dataset_size)


# ------------------------------------------------------------------ a spec's privacy profile

class Profile:
    """A spec's privacy profile over all its neighbouring pairs (built and reduced once):
    delta(eps) and epsilon(delta), the largest over the pairs and both directions, as
    Estimates or, with certified=True, Intervals. The spec's claim is not read.

    >>> p = gaussaudit.profile({"gaussaudit": 1, "mechanism": {"kind": "subsampled_gaussian",
    ...                         "rate": 0.01, "sigma": 1.0, "steps": 1000}})
    >>> p.epsilon(delta=1e-5)
    """

    def __init__(self, spec: Spec, *, timeout: float = 0.0, allow_paths: Iterable[str] = (),
                 jobs: int = 0) -> None:
        path, text = _spec_source(spec)
        o = _options(False, timeout, allow_paths, jobs=jobs)
        h = ctypes.c_void_p()
        msg = ctypes.create_string_buffer(_n.ERRMSG)
        if path is not None:
            st = _n.lib.ga_profile_spec_file(ctypes.byref(h), os.fsencode(path), ctypes.byref(o),
                                             msg, _n.ERRMSG)
        else:
            b = text.encode()
            st = _n.lib.ga_profile_spec_text(ctypes.byref(h), b, len(b), b"<spec>",
                                             ctypes.byref(o), msg, _n.ERRMSG)
        _check(st, msg, what="spec")
        self._h = h

    def __del__(self):
        if getattr(self, "_h", None):
            _n.lib.ga_profile_free(self._h)
            self._h = None

    @property
    def npairs(self) -> int:
        """The number of neighbouring pairs the profile is the maximum over."""
        return _n.lib.ga_profile_npairs(self._h)

    def delta(self, epsilon: Real, *, certified: bool = False) -> Union[Estimate, Interval]:
        """delta(epsilon): an Estimate, or with certified=True an Interval (epsilon read as the
        exact decimal it prints as, or as a str)."""
        _real("epsilon", epsilon, 0)
        if certified:
            iv = _n.Interval()
            st = _n.lib.ga_profile_delta_cert(ctypes.byref(iv), self._h,
                                              _decimal(epsilon).encode())
            _check(st, None, (0, 6))
            return Interval(iv.lo, iv.hi)
        r = _n.Result()
        _check(_n.lib.ga_profile_delta(ctypes.byref(r), self._h, float(epsilon)), None, (0, 3))
        return Estimate(r.val, r.err)

    def epsilon(self, delta: Real, *, certified: bool = False) -> Union[Estimate, Interval]:
        """The smallest epsilon with delta(epsilon) <= delta: an Estimate, or with
        certified=True an Interval; inf when some pair's supports differ."""
        _delta_arg(delta)
        if certified:
            iv = _n.Interval()
            st = _n.lib.ga_profile_epsilon_cert(ctypes.byref(iv), self._h,
                                                _decimal(delta).encode())
            if st == 5:
                return Interval(math.inf, math.inf)
            _check(st, None, (0, 6))
            return Interval(iv.lo, iv.hi)
        r = _n.Result()
        st = _n.lib.ga_profile_epsilon(ctypes.byref(r), self._h, float(delta))
        if st == 5:
            return Estimate(math.inf, 0.0)
        _check(st, None, (0, 3))
        return Estimate(r.val, r.err)


def profile(spec: Spec, *, timeout: float = 0.0, allow_paths: Iterable[str] = (),
            jobs: int = 0) -> Profile:
    """The privacy profile of a spec (a path, YAML text or a dict): see Profile."""
    return Profile(spec, timeout=timeout, allow_paths=allow_paths, jobs=jobs)


# ------------------------------------------------------------------ specs: audit, calibrate

def _spec_source(spec):
    """(path, text): a dict becomes YAML text (JSON is YAML's flow style), a str naming an
    existing file is a path, any other str is YAML text."""
    if isinstance(spec, dict):
        def plain(o):
            if hasattr(o, "tolist"):
                return o.tolist()
            raise TypeError("not serialisable in a spec: %r" % (o,))
        return None, json.dumps(spec, default=plain)
    if isinstance(spec, os.PathLike) or (isinstance(spec, str) and "\n" not in spec and
                                         os.path.exists(spec)):
        return os.fspath(spec), None
    if isinstance(spec, str) and ":" in spec and "\n" in spec or \
            isinstance(spec, str) and spec.lstrip().startswith("{"):
        return None, spec
    if isinstance(spec, str):
        raise SpecNotFoundError(7, "spec: no such file: %r (a spec is a path, YAML text of "
                                   "several lines or a dict)" % (spec,))
    raise InvalidArgument("spec: expected a path, YAML text or a dict (got %s)"
                          % type(spec).__name__)


def _options(certified=False, timeout=0.0, allow_paths=(), part=0, claim=None, jobs=0):
    o = _n.AuditOptions()
    _n.lib.ga_audit_options_init(ctypes.byref(o))
    o.certified = 1 if certified else 0
    o.timeout = _real("timeout", timeout, 0, 1e9)
    part = _whole("part", part, 0, 64)
    keep = [os.fsencode(p) for p in allow_paths]
    o._allow = (ctypes.c_char_p * max(len(keep), 1))(*keep)
    o.allow_paths = o._allow
    o.nallow = len(keep)
    o.part = int(part)
    o._claim = claim.encode() if claim else None
    o.claim = o._claim
    if isinstance(jobs, bool) or not (isinstance(jobs, int) and 0 <= jobs <= 256):
        raise GaussauditArgumentError("jobs: an integer from 0 (one thread per core) to 256")
    o.jobs = jobs
    return o


def _write(fn, handle, fmt):
    """A report written by the library into a temporary file, returned as text."""
    fd, path = tempfile.mkstemp(prefix="gaussaudit-")
    os.close(fd)
    try:
        f = _n.libc.fopen(path.encode(), b"w")
        if not f:
            raise OSError("cannot open a temporary file")
        st = fn(f, handle, _n.FORMAT[fmt])
        _n.libc.fclose(f)
        _check(st, None)
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    finally:
        os.unlink(path)


def _verdict(v):
    return _n.lib.ga_verdict_name(v).decode()


class Claim(NamedTuple):
    """One claim's result: type ("dp", "rdp", "zcdp", "gdp"), the claim, its verdict and
    reason, the exact value of the worst pair, the certified interval (when certified), the
    worst pair, its direction (1: X,Y; 2: Y,X), and the witness event (DP claims)."""
    type: str
    epsilon: float
    delta: float
    alpha: float
    bound: float
    verdict: str
    reason: str
    exact: Estimate
    certified: bool
    interval: object
    worst_pair: str
    direction: int
    witness: object


class AuditResult:
    """An audited spec: .verdict, .exit_status, .name, .claims; the report as .to_json(),
    .to_markdown(), .to_html(), .to_junit(); .json() the report parsed."""

    def __init__(self, handle):
        self._h = handle
        lib = _n.lib
        self.verdict = _verdict(lib.ga_audit_result_verdict(handle))
        self.exit_status = lib.ga_audit_result_exit_status(handle)
        self.name = lib.ga_audit_result_spec_name(handle).decode()
        report = self.json()
        witnesses = [c.get("witness") for c in report.get("claims", [])]
        claims = []
        for i in range(lib.ga_audit_result_nclaims(handle)):
            c = _n.ClaimInfo()
            _check(lib.ga_audit_result_claim(ctypes.byref(c), handle, i), None)
            claims.append(Claim(c.type.decode(), c.epsilon, c.delta, c.alpha, c.bound,
                                _verdict(c.verdict), (c.reason or b"").decode(),
                                Estimate(c.exact.val, c.exact.err), bool(c.certified),
                                Interval(c.interval.lo, c.interval.hi) if c.certified else None,
                                (c.worst_pair or b"").decode(), c.direction,
                                witnesses[i] if i < len(witnesses) else None))
        self.claims = claims

    def __del__(self):
        if getattr(self, "_h", None):
            _n.lib.ga_audit_result_free(self._h)
            self._h = None

    def _report(self, fmt):
        return _write(_n.lib.ga_audit_result_write, self._h, fmt)

    def to_json(self) -> str:
        return self._report("json")

    def to_markdown(self) -> str:
        return self._report("md")

    def to_html(self) -> str:
        return self._report("html")

    def to_junit(self) -> str:
        return self._report("junit")

    def json(self) -> Dict[str, Any]:
        return json.loads(self.to_json())

    def __repr__(self) -> str:
        return "AuditResult(%r: %s, %d claims)" % (self.name, self.verdict, len(self.claims))

    def _repr_html_(self) -> str:
        """The HTML report's banner and claims table, for notebooks."""
        html = self.to_html()
        body = html.find("<body")
        start = html.find(">", body) + 1 if body >= 0 else 0
        cut = html.find("<h2", start)
        return html[start:cut if cut > 0 else len(html)]


def _audit_handle(spec, o):
    """The library's audit of a spec (path, YAML text or dict) with options o: its handle."""
    path, text = _spec_source(spec)
    h = ctypes.c_void_p()
    msg = ctypes.create_string_buffer(_n.ERRMSG)
    if path is not None:
        st = _n.lib.ga_audit_spec_file(ctypes.byref(h), os.fsencode(path), ctypes.byref(o), msg,
                                       _n.ERRMSG)
    else:
        b = text.encode()
        st = _n.lib.ga_audit_spec_text(ctypes.byref(h), b, len(b), b"<spec>", ctypes.byref(o),
                                       msg, _n.ERRMSG)
    _check(st, msg, what="spec")
    return h


def audit(spec: Spec, *, certified: bool = False, timeout: float = 0.0,
          allow_paths: Iterable[str] = (), claim: Optional[str] = None,
          jobs: int = 0) -> "AuditResult":
    """Audit a spec (a path, YAML text, or a dict in the spec language) and return its
    AuditResult. claim, a YAML mapping such as "{epsilon: 1, delta: 1e-5}", replaces the
    spec's own claim. jobs: threads for the pairs (0: one per core; the result does not
    depend on it). Invalid specs raise GaussauditError with the file, line and field."""
    o = _options(certified, timeout, allow_paths, claim=claim, jobs=jobs)
    return AuditResult(_audit_handle(spec, o))


def audit_shard(spec: Spec, shard: int, nshards: int, *, certified: bool = False,
                timeout: float = 0.0, allow_paths: Iterable[str] = (),
                claim: Optional[str] = None, jobs: int = 0) -> str:
    """Evaluate shard `shard` (1..nshards) of a spec's pairs (pairs shard, shard + nshards,
    ...; `gaussaudit audit --shard`) and return its partial result (JSON text): write each
    shard's to a file and merge() them. spec: a path (merge reads it again), or YAML text /
    a dict (then give merge the spec's path)."""
    _whole("nshards", nshards, 1, 100000)
    if not (_whole("shard", shard, 1, 100000) <= nshards):
        raise GaussauditArgumentError("shard: 1 <= shard <= nshards")
    o = _options(certified, timeout, allow_paths, claim=claim, jobs=jobs)
    o.shard = shard
    o.nshards = nshards
    h = _audit_handle(spec, o)
    try:
        return _write(_n.lib.ga_audit_result_write, h, "partial")
    finally:
        _n.lib.ga_audit_result_free(h)


def merge(parts: Sequence[str], *, spec: Optional[str] = None, jobs: int = 0,
          allow_paths: Iterable[str] = ()) -> "AuditResult":
    """Merge the partial results of every shard (paths of files written from audit_shard or
    `gaussaudit audit --shard`) into the AuditResult one audit() gives: the spec is read
    again (spec, or the path the parts recorded) and the decisions read the parts'
    evaluations."""
    paths = [os.fsencode(p) for p in parts]
    arr = (ctypes.c_char_p * max(len(paths), 1))(*paths)
    o = _options(False, 0.0, allow_paths, jobs=jobs)
    h = ctypes.c_void_p()
    msg = ctypes.create_string_buffer(_n.ERRMSG)
    st = _n.lib.ga_audit_merge_files(ctypes.byref(h), arr, len(paths),
                                     os.fsencode(spec) if spec is not None else None,
                                     ctypes.byref(o), msg, _n.ERRMSG)
    _check(st, msg, what="spec")
    return AuditResult(h)


class Calibration(NamedTuple):
    """calibrate's answer: the knob, the smallest value found, whether the certified check
    confirmed it (upper bound of delta at it, lower bound a relative 1e-6 below), why not,
    whether it holds on a proven worst case, and the published calibrations compared."""
    knob: str
    value: float
    certified: bool
    upper_at_value: float
    lower_below: float
    note: str
    worst_case: bool
    published: list
    json: str


def calibrate(spec: Spec, eps: Real, delta: Real, *, part: int = 0, timeout: float = 0.0,
              allow_paths: Iterable[str] = (), jobs: int = 0) -> "Calibration":
    """The smallest noise for (eps, delta)-DP of a spec (path, YAML text or dict); jobs:
    threads building the neighbours' laws (0: one per core)."""
    _real("eps", eps, 0)
    _delta_arg(delta)
    path, text = _spec_source(spec)
    o = _options(False, timeout, allow_paths, part=part, jobs=jobs)
    h = ctypes.c_void_p()
    msg = ctypes.create_string_buffer(_n.ERRMSG)
    if path is not None:
        st = _n.lib.ga_calibrate_spec_file(ctypes.byref(h), os.fsencode(path), float(eps),
                                           float(delta), ctypes.byref(o), msg, _n.ERRMSG)
    else:
        b = text.encode()
        st = _n.lib.ga_calibrate_spec_text(ctypes.byref(h), b, len(b), b"<spec>", float(eps),
                                           float(delta), ctypes.byref(o), msg, _n.ERRMSG)
    _check(st, msg, what="spec")
    try:
        info = _n.CalibrationInfo()
        _n.lib.ga_calibration_get(ctypes.byref(info), h)
        pub = []
        for i in range(info.npublished):
            p = _n.PublishedInfo()
            if _n.lib.ga_calibration_published(ctypes.byref(p), h, i) == 0:
                pub.append({"name": p.name.decode(), "value": p.value})
        js = _write(_n.lib.ga_calibration_write, h, "json")
        return Calibration(info.knob.decode(), info.value, bool(info.certified),
                           info.upper_at_value, info.lower_below, info.note.decode(),
                           bool(info.worst_case), pub, js)
    finally:
        _n.lib.ga_calibration_free(h)
