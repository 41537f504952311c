"""``tenferro.dask.einsum``: a tensor-network contraction sliced over Dask workers, and
its derivatives computed the same way.

The whole distributed contraction is one tenferro primitive, ``dask.einsum``, with a CPU
implementation (the task graph of ``_run``) and rules that are distributed contractions
again: the VJP of operand ``k`` contracts the output cotangent with the conjugates of
the other operands (the einsum rule of ``tenferro/autograd/_rules/einsum.py``), the
JVP sums one contraction per operand with a tangent, each sliced on the same indices
and summed on the workers as the forward is.  Higher derivatives compose.  Under
``vmap`` the primitive runs once per example (loop-only).
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .. import _dtypes
from .._errors import UnsupportedOperation
from .. import _ops
from .._primitive import Primitive
from .._tensor import Tensor
from ..autograd.extend import def_batch_loop, def_impl, def_jvp_rule, def_vjp_rule
from . import _plan, _run
from ._plan import NAME


def _abstract_eval(*avals, net, path, sliced, client, tasks):
    return (tuple(net.size[l] for l in net.out),
            _dtypes.result_type(*[d for _, d in avals]))


einsum_p = Primitive(
    "dask.einsum", _abstract_eval,
    doc="A tensor-network contraction sliced over Dask workers (tenferro.dask.einsum).")


def _impl(*arrays, net, path, sliced, client, tasks):
    return np.asarray(_run.contract(net, path, sliced, [np.asarray(a) for a in arrays],
                                    client, tasks))


def _bind(net, path, sliced, ops, client, tasks):
    return einsum_p.bind(*ops, net=net, path=path, sliced=sliced, client=client,
                         tasks=tasks)


def _as_operands(operands):
    ops = [o if isinstance(o, Tensor) else _ops.asarray(o) for o in operands]
    for k, t in enumerate(ops):
        if t.device.type != "cpu":
            raise UnsupportedOperation(
                t.device, NAME, detail="operand %d is on %s; the workers contract CPU "
                "tensors: move it with tenferro.asarray(t, device='cpu')" % (k, t.device))
    dt = _dtypes.result_type(*ops)
    return [t if t.dtype == dt else _ops.astype(t, dt) for t in ops]


def einsum(subscripts: str, *operands: Any, client: Any = None,
           slices: Sequence[Any] | None = None, optimize: Any = "greedy",
           target_size: int | None = None, tasks: int | None = None) -> Tensor:
    """``tenferro.einsum(subscripts, *operands)`` contracted on Dask.

    ``subscripts``: tenferro.einsum's (NumPy's) string grammar, ellipsis, repeated
    labels (diagonals), size-1 broadcasting and repeated output labels included; an
    operand's diagonals and the labels only it carries are taken by a local einsum
    before the distributed contraction (slicing such a label is a no-op).

    The contraction order is opt_einsum's (``optimize``: "greedy", "optimal", "dp", an
    explicit path...).  ``slices`` names the indices to slice (letters of
    ``subscripts``); without it, ``target_size`` (a number of elements) slices indices
    greedily until the largest intermediate of one slice fits; with neither, nothing
    is sliced.  Each slice is contracted with ``tenferro.einsum``; a Dask task
    contracts a run of consecutive slices and sums them (indices contracted away) or
    stacks them (indices of the output), and the tasks' results are summed by a tree
    of additions and placed into the result.  ``tasks``: about how many such tasks (at
    most; default four per worker thread of ``client``, the local scheduler's thread
    count without one; the number of slices gives one task per slice); the result does
    not depend on it.  ``client``: a ``distributed.Client`` (operands scattered once to
    every worker), or None for Dask's default local scheduler.  A worker that dies
    mid-run costs a retry of its tasks (Dask's), or of the whole call where every copy
    of the operands died with the workers; what Dask gives up on (``KilledWorker``
    past ``distributed.scheduler.allowed-failures``, no worker) raises Dask's exception
    with a message naming this function.

    Differentiable (``tenferro.grad``, ``jvp``, ``backward``): the derivatives are
    distributed contractions sliced on the same indices (docs/distributed.md)."""
    ops = _as_operands(operands)
    if tasks is not None:
        if isinstance(tasks, bool) or not isinstance(tasks, (int, np.integer)) or tasks < 1:
            raise ValueError("%s: tasks must be a positive int, got %r" % (NAME, tasks))
        tasks = int(tasks)
    parsed, path, sliced = _plan.plan(subscripts, [t.shape for t in ops], slices, optimize,
                                      target_size)
    ops = [t if p is None else _ops.einsum(t, *p) for t, p in zip(ops, parsed.pre)]
    r = _bind(parsed.net, path, sliced, ops, client, tasks)
    return r if parsed.post is None else _ops.einsum(r, *parsed.post)


def _contract(pairs, out, like, params):
    """The distributed contraction of (tensor, labels) ``pairs`` to labels ``out``,
    sliced on ``like``'s sliced labels and run on its client."""
    size = {l: n for t, labels in pairs for l, n in zip(labels, t.shape)}
    net = _plan.Network(tuple(tuple(l) for _, l in pairs), tuple(out), size)
    path = _plan.find_path(net, "greedy")
    return _bind(net, path, params["sliced"], [t for t, _ in pairs], params["client"],
                 params["tasks"])


def _jvp(tangents, primals, out, params):
    net, acc = params["net"], None
    for k, t in enumerate(tangents):
        if t is None:
            continue
        if t.dtype != primals[k].dtype:
            t = _ops.astype(t, primals[k].dtype)
        pairs = [(t if j == k else x, net.ins[j]) for j, x in enumerate(primals)]
        r = _contract(pairs, net.out, net, params)
        acc = r if acc is None else acc + r
    return acc


def _vjp(ct, primals, out, params, needs):
    # grad_k = einsum(ct, conj(other operands) -> labels of operand k) (_rules/einsum.py);
    # every label of operand k is the output's or another operand's (_plan.parse)
    net, res = params["net"], []
    for k, need in enumerate(needs):
        if not need:
            res.append(None)
            continue
        pairs = [(ct, net.out)] + [(_ops.conj(y), net.ins[j])
                                   for j, y in enumerate(primals) if j != k]
        res.append(_contract(pairs, net.ins[k], net, params))
    return tuple(res)


_vjp.uses_out = False
def_impl(einsum_p, "cpu", _impl)
def_jvp_rule(einsum_p, _jvp)
def_vjp_rule(einsum_p, _vjp)
def_batch_loop(einsum_p)
