"""The public einsum functions: ``einsum``, ``einsum_path``, and ``trace`` (NumPy's, a
diagonal and a sum); NumPy's other contractions on the einsum engine are in
:mod:`.products`."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ... import _dtypes
from ..._primitive import bind, _interpreters
from ..._tensor import Tensor, _wrap
from .._common import common_device, to_tensor
from ..conversion import ascontiguousarray, store_out
from ..reduction import sum as _sum
from ..shape import diagonal, permute_dims
from .cache import cached_pair_plan, cached_plan
from .parse import split_operands
from .plan import build_plan, oe_optimize
from .primitive import einsum_p
from .steps import take

if TYPE_CHECKING:
    from ..._tensor import ArrayLike, DTypeLike


_CASTING = ("no", "equiv", "safe", "same_kind", "unsafe")


def einsum(*args: Any, optimize: Any = "auto", out: Tensor | None = None,
           dtype: DTypeLike = None, casting: str = "safe", order: str = "K") -> Tensor:
    """Einstein summation over labelled axes (NumPy's ``einsum``).

    ``einsum('ij,jk->ik', a, b)`` is ``sum_j a[i, j] b[j, k]``: each operand's axes
    get one letter, letters shared by operands are multiplied along, letters left out
    of the output (after ``->``) are summed over.  NumPy's whole grammar is accepted:
    implicit output (``'ij,jk'``: the letters that appear once, sorted), ``...`` for
    broadcast leading axes, repeated letters in an operand for diagonals (``'ii->i'``,
    ``'ii'`` the trace), size-1 axes broadcasting, and the interleaved form
    ``einsum(a, [0, 1], b, [1, 2], [0, 2])``.  Beyond NumPy, a letter repeated in the
    output embeds a diagonal (``'i->ii'`` is ``diag``).

    With several operands the contraction runs pair by pair in opt_einsum's order
    (``optimize``), each pair as one batched matrix product (BLAS on the CPU, the
    device's kernel elsewhere); the parsed plan is cached per subscripts, shapes,
    strides, dtypes and device (:func:`einsum_cache_info`).  Unlike NumPy,
    ``optimize`` defaults to ``"auto"`` (NumPy: False), so large networks are never
    contracted naively.  Integer operands sum in their own dtype, wrapping as in
    NumPy; bool operands give ``any``-of-``and`` (summed exactly in int64).

    Parameters
    ----------
    *args : str and Tensors, or Tensors and label lists
        ``subscripts, *operands`` (a string in NumPy's grammar, then one Tensor or
        array_like per term), or the interleaved ``op0, labels0, op1, labels1, ...,
        [out_labels]`` with labels lists of ints (or ``Ellipsis``).  The operands must
        be on one device.
    optimize : {"auto", "greedy", "optimal", "dp", ...}, bool, list or object, default "auto"
        The pairwise order: an opt_einsum strategy name, True (``"auto"``), False or
        None (one pair at a time, cheapest first), an explicit path as
        :func:`einsum_path` returns it, ``(algorithm, memory_limit)`` as in NumPy, or an
        opt_einsum ``PathOptimizer`` or cotengra optimizer object.
    out : Tensor, optional
        A tensor of the result's shape to write into (and return); the result is cast
        to its dtype under ``casting``.
    dtype : dtype, optional
        Compute in and return this dtype (the operands cast to it under ``casting``);
        default: the operands' promoted dtype.
    casting : {"no", "equiv", "safe", "same_kind", "unsafe"}, default "safe"
        NumPy's rule for the casts ``dtype`` and ``out`` ask for.
    order : {"K", "A", "C", "F"}, default "K"
        The result's memory layout: "K" and "A" whatever the contraction produces (a
        view may be non-contiguous), "C" or "F" a contiguous copy in that order where
        needed.

    Returns
    -------
    Tensor
        The contraction, with one axis per output letter (0-d when every letter is
        summed), in ``dtype`` or the operands' promoted dtype; ``out`` when given.

    Raises
    ------
    ValueError
        If the subscripts are malformed, their number of terms differs from the
        number of operands, a letter has two different sizes, or ``casting`` or
        ``order`` is not one of the names above.
    TypeError
        If an operand (or the result, into ``out``) cannot be cast under ``casting``,
        or ``optimize=(algorithm, memory_limit)`` has no number as its limit.
    KeyError
        If ``optimize`` names an unknown strategy.
    DeviceMismatchError
        If the operands are on different devices.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex, to any order: the JVP
    is the product rule (one einsum per operand with a tangent, as JAX's
    ``dot_general``), the VJP of an operand the einsum of the cotangent with the
    other operands conjugated (PyTorch's einsum backward; Giles 2008, "Extended
    collection of matrix derivative results"), with diagonals, summed-away letters
    and broadcast axes handled explicitly (``tenferro/autograd/_rules/einsum.py``).
    Both are einsums again, so they differentiate further.  A differentiated call
    records one einsum per pairwise step, so the backward pass follows the forward
    path and reuses its intermediates.

    See Also
    --------
    numpy.einsum, einsum_path, tensordot, matmul, opt_einsum.contract

    Examples
    --------
    >>> a = tf.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> tf.einsum('ij,jk->ik', a, a)
    tensor([[ 7., 10.],
            [15., 22.]])
    >>> tf.einsum('ii', a)
    tensor(5.)
    >>> tf.einsum('i->ii', tf.asarray([5.0, 6.0]))
    tensor([[5., 0.],
            [0., 6.]])
    >>> tf.einsum('bij,jk->bik', tf.ones((10, 2, 3)), tf.ones((3, 4))).shape
    (10, 2, 4)
    """
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
    """The order in which :func:`einsum` contracts its operands pairwise (NumPy's
    ``einsum_path``).

    Nothing is computed: the subscripts are parsed and opt_einsum's path finder run
    on the operands' shapes.  With ``optimize="auto"`` the path is the one
    :func:`einsum`'s default takes; the default here is NumPy's, "greedy", which is
    opt_einsum's greedy search (it can pick another order than NumPy's own greedy
    one: for ``'ij,jk,k->i'`` it multiplies the matrices first, "optimal" and
    "auto" do not).  The path can be passed back as ``einsum(..., optimize=path)``
    to fix the order.

    Parameters
    ----------
    *args : str and Tensors, or Tensors and label lists
        The subscripts and operands, as :func:`einsum` takes them.
    optimize : {"greedy", "optimal", "auto", "dp", ...}, bool, list or object, default "greedy"
        The strategy, as :func:`einsum`'s ``optimize`` (NumPy's default is "greedy"
        here too).

    Returns
    -------
    path : list
        ``['einsum_path', (i, j), ...]``: each tuple names the operands (positions in
        the current list, the intermediate appended at the end) contracted by a step.
    report : str
        opt_einsum's description: naive and optimised scaling and FLOP counts, the
        largest intermediate and each step's subscripts.

    Raises
    ------
    ValueError
        If the subscripts are malformed or do not match the operands.
    KeyError
        If ``optimize`` names an unknown strategy.
    DeviceMismatchError
        If the operands are on different devices.

    Notes
    -----
    Differentiable: no (it returns a path, not values).

    See Also
    --------
    numpy.einsum_path, einsum, opt_einsum.contract_path

    Examples
    --------
    >>> a, v = tf.ones((50, 50)), tf.ones(50)
    >>> path, report = tf.einsum_path('ij,jk,k->i', a, a, v, optimize="auto")
    >>> path    # a @ (a @ v): two matrix-vector products
    ['einsum_path', (1, 2), (0, 1)]
    >>> print(report.splitlines()[0].strip())
    Complete contraction:  ij,jk,k->i
    >>> _ = tf.einsum('ij,jk,k->i', a, a, v, optimize=path)
    """
    spec, ops = split_operands(args, "einsum_path")
    ops = [t if isinstance(t, Tensor) else to_tensor(t) for t in ops]
    dev = common_device("einsum_path", ops)
    plan = build_plan(spec, tuple(t.shape for t in ops), tuple(t._data.strides for t in ops),
                      oe_optimize(optimize), dev.driver, _dtypes.result_type(*ops))
    return ["einsum_path"] + list(plan.path), plan.report


def trace(a: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1,
          dtype: DTypeLike = None) -> Tensor:
    """NumPy's ``trace``: sums of the diagonals of the (axis1, axis2) planes (a strided
    diagonal view and one reduction, as einsum's ``'ii->'``)."""
    a = to_tensor(a)
    if a.ndim < 2:
        raise ValueError("tenferro.trace: expected at least 2 dimensions, got shape %s"
                         % (a.shape,))
    return _sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)
