"""The public einsum functions: ``einsum``, ``einsum_path`` and NumPy's contractions
built on the einsum engine (``tensordot``, ``inner``, ``kron``, ``trace``)."""
from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

import numpy as np

from ... import _dtypes
from ..._primitive import bind, _interpreters
from ..._tensor import Tensor, _wrap
from .._common import common_device, normalize_axis, to_tensor
from ..conversion import ascontiguousarray, store_out
from ..reduction import sum as _sum
from ..shape import diagonal, permute_dims
from .cache import cached_pair_plan, cached_plan
from .parse import split_operands
from .plan import build_plan, oe_optimize
from .primitive import einsum_p
from .steps import take

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..._tensor import ArrayLike, DTypeLike


_CASTING = ("no", "equiv", "safe", "same_kind", "unsafe")


def einsum(*args: Any, optimize: Any = "auto", out: Tensor | None = None,
           dtype: DTypeLike = None, casting: str = "safe", order: str = "K") -> Tensor:
    """Einstein summation with NumPy's grammar (``tenferro.einsum('ij,jk->ik', a, b)``
    or the interleaved ``einsum(a, [0, 1], b, [1, 2], [0, 2])``), plus diagonal
    embedding (``'i->ii'``).  ``optimize``: False, "auto", "greedy", "optimal", "dp",
    an explicit path, ``(algorithm, memory_limit)`` as NumPy, an opt_einsum
    PathOptimizer or a cotengra optimizer.  ``dtype``, ``casting`` (default "safe")
    and ``order`` ("K": the layout the contraction produces; "C" or "F": a copy in
    that order where needed; "A": as "K") mean what they mean in NumPy."""
    if (len(args) == 3 and optimize.__class__ is str and optimize == "auto" and out is None
            and dtype is None and casting == "safe" and order == "K" and not _interpreters):
        r = _plain_pair(args)
        if r is not None:
            return r
    spec, ops = split_operands(args)
    if casting != "safe" and casting not in _CASTING:
        raise ValueError("tenferro.einsum: casting must be one of %s, got %r"
                         % (", ".join(map(repr, _CASTING)), casting))
    if order != "K" and order not in ("C", "F", "A"):
        raise ValueError("tenferro.einsum: order must be one of 'C', 'F', 'A' or 'K', got %r"
                         % (order,))
    plain = not _interpreters  # no trace, no tape: the plan runs directly
    for i, t in enumerate(ops):
        if t.__class__ is not Tensor:
            ops[i] = t = to_tensor(t)
        if t._ad is not None:
            plain = False
    dev = common_device("einsum", ops)
    plan = cached_plan(spec, ops, optimize, dtype, dev.driver)
    work = plan.work
    if dtype is not None or casting in ("no", "equiv"):
        dt = plan.cast if plan.cast is not None else work
        for i, t in enumerate(ops):
            if not np.can_cast(t.dtype, dt, casting):
                raise TypeError("tenferro.einsum: operand %d of dtype %s cannot be cast to %s "
                                "under the %r casting rule (pass casting='unsafe' to allow "
                                "it)" % (i, t.dtype, dt, casting))
    for i, t in enumerate(ops):
        if t._data.dtype != work:
            ops[i] = t.astype(work)
    if plain:
        r = _wrap(plan.run([t._data for t in ops]), dev)
    elif plan.stepwise is not None:
        r = _run_stepwise(plan, ops)
    else:
        r = bind(einsum_p, ops, plan.params)
    if plan.cast is not None:
        r = r != 0 if plan.cast == _dtypes.bool_ else r.astype(plan.cast)
    if out is not None:
        if isinstance(out, Tensor) and out.dtype != r.dtype:
            if not np.can_cast(r.dtype, out.dtype, casting):
                raise TypeError("tenferro.einsum: cannot cast the result from %s to out's "
                                "dtype %s under the %r casting rule" % (r.dtype, out.dtype,
                                                                         casting))
            r = r.astype(out.dtype)
        return store_out("einsum", r, out)
    return r if order == "K" or order == "A" else _in_order(r, order)


def _plain_pair(args):
    """``einsum(spec, a, b)`` (``args``) when its plan is cached, both operands are plain tensors
    (no autodiff) of the plan's dtype on one device and the defaults hold: the plan run
    on the device arrays, the general path's other steps being no-ops (a small einsum
    is all per-call cost).  None where the general path is needed."""
    spec, a, b = args
    if (spec.__class__ is not str or a.__class__ is not Tensor or b.__class__ is not Tensor
            or a._ad is not None or b._ad is not None):
        return None
    dev = a._device
    if b._device is not dev:
        return None
    x, y = a._data, b._data
    plan = cached_pair_plan(spec, x, y, dev.driver)
    if plan is None or plan.cast is not None or x.dtype != plan.work or y.dtype != plan.work:
        return None
    f = plan.pair
    return _wrap(plan.run([x, y]) if f is None else f(x, y), dev)


def _run_stepwise(plan, ts):
    """The plan's contraction as one einsum per step, on Tensors.

    Used when the call is differentiated: each step is then one node of the tape or
    trace whose rules contract just its own operands, so a backward pass follows the
    forward path and reuses its intermediates (about twice the forward's cost), where
    the rule of the whole einsum would contract the whole network once per operand."""
    pre, steps, final = plan.stepwise
    ts = [t if p is None else einsum(t, p[0], p[1]) for t, p in zip(ts, pre)]
    for con, ins, res in steps:
        args = []
        for t, labels in zip(take(ts, con), ins):
            args += [t, labels]
        ts.append(einsum(*args, res))
    t, = ts
    return t if final is None else einsum(t, final[0], final[1])


def _in_order(r, order):
    """``r`` laid out as NumPy's ``order=`` asks ("K"/"A": as it is)."""
    if order == "C":
        return ascontiguousarray(r)
    if order == "F" and r.ndim > 1:
        rev = tuple(range(r.ndim))[::-1]
        t = permute_dims(r, rev)
        return r if t is ascontiguousarray(t) else permute_dims(ascontiguousarray(t), rev)
    return r


def einsum_path(*args: Any, optimize: Any = "greedy") -> tuple[list[Any], str]:
    """``(path, report)`` as ``numpy.einsum_path``: the pairwise contraction order
    (``['einsum_path', (i, j), ...]``) and a readable description of it."""
    spec, ops = split_operands(args, "einsum_path")
    ops = [t if isinstance(t, Tensor) else to_tensor(t) for t in ops]
    dev = common_device("einsum_path", ops)
    plan = build_plan(spec, tuple(t.shape for t in ops), tuple(t._data.strides for t in ops),
                      oe_optimize(optimize), dev.driver, _dtypes.result_type(*ops))
    return ["einsum_path"] + list(plan.path), plan.report


# -- contractions on the einsum engine -------------------------------------------------------

def _tensors(op, a, b):
    a = to_tensor(a)
    b = to_tensor(b, device=a.device)
    common_device(op, [a, b])
    return a, b


def tensordot(a: ArrayLike, b: ArrayLike, axes: int | Sequence[Any] = 2) -> Tensor:
    """NumPy's ``tensordot``: ``axes`` an int N (the last N axes of ``a`` with the first N
    of ``b``) or a pair of axis sequences; one pairwise step of the einsum engine."""
    a, b = _tensors("tensordot", a, b)
    try:
        n = operator.index(axes)
    except TypeError:
        try:
            xa, xb = axes
        except (TypeError, ValueError):
            raise TypeError("tenferro.tensordot: axes must be an int or a pair of axis "
                            "sequences, got %r" % (axes,)) from None
        xa = [xa] if np.ndim(xa) == 0 else list(xa)
        xb = [xb] if np.ndim(xb) == 0 else list(xb)
    else:
        if n < 0 or n > min(a.ndim, b.ndim):
            raise ValueError("tenferro.tensordot: axes=%d is out of range for operands of "
                             "%d and %d dimensions" % (n, a.ndim, b.ndim))
        xa, xb = list(range(a.ndim - n, a.ndim)), list(range(n))
    if len(xa) != len(xb):
        raise ValueError("tenferro.tensordot: axes of a %s and of b %s differ in number"
                         % (xa, xb))
    xa = [normalize_axis("tensordot", i, a.ndim) for i in xa]
    xb = [normalize_axis("tensordot", i, b.ndim) for i in xb]
    if len(set(xa)) != len(xa) or len(set(xb)) != len(xb):
        raise ValueError("tenferro.tensordot: repeated axis in axes %r" % (axes,))
    for i, j in zip(xa, xb):
        if a.shape[i] != b.shape[j]:
            raise ValueError("tenferro.tensordot: shape mismatch for sum: axis %d of a "
                             "(shape %s) has %d elements, axis %d of b (shape %s) has %d"
                             % (i, a.shape, a.shape[i], j, b.shape, b.shape[j]))
    la = list(range(a.ndim))
    lb = list(range(a.ndim, a.ndim + b.ndim))
    for i, j in zip(xa, xb):
        lb[j] = la[i]
    out = [l for i, l in enumerate(la) if i not in xa] + \
        [l for j, l in enumerate(lb) if j not in xb]
    return einsum(a, la, b, lb, out)


def inner(a: ArrayLike, b: ArrayLike) -> Tensor:
    """NumPy's ``inner``: the sum over the last axes (scalars multiply)."""
    a, b = _tensors("inner", a, b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if a.shape[-1] != b.shape[-1]:
        raise ValueError("tenferro.inner: the last dimensions differ: shapes %s and %s "
                         "(%d != %d)" % (a.shape, b.shape, a.shape[-1], b.shape[-1]))
    return tensordot(a, b, ([-1], [-1]))


def kron(a: ArrayLike, b: ArrayLike) -> Tensor:
    """NumPy's ``kron``: the Kronecker product (block ``i`` of the result is
    ``a[i] * b``), the operands padded to the same number of dimensions."""
    a, b = _tensors("kron", a, b)
    nd = max(a.ndim, b.ndim)
    a = a.reshape((1,) * (nd - a.ndim) + a.shape)
    b = b.reshape((1,) * (nd - b.ndim) + b.shape)
    interleaved = [l for i in range(nd) for l in (i, nd + i)]
    r = einsum(a, list(range(nd)), b, list(range(nd, 2 * nd)), interleaved)
    return r.reshape(tuple(m * n for m, n in zip(a.shape, b.shape)))


def trace(a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1,
          dtype: DTypeLike = None) -> Tensor:
    """NumPy's ``trace``: sums of the diagonals of the (axis1, axis2) planes (a strided
    diagonal view and one reduction, as einsum's ``'ii->'``)."""
    a = to_tensor(a)
    return _sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)
