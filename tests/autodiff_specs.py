"""Table-driven specs for the autodiff rule tests (tests/test_autodiff_rules.py).

Each :class:`Spec` names a function of tensors (the differentiable arguments; indices,
masks and other constants live in the closure), the shapes and sampling domains of its
arguments, the dtypes to test and tolerances.  The test runs
``tenferro.autograd.gradcheck`` on it in forward and reverse mode to order 2.
"""
from dataclasses import dataclass, field
from typing import Callable, Tuple

import numpy as np

import tenferro as tf

REAL = ("float64",)
COMPLEX = ("complex128",)
BOTH = REAL + COMPLEX


@dataclass
class Arg:
    shape: Tuple[int, ...]
    # Real parts (and imaginary parts, for complex dtypes) are drawn uniformly from
    # [low, high]; ``away`` keeps |x| >= away (e.g. away from a kink or a pole).
    low: float = -2.0
    high: float = 2.0
    away: float = 0.0


@dataclass
class Spec:
    name: str                      # shown in the test id; usually the op name
    fn: Callable                   # fn(*tensors) -> tensor (or tuple of tensors)
    args: Tuple[Arg, ...]
    dtypes: Tuple[str, ...] = REAL
    order: int = 2                 # highest derivative order checked
    modes: Tuple[str, ...] = ("fwd", "rev")
    rtol: float = None             # None: gradcheck's per-dtype default
    atol: float = None
    prims: Tuple[str, ...] = field(default_factory=tuple)  # primitives this spec covers


SPECS = []


def spec(*args, **kwargs):
    s = Spec(*args, **kwargs)
    SPECS.append(s)
    return s


def sample(arg, dtype, rng):
    """A tensor drawn for ``arg`` (see :class:`Arg`)."""
    def draw():
        v = rng.uniform(arg.low, arg.high, arg.shape)
        if arg.away:
            v = np.where(np.abs(v) < arg.away, np.copysign(arg.away, v) + v, v)
        return v
    d = np.dtype(dtype)
    v = draw() + 1j * draw() if d.kind == "c" else draw()
    return tf.asarray(np.asarray(v, dtype=d))
