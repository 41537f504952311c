"""What the tests know about each elementwise op: one row per op, read by every test.

tests/test_elementwise.py (values, dtypes and layouts against NumPy on the CPU),
tests/test_devices_ops.py (the same on every device, and derivatives there),
tests/autodiff_specs.py (gradcheck specs) and tests/conftest.py (per-device tolerances)
take their cases, input domains, references and tolerances from :data:`OPS`.  A new
elementwise op is one row here; tests/test_elementwise.py fails, naming the op, for any
primitive of the op registry without one.

A row says:

- ``dtypes``: the dtypes the CPU takes (values tested in each); others must raise;
- ``domain``: where input values are drawn (``conftest.random_array``'s names: any, pos,
  unit, ge1, small, nonzero, shift), one name for all operands or one per operand;
- ``accuracy``: how close the CPU must be to NumPy (exact, ulp, or loose for
  transcendental functions, see :data:`ACCURACY`);
- ``ref``: the NumPy reference when it is not ``numpy.<name>``;
- ``grad``: where derivatives are checked (a :class:`Range` per operand) when that differs
  from the default ``Range()``; ``grad_dtypes``: which dtypes they are checked in when not
  every real and complex dtype the op takes; ``beside``: complex points 0.02 beside the
  op's branch cuts and poles (the derivative's hardest places);
- ``device_tol``: (rtol, atol) per device kind where its float32 results are looser than
  the device's default (WGSL's builtins are not correctly rounded: exp 3 + 2|x| ulp,
  log 3 ulp or 2**-21 absolute, sin/cos 2**-11 absolute on [-pi, pi]; pow, tan and the
  hyperbolics inherit from exp/log/sin);
- ``untested``: dtypes the op takes that the value tests leave to other tests;
  ``ref_is_wider``: the reference accepts dtypes the op refuses (no refusal check).
"""
from dataclasses import dataclass, field
from typing import Callable, Optional, Tuple

import numpy as np
import scipy.special

from conftest import DTYPES as ALL, INTEGRAL, NUMERIC

BOOL = np.dtype("bool")
REALS = [d for d in ALL if d.kind != "c"]           # bool and integers included

EXACT, ULP, LOOSE = "exact", "ulp", "loose"
# (rtol, atol) per accuracy and result precision ("f": float32/complex64, "d": 64-bit)
ACCURACY = {EXACT: {}, ULP: {"f": (4e-6, 1e-6), "d": (1e-13, 1e-15)},
            LOOSE: {"f": (3e-5, 3e-6), "d": (1e-12, 1e-14)}}

REAL_GRAD, COMPLEX_GRAD = ("float64",), ("complex128",)


@dataclass(frozen=True)
class Range:
    """Real values (and imaginary parts) drawn uniformly from [low, high], pushed to
    |x| >= away (off a kink or a pole)."""

    low: float = -2.0
    high: float = 2.0
    away: float = 0.0

    def draw(self, rng, shape):
        v = rng.uniform(self.low, self.high, shape)
        if self.away:
            v = np.where(np.abs(v) < self.away, np.copysign(self.away, v) + v, v)
        return v


@dataclass(frozen=True)
class Op:
    """One elementwise op's row (the fields: see the module docstring)."""

    name: str
    arity: int
    dtypes: Tuple[np.dtype, ...]
    domain: object = "any"            # a name, or a tuple of names (one per operand)
    accuracy: str = ULP
    ref: Optional[Callable] = None    # None: numpy.<name>
    grad: object = None               # a Range, or a tuple of Ranges (one per operand)
    grad_dtypes: Optional[Tuple[str, ...]] = None
    beside: Tuple[complex, ...] = ()
    device_tol: dict = field(default_factory=dict)
    untested: Tuple[np.dtype, ...] = ()
    ref_is_wider: bool = False
    note: str = ""

    def domains(self):
        """The value domain of each operand."""
        d = self.domain
        return d if isinstance(d, tuple) else (d,) * self.arity

    def grad_ranges(self):
        """The differentiation :class:`Range` of each operand."""
        g = self.grad or Range()
        return g if isinstance(g, tuple) else (g,) * self.arity

    def grad_dtype_names(self):
        """The dtypes derivatives are checked in (float64 and/or complex128)."""
        if self.grad_dtypes is not None:
            return self.grad_dtypes
        kinds = {d.kind for d in self.dtypes}
        return REAL_GRAD * ("f" in kinds) + COMPLEX_GRAD * ("c" in kinds)

    def reference(self, *xs):
        """NumPy's answer."""
        return (self.ref or getattr(np, self.name))(*xs)

    def tolerance(self, dtype):
        """{rtol, atol} for CPU results of ``dtype`` against the reference."""
        d = np.dtype(dtype)
        if d.kind not in "fc":
            return {}
        single = d in (np.dtype("float32"), np.dtype("complex64"))
        rt, at = ACCURACY[self.accuracy].get("f" if single else "d", (0, 0))
        return {"rtol": rt, "atol": at}


def _in_double(fn):
    """A reference computed in float64/complex128 and rounded to the input's dtype."""
    def ref(x):
        x = np.asarray(x)
        wide = np.complex128 if x.dtype.kind == "c" else np.float64
        out = np.asarray(fn(x.astype(wide)))
        return out.astype(x.dtype) if x.dtype.kind in "fc" else out
    ref.__name__ = fn.__name__
    return ref


@_in_double
def _rsqrt(x):
    return 1 / np.sqrt(x)


@_in_double
def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


_erf = _in_double(scipy.special.erf)

# complex points 0.02 beside a cut or pole (NumPy's cuts: log, log2, log10, sqrt, rsqrt,
# power's base on (-inf, 0]; log1p on (-inf, -1]; arccosh on (-inf, 1]; arcsin, arccos,
# arctanh on |x| >= 1; arctan, arcsinh on |y| >= 1 of the imaginary axis)
NEG_REAL = (-0.5 + 0.02j, -0.5 - 0.02j, -2.5 + 0.02j, -2.5 - 0.02j)   # beside (-inf, 0]
_UNIT_CUTS = (1.5 + 0.02j, 1.5 - 0.02j, -1.5 + 0.02j, -1.5 - 0.02j, 0.5 + 0.02j)
_IMAG_CUTS = (0.02 + 1.5j, -0.02 + 1.5j, 0.02 - 1.5j, -0.02 - 1.5j, 0.02 + 0.5j)

_ROWS = []


def _row(arity, name, dtypes, domain="any", accuracy=ULP, webgpu=None, **kw):
    _ROWS.append(Op(name, arity, tuple(dtypes), domain, accuracy,
                    device_tol={"webgpu": webgpu} if webgpu else {}, **kw))


def unary(*a, **kw):
    _row(1, *a, **kw)


def binary(*a, **kw):
    _row(2, *a, **kw)


_POS = Range(0.1, 2.0)          # logarithms and roots: positive real part
_ARC = Range(-0.9, 0.9)         # inside (-1, 1)
_OFF0 = Range(away=0.1)         # off a kink, or a cut through 0

# -- unary --------------------------------------------------------------------------------
unary("negative", NUMERIC, accuracy=EXACT)
unary("positive", NUMERIC, accuracy=EXACT)
unary("abs", ALL, ref=np.absolute, grad=_OFF0, beside=NEG_REAL)
unary("sign", NUMERIC, accuracy=EXACT)
unary("exp", ALL, webgpu=(5e-5, 1e-6))
unary("expm1", ALL, accuracy=LOOSE, webgpu=(1e-4, 2e-6))
unary("exp2", ALL, webgpu=(5e-5, 1e-6))
unary("log", ALL, "pos", grad=_POS, beside=NEG_REAL, webgpu=(1e-4, 1e-6))
unary("log1p", ALL, "pos", LOOSE, grad=Range(-0.9, 2.0),
      beside=tuple(z - 1.0 for z in NEG_REAL), webgpu=(1e-4, 2e-6))
unary("log2", ALL, "pos", grad=_POS, beside=NEG_REAL, webgpu=(1e-4, 1e-6))
unary("log10", ALL, "pos", grad=_POS, beside=NEG_REAL, webgpu=(1e-4, 1e-6))
unary("sqrt", ALL, "pos", grad=_POS, beside=NEG_REAL, webgpu=(5e-5, 1e-6))
unary("rsqrt", ALL, "pos", ref=_rsqrt, grad=_POS, beside=NEG_REAL, webgpu=(5e-5, 1e-6))
unary("square", ALL)
unary("reciprocal", [d for d in ALL if d != BOOL], "nonzero", grad=Range(away=0.2),
      beside=(0.05 + 0.05j, -0.05 - 0.02j), webgpu=(5e-5, 1e-6), untested=(BOOL,),
      note="NumPy's bool reciprocal (1/False) is not worth copying")
unary("sin", ALL, webgpu=(1e-4, 6e-4))
unary("cos", ALL, webgpu=(1e-4, 6e-4))
unary("tan", ALL, "small", LOOSE, grad=Range(-1.2, 1.2),            # poles at +-pi/2
      beside=(1.4 + 0.1j, -1.4 - 0.1j, 1.7 - 0.1j), webgpu=(5e-4, 1e-3))
unary("arcsin", ALL, "unit", LOOSE, grad=_ARC, beside=_UNIT_CUTS, webgpu=(1e-4, 1e-5))
unary("arccos", ALL, "unit", LOOSE, grad=_ARC, beside=_UNIT_CUTS, webgpu=(1e-4, 1e-5))
unary("arctan", ALL, accuracy=LOOSE, grad=_OFF0, beside=_IMAG_CUTS, webgpu=(1e-4, 1e-5))
unary("sinh", ALL, accuracy=LOOSE, webgpu=(1e-4, 1e-5))
unary("cosh", ALL, accuracy=LOOSE, webgpu=(1e-4, 1e-5))
unary("tanh", ALL, accuracy=LOOSE, grad=Range(-1.0, 1.0),           # poles at +-i pi/2
      beside=(0.1 + 1.4j, -0.1 - 1.4j, -0.1 + 1.7j), webgpu=(1e-4, 1e-5))
unary("arcsinh", ALL, accuracy=LOOSE, grad=_OFF0, beside=_IMAG_CUTS, webgpu=(1e-4, 1e-5))
unary("arccosh", ALL, "ge1", LOOSE, grad=Range(1.1, 3.0),
      beside=tuple(z + 1.0 for z in NEG_REAL) + (-1.8 + 0.02j, -1.8 - 0.02j),
      webgpu=(1e-4, 1e-5))
unary("arctanh", ALL, "unit", LOOSE, grad=_ARC, beside=_UNIT_CUTS, webgpu=(1e-4, 1e-5))
unary("sigmoid", ALL, accuracy=LOOSE, ref=_sigmoid, grad=Range(-1.5, 1.5),  # poles at +-i pi
      beside=(0.1 + 2.9j, -0.1 - 2.9j, 0.1 + 3.4j), webgpu=(1e-4, 1e-6))
unary("erf", REALS, ref=_erf, webgpu=(1e-4, 1e-5), ref_is_wider=True,
      note="real only; scipy's erf takes complex too")
unary("floor", REALS, accuracy=EXACT)
unary("ceil", REALS, accuracy=EXACT)
unary("trunc", REALS, accuracy=EXACT)
unary("round", NUMERIC, accuracy=EXACT, ref=np.round, untested=(BOOL,),
      note="keeps integer dtypes; bool rounds like rint (test_rint_all_dtypes)")
unary("conj", ALL, accuracy=EXACT, ref=np.conjugate)
unary("isnan", ALL, accuracy=EXACT)
unary("isinf", ALL, accuracy=EXACT)
unary("isfinite", ALL, accuracy=EXACT)
unary("logical_not", ALL, accuracy=EXACT)
unary("bitwise_invert", INTEGRAL, accuracy=EXACT, ref=np.invert)
unary("real", ALL, accuracy=EXACT, grad_dtypes=COMPLEX_GRAD)
unary("imag", ALL, accuracy=EXACT, grad_dtypes=COMPLEX_GRAD)
unary("angle", ALL, grad=_OFF0, beside=NEG_REAL, note="real input: zero derivative")

# -- binary -------------------------------------------------------------------------------
_DIVISOR = ("any", "nonzero")
_EXTREMUM = dict(accuracy=EXACT, grad_dtypes=REAL_GRAD,
                 note="complex order is lexicographic: derivatives real only")
binary("add", ALL)
binary("subtract", NUMERIC)
binary("multiply", ALL)
binary("divide", ALL, _DIVISOR, ref=np.true_divide, grad=(Range(), Range(away=0.3)),
       webgpu=(5e-5, 1e-6))
binary("floor_divide", REALS, _DIVISOR, EXACT)
binary("remainder", REALS, _DIVISOR, grad=(Range(), Range(away=0.5)))
binary("power", ALL, ("pos", "shift"), LOOSE, grad=(_POS, Range()), beside=NEG_REAL,
       webgpu=(1e-4, 1e-5))
binary("maximum", ALL, **_EXTREMUM)
binary("minimum", ALL, **_EXTREMUM)
binary("fmax", ALL, **_EXTREMUM)
binary("fmin", ALL, **_EXTREMUM)
binary("arctan2", REALS, accuracy=LOOSE, grad=_OFF0, webgpu=(1e-4, 1e-5))
binary("hypot", REALS, grad=_OFF0, webgpu=(5e-5, 1e-6))
binary("copysign", REALS, accuracy=EXACT, grad=_OFF0)
binary("logaddexp", REALS, accuracy=LOOSE, webgpu=(1e-4, 1e-5))
# comparisons and logic on [-1, 1]: integer data then has ties
for _name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
              "logical_and", "logical_or", "logical_xor"):
    binary(_name, ALL, "small", EXACT)
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    binary(_name, INTEGRAL, accuracy=EXACT)
binary("left_shift", INTEGRAL, ("any", "shift"), EXACT)
binary("right_shift", INTEGRAL, ("any", "shift"), EXACT)

OPS = {op.name: op for op in _ROWS}
