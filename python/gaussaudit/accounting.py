"""gaussaudit.accounting: an accountant-shaped interface to exact privacy profiles.

Events describe what a training run or a release did; an Accountant composes them and answers
get_epsilon(delta) and get_delta(epsilon) exactly (the library's error estimate rides on the
float as .error), or as certified intervals with certified=True. An event is not a second
engine: it is written as a mechanism of the spec language (gaussian_mechanism,
subsampled_gaussian, composition) and evaluated by the same code as `gaussaudit audit`;
to_spec() gives that YAML, so that a Python experiment becomes a reproducible CLI audit.

    >>> from gaussaudit.accounting import Accountant, Gaussian, PoissonSampled
    >>> acc = Accountant().compose(PoissonSampled(256 / 60000, Gaussian(1.1)), 14063)
    >>> acc.get_epsilon(1e-5)                  # 2.38168972... (+- 1e-10)
    >>> acc.get_epsilon(1e-5, certified=True)  # Interval(2.3816896..., 2.3816898...)

Events: Gaussian(sigma, sensitivity=1) (one release of f(D) + N(0, sigma^2 I) with
||f(D) - f(D')|| <= sensitivity), PoissonSampled(rate, Gaussian(...)) (one DP-SGD step on a
Poisson sample: noise multiplier sigma / sensitivity), FixedSizeSampled(batch_size,
dataset_size, Gaussian(...)) (a batch drawn without replacement; dp_accounting's argument
order as SampledWithoutReplacement), SelfComposed(event, count), Composed([events]);
ShuffledEpochs(batch_size, dataset_size, Gaussian(...), epochs) and RandomAllocation(steps,
Gaussian(...), participations, epochs) for assert_dp and audits only (bounds, not an exact
profile).
Neighbours: add/remove one record (both directions are evaluated).
"""
import json
import math
from typing import Any, Dict, List, Optional, Sequence, Union

import gaussaudit
from ._types import Estimate, Interval, InvalidArgument

Real = Union[int, float, str]


def _pos(name: str, x: Any, allow_zero: bool = False) -> Real:
    v = gaussaudit._real(name, x, 0, lo_open=not allow_zero)
    return x if isinstance(x, str) else v


def _text(x: Real) -> Union[float, str]:
    """a number for the spec: a str kept as the decimal written, a float as itself"""
    return x if isinstance(x, str) else float(x)


class Event:
    """Something a mechanism did; composable (SelfComposed, Composed, Accountant.compose)."""

    def parts(self) -> List[Dict[str, Any]]:
        """The mechanisms of the spec language this event is made of (composed)."""
        raise NotImplementedError

    def to_mechanism(self) -> Dict[str, Any]:
        """The event as one `mechanism:` mapping of a spec."""
        ps = self.parts()
        return ps[0] if len(ps) == 1 else {"kind": "composition", "parts": ps}

    def to_spec(self, *, name: str = "accountant events", epsilon: Optional[Real] = None,
                delta: Optional[Real] = None) -> str:
        """A spec (YAML) of this event, with a claim when epsilon and delta are given."""
        return _spec_text(self.to_mechanism(), name, epsilon, delta)


class Gaussian(Event):
    """One Gaussian release: f(D) + N(0, sigma^2 I), ||f(D) - f(D')|| <= sensitivity. The
    noise may be given as noise_multiplier (sigma / sensitivity) instead of sigma."""

    def __init__(self, sigma: Optional[Real] = None, sensitivity: Real = 1, *,
                 noise_multiplier: Optional[Real] = None) -> None:
        if (sigma is None) == (noise_multiplier is None):
            raise InvalidArgument("Gaussian: give exactly one of sigma and noise_multiplier")
        self.sensitivity = _pos("sensitivity", sensitivity)
        if sigma is None:
            nm = _pos("noise_multiplier", noise_multiplier)
            sigma = nm if float(self.sensitivity) == 1 else float(nm) * float(self.sensitivity)
        self.sigma = _pos("sigma", sigma)

    @property
    def noise_multiplier(self) -> Real:
        if float(self.sensitivity) == 1:
            return self.sigma
        return float(self.sigma) / float(self.sensitivity)

    def parts(self) -> List[Dict[str, Any]]:
        return [{"kind": "gaussian_mechanism", "sensitivity": _text(self.sensitivity),
                 "sigma": _text(self.sigma)}]

    def __repr__(self) -> str:
        return "Gaussian(sigma=%r, sensitivity=%r)" % (self.sigma, self.sensitivity)


class PoissonSampled(Event):
    """A Gaussian event on a Poisson sample: each record is in it with probability rate (also
    accepted as sample_rate). One DP-SGD step with clipping norm `sensitivity`."""

    def __init__(self, rate: Optional[Real] = None, event: Optional[Gaussian] = None, *,
                 sample_rate: Optional[Real] = None) -> None:
        if (rate is None) == (sample_rate is None):
            raise InvalidArgument("PoissonSampled: give exactly one of rate and sample_rate")
        r = rate if rate is not None else sample_rate
        gaussaudit._real("rate", r, 0, 1, lo_open=True)
        if not isinstance(event, Gaussian):
            raise InvalidArgument("PoissonSampled: the sampled event must be a Gaussian (got %r)"
                                  % (event,))
        self.rate, self.event = r, event

    def parts(self) -> List[Dict[str, Any]]:
        return [{"kind": "subsampled_gaussian", "rate": _text(self.rate),
                 "sigma": _text(self.event.noise_multiplier)}]

    def __repr__(self) -> str:
        return "PoissonSampled(rate=%r, %r)" % (self.rate, self.event)


class FixedSizeSampled(Event):
    """A Gaussian event on a batch of batch_size records drawn without replacement from a
    dataset of dataset_size (a plain data loader's batches). Under add/remove neighbours the
    batch swaps the record for another with probability batch_size/dataset_size, so a step is
    the Poisson step at that rate with twice the sensitivity (doc/spec.md)."""

    def __init__(self, batch_size: int, dataset_size: int, event: Optional[Gaussian] = None) -> None:
        n = gaussaudit._whole("dataset_size", dataset_size, 2, 2.0 ** 53)
        b = gaussaudit._whole("batch_size", batch_size, 1, 2.0 ** 53)
        if b >= n:
            raise InvalidArgument("batch_size: must be below dataset_size (got %d of %d)" % (b, n))
        if not isinstance(event, Gaussian):
            raise InvalidArgument("%s: the sampled event must be a Gaussian (got %r)"
                                  % (type(self).__name__, event))
        self.batch_size, self.dataset_size, self.event = b, n, event

    def parts(self) -> List[Dict[str, Any]]:
        return [{"kind": "subsampled_gaussian", "sampler": "fixed_size",
                 "batch_size": self.batch_size, "dataset_size": self.dataset_size,
                 "sigma": _text(self.event.noise_multiplier)}]

    def __repr__(self) -> str:
        return "FixedSizeSampled(batch_size=%d, dataset_size=%d, %r)" % (
            self.batch_size, self.dataset_size, self.event)


class SampledWithoutReplacement(FixedSizeSampled):
    """dp_accounting's name and argument order for FixedSizeSampled: (source_dataset_size,
    sample_size, event). The neighbours are add/remove one record, not dp_accounting's
    replace-one (under which the run is bracketed, not computed exactly: audit its spec with
    neighbours: replace_one)."""

    def __init__(self, source_dataset_size: int, sample_size: int,
                 event: Optional[Gaussian] = None) -> None:
        super().__init__(sample_size, source_dataset_size, event)


class ShuffledEpochs(Event):
    """epochs of a Gaussian event on batches of batch_size records taken in shuffled order
    (each record in exactly one batch of each epoch: a shuffling data loader). No exact
    profile is known: an audit brackets it between certified lower bounds (what a pair of
    neighbours attains) and, under zero-out neighbours, a proven upper bound (doc/spec.md),
    so assert_dp and gaussaudit.audit take it, the Accountant does not."""

    def __init__(self, batch_size: int, dataset_size: int, event: Optional[Gaussian] = None,
                 epochs: int = 1) -> None:
        n = gaussaudit._whole("dataset_size", dataset_size, 2, 2.0 ** 53)
        b = gaussaudit._whole("batch_size", batch_size, 1, 2.0 ** 53)
        if b > n:
            raise InvalidArgument("batch_size: must be at most dataset_size (got %d of %d)" % (b, n))
        if not isinstance(event, Gaussian):
            raise InvalidArgument("ShuffledEpochs: the event must be a Gaussian (got %r)" % (event,))
        self.batch_size, self.dataset_size, self.event = b, n, event
        self.epochs = gaussaudit._whole("epochs", epochs, 1, 10000)

    def parts(self) -> List[Dict[str, Any]]:
        return [{"kind": "subsampled_gaussian", "sampler": "shuffle",
                 "batch_size": self.batch_size, "dataset_size": self.dataset_size,
                 "sigma": _text(self.event.noise_multiplier), "epochs": self.epochs}]

    def __repr__(self) -> str:
        return "ShuffledEpochs(batch_size=%d, dataset_size=%d, %r, epochs=%d)" % (
            self.batch_size, self.dataset_size, self.event, self.epochs)


_EPOCH_SAMPLERS = ("shuffle", "random_allocation")  # counted in epochs, bounded, not accounted


class RandomAllocation(Event):
    """epochs of steps Gaussian events in which each record takes part in participations of
    the steps, chosen uniformly and independently of the other records (k-out-of-t
    participation). No exact profile is known: an audit brackets it between certified lower
    bounds and a proven upper bound (doc/spec.md), so assert_dp and gaussaudit.audit take it,
    the Accountant does not."""

    def __init__(self, steps: int, event: Optional[Gaussian] = None, participations: int = 1,
                 epochs: int = 1) -> None:
        t = gaussaudit._whole("steps", steps, 1, 1e7)
        k = gaussaudit._whole("participations", participations, 1, 1e7)
        if k > t:
            raise InvalidArgument("participations: must be at most steps (got %d of %d)" % (k, t))
        if not isinstance(event, Gaussian):
            raise InvalidArgument("RandomAllocation: the event must be a Gaussian (got %r)" % (event,))
        self.steps, self.participations, self.event = t, k, event
        self.epochs = gaussaudit._whole("epochs", epochs, 1, 10000)

    def parts(self) -> List[Dict[str, Any]]:
        return [{"kind": "subsampled_gaussian", "sampler": "random_allocation",
                 "steps": self.steps, "participations": self.participations,
                 "sigma": _text(self.event.noise_multiplier), "epochs": self.epochs}]

    def __repr__(self) -> str:
        return "RandomAllocation(steps=%d, %r, participations=%d, epochs=%d)" % (
            self.steps, self.event, self.participations, self.epochs)


class SelfComposed(Event):
    """count independent runs of event (count a whole number >= 1)."""

    def __init__(self, event: Event, count: int) -> None:
        if not isinstance(event, Event):
            raise InvalidArgument("SelfComposed: event must be an Event (got %r)" % (event,))
        self.event = event
        self.count = gaussaudit._whole("count", count, 1, 1e9)

    def parts(self) -> List[Dict[str, Any]]:
        out = []
        for p in self.event.parts():
            p = dict(p)
            key = ("epochs" if p.get("sampler") in _EPOCH_SAMPLERS else "steps") \
                if p["kind"] == "subsampled_gaussian" else "repeat"
            p[key] = p.get(key, 1) * self.count
            out.append(p)
        return out

    def __repr__(self) -> str:
        return "SelfComposed(%r, %d)" % (self.event, self.count)


class Composed(Event):
    """The independent composition of events (each on the same data)."""

    def __init__(self, events: Sequence[Event]) -> None:
        events = list(events)
        if not events or not all(isinstance(e, Event) for e in events):
            raise InvalidArgument("Composed: a non-empty list of Events")
        self.events = events

    def parts(self) -> List[Dict[str, Any]]:
        return [p for e in self.events for p in e.parts()]

    def __repr__(self) -> str:
        return "Composed(%r)" % (self.events,)


def _spec_text(mechanism: Dict[str, Any], name: str, epsilon: Optional[Real],
               delta: Optional[Real]) -> str:
    lines = ["gaussaudit: 1", "name: %s" % json.dumps(name),
             "mechanism: %s" % json.dumps(mechanism)]
    if epsilon is not None and delta is not None:
        lines.append("claim: {epsilon: %s, delta: %s}" % (gaussaudit._decimal(epsilon),
                                                          gaussaudit._decimal(delta)))
    return "\n".join(lines) + "\n"


class Accountant:
    """Composes events and answers with the exact privacy profile (add/remove neighbours).

    compose(event, count=1) returns the accountant (calls chain); get_epsilon(delta) and
    get_delta(epsilon) return an Estimate (a float carrying .error), or an Interval with
    certified=True. The profile is built once per set of events and kept."""

    def __init__(self, *, timeout: float = 0.0) -> None:
        self._events: List[Event] = []
        self._profile: Optional[gaussaudit.Profile] = None
        self.timeout = timeout

    def compose(self, event: Event, count: int = 1) -> "Accountant":
        if not isinstance(event, Event):
            raise InvalidArgument("compose: event must be an Event (got %r)" % (event,))
        if any(p.get("sampler") in _EPOCH_SAMPLERS for p in event.parts()):
            raise InvalidArgument("compose: shuffled epochs and random allocation have bounds, "
                                  "not an exact privacy profile: audit them with assert_dp or "
                                  "gaussaudit.audit, whose report brackets their eps")
        count = gaussaudit._whole("count", count, 1, 1e9)
        self._events.append(event if count == 1 else SelfComposed(event, count))
        self._profile = None
        return self

    @property
    def event(self) -> Event:
        """Everything composed so far, as one event."""
        if not self._events:
            raise InvalidArgument("the accountant has no events: compose() one first")
        return self._events[0] if len(self._events) == 1 else Composed(self._events)

    def to_spec(self, *, name: str = "accountant events", epsilon: Optional[Real] = None,
                delta: Optional[Real] = None) -> str:
        """The spec (YAML) of the composed events; with epsilon and delta, a claim to audit
        (gaussaudit audit SPEC.yaml)."""
        return self.event.to_spec(name=name, epsilon=epsilon, delta=delta)

    def profile(self) -> "gaussaudit.Profile":
        if self._profile is None:
            self._profile = gaussaudit.profile(self.to_spec(), timeout=self.timeout)
        return self._profile

    def get_epsilon(self, delta: Real, *, certified: bool = False) -> Union[Estimate, Interval]:
        """The smallest epsilon with delta(epsilon) <= delta (target_delta)."""
        return self.profile().epsilon(delta, certified=certified)

    def get_delta(self, epsilon: Real, *, certified: bool = False) -> Union[Estimate, Interval]:
        """delta(epsilon), the largest over add and remove neighbours."""
        return self.profile().delta(epsilon, certified=certified)


def from_dp_event(event: Any) -> Event:
    """A dp_accounting DpEvent tree as events of this module, read by class name and
    attributes (dp_accounting need not be installed): GaussianDpEvent(noise_multiplier),
    PoissonSampledDpEvent(sampling_probability, event), SampledWithoutReplacementDpEvent(
    source_dataset_size, sample_size, event), SelfComposedDpEvent(event, count),
    ComposedDpEvent(events), NoOpDpEvent (dropped). The neighbours are add/remove one record;
    dp_accounting accounts sampling without replacement under replace-one, which has no exact
    profile here (a spec with neighbours: replace_one is bracketed by an audit). Any other
    event raises InvalidArgument naming it."""
    name = type(event).__name__

    def field(attr: str) -> Any:
        if not hasattr(event, attr):
            raise InvalidArgument("from_dp_event: %s has no attribute %r" % (name, attr))
        return getattr(event, attr)

    if name == "GaussianDpEvent":
        return Gaussian(noise_multiplier=field("noise_multiplier"))
    if name == "PoissonSampledDpEvent":
        return PoissonSampled(field("sampling_probability"), from_dp_event(field("event")))
    if name == "SampledWithoutReplacementDpEvent":
        return SampledWithoutReplacement(field("source_dataset_size"), field("sample_size"),
                                         from_dp_event(field("event")))
    if name == "SelfComposedDpEvent":
        return SelfComposed(from_dp_event(field("event")), field("count"))
    if name == "ComposedDpEvent":
        parts = [e for e in field("events") if type(e).__name__ != "NoOpDpEvent"]
        if not parts:
            raise InvalidArgument("from_dp_event: a ComposedDpEvent of no private events")
        return Composed([from_dp_event(e) for e in parts])
    raise InvalidArgument("from_dp_event: %s is not computed here (Gaussian, PoissonSampled, "
                          "SampledWithoutReplacement, SelfComposed and Composed events are)"
                          % name)


def from_opacus_history(history: Sequence[Sequence[Real]]) -> Event:
    """Opacus' accountant history (accountant.history: rows (noise_multiplier, sample_rate,
    steps), Poisson sampling) as one event."""
    rows = list(history)
    if not rows:
        raise InvalidArgument("from_opacus_history: an empty history")
    events: List[Event] = []
    for i, row in enumerate(rows):
        if len(row) != 3:
            raise InvalidArgument("from_opacus_history: row %d is not (noise_multiplier, "
                                  "sample_rate, steps) (got %r)" % (i, row))
        nm, q, steps = row
        events.append(SelfComposed(PoissonSampled(q, Gaussian(noise_multiplier=nm)), steps))
    return events[0] if len(events) == 1 else Composed(events)


def calibrate_noise_multiplier(*, target_epsilon: Real, target_delta: Real,
                               sample_rate: Real = 1, steps: int = 1,
                               timeout: float = 0.0) -> float:
    """The smallest noise multiplier sigma such that `steps` Poisson-sampled Gaussian steps of
    rate sample_rate are (target_epsilon, target_delta)-DP (add/remove), to the double, with
    the certified check of `gaussaudit calibrate` (raises ComputationError when it fails)."""
    gaussaudit._real("target_epsilon", target_epsilon, 0)
    gaussaudit._delta_arg(target_delta, "target_delta")
    gaussaudit._real("sample_rate", sample_rate, 0, 1, lo_open=True)
    steps = gaussaudit._whole("steps", steps, 1, 1e9)
    mech = {"kind": "subsampled_gaussian", "rate": _text(sample_rate), "sigma": 1.0,
            "steps": steps}
    c = gaussaudit.calibrate(_spec_text(mech, "calibration", None, None), target_epsilon,
                             target_delta, timeout=timeout)
    if not math.isfinite(c.value):
        raise gaussaudit.ComputationError(8, "no noise multiplier found: " + c.note)
    return c.value


__all__ = ["Event", "Gaussian", "PoissonSampled", "FixedSizeSampled", "SampledWithoutReplacement",
           "ShuffledEpochs", "RandomAllocation",
           "SelfComposed", "Composed", "Accountant", "calibrate_noise_multiplier",
           "from_dp_event", "from_opacus_history"]
