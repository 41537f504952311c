"""Elementwise ops: one primitive per op, NumPy 2 type resolution, broadcasting.

The tables below are the single definition of every elementwise op: its name, the
NumPy ufunc whose type resolution it follows (so dtype results match NumPy 2 exactly,
weak Python scalars included), and whether it is differentiable.  JVP/VJP rules are
attached to the primitives by :mod:`tenferro.autograd`.
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from .. import _caches, _dtypes, _primitive
from .._catalog import BINARY, COMPLEX_PARTS, NONDIFF_REASON, REAL_ONLY, UNARY
from .._errors import DeviceMismatchError
from .._primitive import Primitive, bind
from .._tensor import Tensor, _wrap
from . import _fastpath
from ._elementwise_doc import docstring
from ._common import NotATensor, WEAK, broadcast_shapes, to_tensor
from .conversion import astype

if TYPE_CHECKING:
    from .._tensor import ArrayLike, AxisLike

# The op tables live in the catalog (tenferro._catalog), below the drivers that read
# them too; this module turns each row into a primitive and a public function.
def _elementwise_aval(*avals, out_dtype):
    shape = broadcast_shapes("elementwise", *[a[0] for a in avals])
    return (shape, out_dtype)


PRIMS = {}
for _name, _spec in list(UNARY.items()) + list(BINARY.items()):
    PRIMS[_name] = Primitive(_name, _elementwise_aval, differentiable=_spec.differentiable,
                             nondiff_reason=None if _spec.differentiable else NONDIFF_REASON)
for _name in COMPLEX_PARTS:
    PRIMS[_name] = Primitive(_name, _elementwise_aval)
where_p = Primitive("where", _elementwise_aval)
clip_p = Primitive("clip", _elementwise_aval)

_resolved = {}


def _resolve(name, ufunc, types):
    """(loop input dtype, output dtype) for ``name`` applied to ``types`` (cached)."""
    key = (name,) + types
    r = _resolved.get(key)
    if r is None:
        try:
            # resolve_dtypes takes int/float/complex as weak scalars but not bool; a
            # Python bool promotes exactly like the bool dtype (the lowest kind).
            loop = ufunc.resolve_dtypes(tuple(_dtypes.bool_ if t is bool else t
                                              for t in types) + (None,))
        except (TypeError, np.exceptions.DTypePromotionError) as e:
            names = ", ".join(t.__name__ if isinstance(t, type) else str(t) for t in types)
            raise TypeError("tenferro.%s: not supported for input dtype%s (%s)%s"
                            % (name, "s" if len(types) > 1 else "", names,
                               _hint(name))) from e
        lin = _dtypes.canon(loop[0])
        for d in loop[1:-1]:
            if _dtypes.canon(d) != lin:  # mixed-dtype loops (e.g. ldexp) are not used
                raise TypeError("tenferro.%s: no common loop dtype for %s" % (name, types))
        out = _dtypes.canon(loop[-1])
        if name in REAL_ONLY and lin.kind == "c":
            raise TypeError("tenferro.%s: not supported for complex input (%s)" % (name, lin))
        r = _resolved[key] = (lin, out)
    return r


def _hint(name):
    if name.startswith("bitwise") or name.endswith("shift"):
        return "; expected integer or bool tensors"
    if name == "negative":
        return "; use logical_not (~) for bool tensors"
    return ""


def _scalar_tensor(value, dtype, device):
    from .creation import asarray

    if isinstance(value, int) and not isinstance(value, bool):
        # NumPy 2: a weak Python int that does not fit the tensor's integer dtype is an
        # OverflowError, never a silent wrap-around (and one past int64 still converts
        # to a float or complex dtype).
        value = np.asarray(value, dtype=dtype)
    return asarray(value, dtype=dtype, device=device)


def unary(name, x, out=None):
    if not isinstance(x, Tensor):
        x = to_tensor(x)
    lin, odt = _resolve(name, UNARY[name].type_rule, (x.dtype,))
    if x.dtype != lin:
        x = astype(x, lin)
    if out is not None:
        return _into(name, out, (x,), odt)
    return bind(PRIMS[name], (x,), {"out_dtype": odt})


def binary(name, a, b, out=None):
    ta = isinstance(a, Tensor)
    tb = isinstance(b, Tensor)
    if ta and tb:
        dev = a._device
        if b._device is not dev:
            raise DeviceMismatchError(name, [a._device, b._device])
        types = (a.dtype, b.dtype)
    else:
        if not ta:
            a = _operand(a, b if tb else None)
        if not tb:
            b = _operand(b, a if ta else None)
        if not isinstance(a, Tensor) and not isinstance(b, Tensor):
            a = to_tensor(a)   # two Python scalars: NumPy makes arrays of both (weak pair)
        types = (type(a) if not isinstance(a, Tensor) else a.dtype,
                 type(b) if not isinstance(b, Tensor) else b.dtype)
        dev = a._device if isinstance(a, Tensor) else (b._device if isinstance(b, Tensor)
                                                        else None)
    lin, odt = _resolve(name, BINARY[name].type_rule, types)
    if lin.kind in "iu":
        for v, t in ((a, b), (b, a)):
            if _weak_int(v) and not _fits(v, lin):
                return _out_of_range(name, v, t, v is a, lin, out)
    a = _at(a, lin, dev)
    b = _at(b, lin, dev)
    if a.shape != b.shape:
        broadcast_shapes(name, a.shape, b.shape)
    if out is not None:
        return _into(name, out, (a, b), odt)
    return bind(PRIMS[name], (a, b), {"out_dtype": odt})


_COMPARE = {"equal": (False, False), "not_equal": (True, True),
            "less": (False, True), "less_equal": (False, True),
            "greater": (True, False), "greater_equal": (True, False)}


def _weak_int(v):
    return isinstance(v, int) and not isinstance(v, (bool, np.generic))


def _fits(v, dtype):
    """Whether the Python int ``v`` fits the integer ``dtype``."""
    info = np.iinfo(dtype)
    return info.min <= v <= info.max


def _out_of_range(name, v, other, left, lin, out):
    """NumPy 2 on a Python int ``v`` outside the integer loop dtype ``lin``: comparisons
    with an integer tensor ``other`` are answered exactly (``int32 < 2**40`` is all
    True); everything else is an OverflowError."""
    if name not in _COMPARE or not isinstance(other, Tensor) or other.dtype.kind not in "iu":
        raise OverflowError("tenferro.%s: Python integer %d out of bounds for %s"
                            % (name, v, lin))
    from .conversion import store_out
    from .creation import full

    # (result when v is below every value, when above), for v as the right operand
    below, above = _COMPARE[name]
    if left and name not in ("equal", "not_equal"):
        below, above = above, below
    r = full(other.shape, above if v > 0 else below, dtype=_dtypes.bool_,
             device=other._device)
    return r if out is None else store_out(name, r, out)


def _into(name, out, args, odt):
    """Write ``name(*args)`` into the tensor ``out`` (NumPy's ``out=``; same_kind casting).

    Not recorded for autodiff: ``out`` and the operands must not require gradients.
    """
    from .conversion import check_mutable, check_out

    if any(a.requires_grad for a in args) or _primitive.state.interpreters:
        raise RuntimeError("tenferro.%s: out= is not supported with autodiff or tracing; use "
                           "the out-of-place form" % name)
    check_out(name, out, broadcast_shapes(name, *[a.shape for a in args]), odt)
    dev = out._device
    for a in args:
        if a._device is not dev:
            raise DeviceMismatchError(name, [dev] + [x._device for x in args])
    fn = dev.driver.lookup(name, dev, args[0].dtype)
    check_mutable(name, out)
    if odt == out.dtype:
        _primitive.driver_call(name, dev, fn, [a._data for a in args],
                               {"out_dtype": odt, "out": out._data})
    else:
        from .conversion import copy_into

        copy_into(out, _wrap(_primitive.driver_call(name, dev, fn, [a._data for a in args],
                                                     {"out_dtype": odt}), dev))
    return out


def _operand(x, other):
    """A non-Tensor operand: weak Python scalars stay as they are, the rest become tensors."""
    if isinstance(x, WEAK) and not isinstance(x, np.generic):
        return x  # (np.float64 subclasses float but is strongly typed in NumPy 2)
    if isinstance(x, (np.ndarray, np.generic, list, tuple)):
        return to_tensor(x, device=other._device if isinstance(other, Tensor) else None)
    raise NotATensor("tenferro: unsupported operand type %s" % type(x).__name__)


def _at(x, dtype, dev):
    """``x`` as a tensor of ``dtype`` on ``dev`` (scalars, lists and ndarrays converted)."""
    if isinstance(x, Tensor):
        return x if x.dtype == dtype else astype(x, dtype)
    return _scalar_tensor(x, dtype, dev)


def where(condition: ArrayLike, x: ArrayLike, y: ArrayLike) -> Tensor:
    """Elements of ``x`` where ``condition`` is true, else of ``y`` (numpy.where).

    The three arguments broadcast against each other; ``x`` and ``y`` are promoted to
    their common dtype by NumPy 2's rules (Python scalars are weak: ``where(c, x, 0.0)``
    keeps a float32 ``x`` float32; two Python floats give the device's default float).
    Unlike NumPy, the one-argument form (``nonzero``) is not offered: use
    :func:`nonzero`.

    Parameters
    ----------
    condition : Tensor or array_like
        Where true, take ``x``; cast to bool if it is not.
    x, y : Tensor, array_like or scalar
        The values to choose from.

    Returns
    -------
    Tensor
        The broadcast shape of the three arguments, the promoted dtype of ``x`` and ``y``.

    Raises
    ------
    ValueError
        If the shapes do not broadcast.
    DeviceMismatchError
        If the tensors are on different devices (a ValueError).

    Notes
    -----
    Differentiable: yes in ``x`` and ``y`` (forward and reverse, real and complex, to any
    order): the gradient goes to ``x`` where ``condition`` holds and to ``y`` elsewhere;
    none to ``condition``.  Rule: PyTorch derivatives.yaml (where.self).  The untaken
    branch still gets a zero cotangent, and zero times an infinite derivative is NaN:
    ``where(x > 0, log(x), 0.0)`` has a NaN gradient at ``x = 0``, as in PyTorch and
    JAX.  Mask the input instead: ``log(where(x > 0, x, 1.0))``.

    See Also
    --------
    numpy.where, clip, nonzero

    Examples
    --------
    >>> x = tf.asarray([[1.0, -2.0], [3.0, 0.5]])
    >>> tf.where(x > 0, x, 0.0)
    tensor([[1. , 0. ],
            [3. , 0.5]])
    """
    tensors = [t for t in (condition, x, y) if isinstance(t, Tensor)]
    dev = tensors[0]._device if tensors else None
    for t in tensors:
        if t._device is not dev:
            raise DeviceMismatchError("where", [t._device for t in tensors])
    c = to_tensor(condition, device=dev)
    if c.dtype != _dtypes.bool_:
        c = astype(c, _dtypes.bool_)
    x, y = [v if isinstance(v, (Tensor,) + WEAK) else to_tensor(v, device=dev) for v in (x, y)]
    dt = _dtypes.result_type(x, y)
    if dt.kind in "fc" and not isinstance(x, Tensor) and not isinstance(y, Tensor):
        # Python scalars only: the device's default float, as asarray(0.5, device=...)
        # (float64 on the CPU, as NumPy; float32 on WebGPU, which has no float64)
        dt = c._device.driver.default_dtypes.get(dt.kind, dt)
    x, y = _at(x, dt, dev), _at(y, dt, dev)
    broadcast_shapes("where", c.shape, x.shape, y.shape)
    return bind(where_p, (c, x, y), {"out_dtype": dt})


def clip(x: ArrayLike, min: ArrayLike | None = None, max: ArrayLike | None = None) -> Tensor:
    """Limit the values to the interval ``[min, max]`` (numpy.clip).

    Either bound may be None (no limit on that side) but not both.  Bounds may be
    tensors, broadcast against ``x``; where ``min > max`` the result is ``max``, as in
    NumPy.  The result dtype is NumPy 2's promotion of ``x`` and the bounds (a Python
    scalar bound is weak; an integer bound past an integer dtype's range clips nothing).

    Parameters
    ----------
    x : Tensor or array_like
        The values to clip.
    min : Tensor, array_like, scalar or None, default None
        The lower bound.
    max : Tensor, array_like, scalar or None, default None
        The upper bound.

    Returns
    -------
    Tensor
        ``minimum(maximum(x, min), max)``, in the broadcast shape of the arguments.

    Raises
    ------
    ValueError
        If both bounds are None, or the shapes do not broadcast.
    TypeError
        If the bounds' dtypes do not promote with ``x``'s.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex (NumPy's lexicographic
    order), to any order, in ``x`` and in the bounds: the gradient goes to whichever of ``x``, ``min``, ``max`` the output equals
    (to ``x`` at a bound, as PyTorch's ``clamp``).  Rule: PyTorch derivatives.yaml
    (clamp.Tensor).

    See Also
    --------
    numpy.clip, maximum, minimum

    Examples
    --------
    >>> tf.clip(tf.asarray([-1.0, 0.5, 3.0]), 0.0, 1.0)
    tensor([0. , 0.5, 1. ])
    >>> tf.clip(tf.asarray([1, 5, 9]), None, 4)
    tensor([1, 4, 4])
    """
    if not isinstance(x, Tensor):
        x = to_tensor(x)
    if min is None and max is None:
        raise ValueError("tenferro.clip: at least one of min and max must be given")
    if x.dtype.kind in "iu":  # NumPy 2: a bound past the dtype's range clips nothing
        info = np.iinfo(x.dtype)
        if _weak_int(min) and min < info.min:
            min = int(info.min)
        if _weak_int(max) and max > info.max:
            max = int(info.max)
    if x.dtype.kind == "f":  # one primitive, so the gradient at a bound goes to x (PyTorch)
        min = float("-inf") if min is None else min
        max = float("inf") if max is None else max
    elif min is None:
        return minimum(x, max)
    elif max is None:
        return maximum(x, min)
    dt = _dtypes.result_type(x, min, max)
    dev = x._device
    x, lo, hi = _at(x, dt, dev), _at(min, dt, dev), _at(max, dt, dev)
    broadcast_shapes("clip", x.shape, lo.shape, hi.shape)
    return bind(clip_p, (x, lo, hi), {"out_dtype": dt})


def real(x: ArrayLike) -> Tensor:
    """Real part of complex numbers (numpy.real).

    complex64 gives float32 and complex128 float64; for a real tensor the tensor itself
    is returned (NumPy returns a view).

    Parameters
    ----------
    x : Tensor or array_like
        The input.

    Returns
    -------
    Tensor
        The real parts, of ``x``'s shape, in the real dtype of ``x``'s dtype.

    Raises
    ------
    TypeError
        If ``x`` cannot be converted to a tensor.

    Notes
    -----
    Differentiable: yes, forward and reverse, to any order (linear); the cotangent
    returns as a complex tensor with zero imaginary part.  Rule: PyTorch
    derivatives.yaml (real).

    See Also
    --------
    numpy.real, imag, angle, conj

    Examples
    --------
    >>> tf.real(tf.asarray([1 + 2j, 0.5 - 3j]))
    tensor([1. , 0.5])
    """
    if not isinstance(x, Tensor):
        x = to_tensor(x)
    if x.dtype.kind != "c":
        return x
    return bind(PRIMS["real"], (x,), {"out_dtype": _dtypes.real_dtype(x.dtype)})


def imag(x: ArrayLike) -> Tensor:
    """Imaginary part of complex numbers (numpy.imag).

    complex64 gives float32 and complex128 float64; a real tensor gives zeros of its
    shape and dtype (a new tensor, where NumPy returns a read-only zero view).

    Parameters
    ----------
    x : Tensor or array_like
        The input.

    Returns
    -------
    Tensor
        The imaginary parts, of ``x``'s shape, in the real dtype of ``x``'s dtype.

    Raises
    ------
    TypeError
        If ``x`` cannot be converted to a tensor.

    Notes
    -----
    Differentiable: yes, forward and reverse, to any order (linear); the cotangent
    returns as ``1j`` times it.  Rule: PyTorch derivatives.yaml (imag).

    See Also
    --------
    numpy.imag, real, angle

    Examples
    --------
    >>> tf.imag(tf.asarray([1 + 2j, 0.5 - 3j]))
    tensor([ 2., -3.])
    """
    if not isinstance(x, Tensor):
        x = to_tensor(x)
    if x.dtype.kind != "c":
        from .creation import zeros_like

        return zeros_like(x)
    return bind(PRIMS["imag"], (x,), {"out_dtype": _dtypes.real_dtype(x.dtype)})


def angle(x: ArrayLike, deg: bool = False) -> Tensor:
    """Argument (phase) of complex numbers, :math:`\\arg z \\in (-\\pi, \\pi]` (numpy.angle).

    Real input gives 0 for positive and pi for negative values; integer and bool input
    is taken as float64.  The result is in the real dtype of the input.

    Parameters
    ----------
    x : Tensor or array_like
        The complex (or real) numbers.
    deg : bool, default False
        Return degrees instead of radians.

    Returns
    -------
    Tensor
        The angles, of ``x``'s shape.

    Raises
    ------
    TypeError
        If ``x`` cannot be converted to a tensor.

    Notes
    -----
    Differentiable: yes, forward and reverse, to any order, for complex input
    (:math:`\\partial \\arg z` from ``i z / |z|^2``, 0 at 0); zero for real input.  Rule:
    PyTorch FunctionsManual.cpp angle_backward.

    See Also
    --------
    numpy.angle, real, imag, abs

    Examples
    --------
    >>> z = tf.asarray([1 + 1j, -2j, -3.0])
    >>> tf.angle(z)
    tensor([ 0.78539816, -1.57079633,  3.14159265])
    >>> tf.angle(z, deg=True)
    tensor([ 45., -90., 180.])
    """
    if not isinstance(x, Tensor):
        x = to_tensor(x)
    if x.dtype.kind in "biu":
        x = astype(x, _dtypes.float64)
    r = bind(PRIMS["angle"], (x,), {"out_dtype": _dtypes.real_dtype(x.dtype)})
    return r * (180.0 / np.pi) if deg else r


# Fast paths.  A plain tensor (no autodiff state, no tracer active) whose dtype is
# already the loop dtype goes straight to its driver: on tiny tensors Python overhead
# is the whole cost (issue: per-call cost no more than PyTorch's).  Everything else
# takes the general path above, which handles promotion, casting and autodiff.

_scalars = {}


def _cacheable(v):
    """Whether a cache keyed by ``(type(v), v)`` can only hit ``v``'s own bits: zeros
    are not cached (``0.0 == -0.0``, and ``1+0j == 1-0j``, with equal hashes: the cache
    handed ``x * 0.0`` the cached ``-0.0``), nor NaNs (never equal: they would only
    fill the cache).  ``type(v)`` in the key keeps True, 1 and 1.0 apart.  Lookups stay
    one dict probe: a zero or NaN is never stored, so nothing can match it wrongly."""
    t = type(v)
    if t is float:
        return v != 0.0 and v == v
    if t is complex:
        return v.real != 0.0 and v.imag != 0.0 and v == v
    return True


def _cpu_scalar(v, dtype):
    """A cached read-only 0-d host array for a weak Python scalar operand."""
    key = (type(v), v, dtype)
    a = _scalars.get(key)
    if a is None:
        a = np.asarray(v, dtype=dtype)  # raises OverflowError like NumPy
        a.flags.writeable = False
        if _cacheable(v):
            if len(_scalars) > 4096:
                _scalars.clear()
            _scalars[key] = a
    return a


_caches.register("scalar operands", lambda: _caches.CacheStats(   # (hits not counted)
    None, None, len(_scalars), 4096, "entries"), _scalars.clear)


def _scalar_on(v, dtype, dev):
    """A weak Python scalar operand as a cached read-only 0-d array on ``dev`` (uploaded
    once per value: an eager ``x * 2.0`` on an accelerator transfers nothing)."""
    key = (type(v), v, dtype, dev)
    d = _scalars.get(key)
    if d is None:
        d = _cpu_scalar(v, dtype)
        if dev.type != "cpu":
            d = dev.driver.from_numpy(d, dev)
            if hasattr(d, "writeable"):
                d.writeable = False
        if _cacheable(v):
            _scalars[key] = d
    return d


def _fast_entry(name, ufunc, dev, types):
    """(``f(*device arrays)`` computing the op, output dtype, primitive params, bounds)
    when ``name`` on tensors of this device and these dtypes needs no cast and no checks
    beyond the driver's, else False.  ``f`` is the driver's allocating kernel where its
    implementation offers one (``fn.allocating``: the CPU's loop resolved once), else the
    implementation with ``out_dtype`` bound."""
    lin, odt = _resolve(name, ufunc, types)
    fn = dev.driver.implementations.get(name)
    if fn is None or any(t is not lin for t in types if not isinstance(t, type)):
        return False
    # the Python ints the fast path takes (others: the general path's NumPy 2 rules)
    bounds = (int(np.iinfo(lin).min), int(np.iinfo(lin).max)) if lin.kind in "iu" \
        else (-np.inf, np.inf)
    alloc = getattr(fn, "allocating", None)
    call = alloc(lin, odt) if alloc is not None else None
    return (call or functools.partial(fn, out_dtype=odt), odt, {"out_dtype": odt}, bounds)


def _make_unary(name):
    def general(x, out=None):
        return unary(name, x, out)
    fast = _fastpath.unary(name, UNARY[name].type_rule, PRIMS[name], general, _fast_entry)

    def f(x, out=None):
        return fast(x, out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = docstring(name, UNARY[name], _resolve)
    return f


def _make_binary(name, dunder=False):
    """``tenferro.<name>(x1, x2, out=None)`` (a Python function around the compiled fast
    path); with ``dunder`` the ``Tensor.__<op>__`` method, the compiled function itself
    (no second call layer), which returns NotImplemented for operands it cannot
    convert."""
    if dunder:
        def general(x1, x2, out=None):
            try:
                return binary(name, x1, x2)
            except NotATensor:
                return NotImplemented
    else:
        def general(x1, x2, out=None):
            return binary(name, x1, x2, out)
    fast = _fastpath.binary(name, BINARY[name].type_rule, PRIMS[name], general,
                            _fast_entry, _scalars, _scalar_on)
    if dunder:
        f = fast
        f.__module__ = __name__
    else:
        def f(x1, x2, out=None):
            return fast(x1, x2, out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = ("The operator form of :func:`tenferro.%s`." % name if dunder
                 else docstring(name, BINARY[name], _resolve))
    return f


if TYPE_CHECKING:
    # The functions generated below from the op tables (and their aliases), as type
    # checkers see them (tests/test_packaging.py checks the names against the tables).
    def _unary(x: ArrayLike, out: Tensor | None = None) -> Tensor: ...
    def _binary(x1: ArrayLike, x2: ArrayLike, out: Tensor | None = None) -> Tensor: ...
    negative = positive = abs = sign = exp = expm1 = exp2 = log = log1p = log2 = log10 = \
        sqrt = rsqrt = square = reciprocal = sin = cos = tan = arcsin = arccos = arctan = \
        sinh = cosh = tanh = arcsinh = arccosh = arctanh = sigmoid = erf = floor = ceil = \
        trunc = conj = isnan = isinf = isfinite = logical_not = bitwise_invert = \
        absolute = conjugate = invert = bitwise_not = rint = _unary
    add = subtract = multiply = divide = floor_divide = remainder = power = maximum = \
        minimum = fmax = fmin = arctan2 = hypot = copysign = logaddexp = equal = \
        not_equal = less = less_equal = greater = greater_equal = logical_and = \
        logical_or = logical_xor = bitwise_and = bitwise_or = bitwise_xor = left_shift = \
        right_shift = true_divide = pow = mod = bitwise_left_shift = \
        bitwise_right_shift = atan2 = _binary

_g = globals()
for _name in UNARY:
    _g[_name] = _make_unary(_name)
for _name in BINARY:
    _g[_name] = _make_binary(_name)
# Tensor.__add__ and friends: the same fast path, without a second call layer.
DUNDERS = {_name: _make_binary(_name, dunder=True) for _name in BINARY}
# Names tenferro and the Array API also use.
absolute = _g["abs"]
conjugate = _g["conj"]
true_divide = _g["divide"]
pow = _g["power"]
mod = _g["remainder"]
invert = _g["bitwise_invert"]
bitwise_not = _g["bitwise_invert"]
bitwise_left_shift = _g["left_shift"]
bitwise_right_shift = _g["right_shift"]
atan2 = _g["arctan2"]
rint = _g["round"]

_round = _g["round"]


def round(x: ArrayLike, decimals: int = 0) -> Tensor:
    """Round half to even to ``decimals`` places (numpy.round).

    Floats are scaled by :math:`10^{d}`, rounded to the nearest integer (halves to even)
    and scaled back, as NumPy does; complex numbers round both parts.  Integer tensors
    keep their dtype, as in NumPy (:func:`rint` would give float64): a copy for
    ``decimals >= 0``, rounded to a multiple of ``10**-decimals`` (half to even)
    otherwise.  Bool input gives float32 (NumPy: float16, which tenferro has not).

    Parameters
    ----------
    x : Tensor or array_like
        The values to round.
    decimals : int, default 0
        The number of decimal places; negative rounds to tens, hundreds, ...

    Returns
    -------
    Tensor
        The rounded values, of ``x``'s shape and dtype.

    Raises
    ------
    TypeError
        If ``x`` cannot be converted to a tensor.

    Notes
    -----
    Differentiable: no, piecewise constant: its derivative is zero almost everywhere,
    and gradients through it are zero (as PyTorch's).

    See Also
    --------
    numpy.round, rint, floor, ceil, trunc

    Examples
    --------
    >>> tf.round(tf.asarray([0.125, 2.5, -1.35]), 1)
    tensor([ 0.1,  2.5, -1.4])
    >>> tf.round(tf.asarray([15, 25, 1234]), -1)
    tensor([  20,   20, 1230])
    """
    if not isinstance(x, Tensor):
        x = to_tensor(x)
    if x.dtype.kind in "iu":
        if decimals >= 0:
            return x.copy()
        s = 10 ** -decimals
        return astype(_round(x / s) * s, x.dtype)
    if decimals == 0:
        return _round(x)
    s = 10.0 ** decimals
    return _round(x * s) / s


def logsumexp(x: ArrayLike, axis: AxisLike = None, keepdims: bool = False) -> Tensor:
    """:math:`\\log \\sum_i e^{x_i}` over ``axis``, without overflow
    (scipy.special.logsumexp).

    The maximum is subtracted before exponentiating and added back (a slice whose
    maximum is infinite is not shifted).  Integer and bool input is taken as float64;
    complex input follows SciPy (the principal log of the complex sum).  Unlike SciPy,
    there is no ``b`` (weights) or ``return_sign``.

    Parameters
    ----------
    x : Tensor or array_like
        The input.
    axis : int, tuple of ints or None, default None
        The axes to reduce; None reduces all.
    keepdims : bool, default False
        Keep the reduced axes with size one.

    Returns
    -------
    Tensor
        The reduced tensor, in ``x``'s floating dtype.

    Raises
    ------
    AxisError
        If an axis is out of bounds (an IndexError and ValueError, as NumPy's).

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order (composed
    of differentiable ops; the gradient is the softmax of ``x``, and the shift carries
    none).

    See Also
    --------
    scipy.special.logsumexp, logaddexp

    Examples
    --------
    >>> tf.logsumexp(tf.asarray([[0.0, 0.0], [1000.0, 1000.0]]), axis=1)
    tensor([6.93147181e-01, 1.00069315e+03])
    """
    from ._common import normalize_axes
    from .reduction import max as _max, sum as _sum
    from .shape import zero_d_axis

    x = to_tensor(x)
    if not zero_d_axis(axis, x.ndim):
        normalize_axes("logsumexp", axis, x.ndim)  # errors name logsumexp, not max
    if x.dtype.kind in "biu":
        x = astype(x, _dtypes.float64)
    # The shift m cancels exactly, so it carries no derivative (and records nothing).
    m = _max(x.detach(), axis=axis, keepdims=True)
    m = where(isfinite(m), m, 0.0)
    r = log(_sum(exp(x - m), axis=axis, keepdims=True)) + m
    if not keepdims:
        from .shape import squeeze

        r = squeeze(r, axis)
    return r


def inplace(name, x, other):
    """``x op= other``: result cast back into ``x`` (NumPy's same_kind rule)."""
    from .conversion import check_inplace, copy_into

    check_inplace(name, x)
    if name != "matmul" and x._ad is None:
        return binary(name, x, other, out=x)
    if name == "matmul":
        from .matmul import matmul as op
        r = op(x, other)
    else:   # a tensor autodiff follows, under no_grad: computed, then written (copy_into)
        r = binary(name, x, other)
    if not np.can_cast(r.dtype, x.dtype, casting="same_kind"):
        raise TypeError("tenferro: in-place %s cannot cast the result from %s to the "
                        "tensor's dtype %s under the same_kind rule" % (name, r.dtype, x.dtype))
    if r.shape != x.shape:
        raise ValueError("tenferro: in-place %s: result of shape %s does not fit the tensor "
                         "of shape %s" % (name, r.shape, x.shape))
    copy_into(x, r)


if not TYPE_CHECKING:   # type checkers export the names the block above declares
    __all__ = (list(UNARY) + list(BINARY) + [
        "absolute", "conjugate", "true_divide", "pow", "mod", "invert", "bitwise_not",
        "bitwise_left_shift", "bitwise_right_shift", "atan2", "rint",
        "where", "clip", "real", "imag", "angle", "round", "logsumexp"])
