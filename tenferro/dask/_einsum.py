"""``tenferro.dask.einsum``: a tensor-network contraction sliced over Dask workers, and
its derivatives computed the same way.

The whole distributed contraction is one tenferro primitive, ``dask.einsum``, with a CPU
implementation (the task graph of ``_run``) and rules that are distributed again: the
JVP is one pass over the slices for every operand's tangent (a third primitive,
``dask.einsum_jvp``, each slice's local forward mode; its rules are dask.einsum's at
the operands with one replaced by its tangent), and the VJP is a second primitive, ``dask.einsum_vjp``, that computes every needed
operand's cotangent in one pass over the same slices (each slice's local reverse
mode, summed on the workers as the forward is).  ``dask.einsum_vjp``'s own rules are
the per-operand formulation (each cotangent a ``dask.einsum`` of the output cotangent
and the other operands, planned along the forward's tree re-rooted at that operand),
so higher derivatives compose.  Under ``vmap`` both run once per example
(loop-only).
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
    """``tenferro.einsum(subscripts, *operands)`` contracted on Dask, sliced over workers.

    A tensor-network contraction too large for one machine's memory or time is sliced
    on some indices: each slice is contracted with ``tenferro.einsum``; a Dask task
    contracts a run of consecutive slices and sums them (indices contracted away) or
    stacks them (indices of the output), and the tasks' results are summed by a tree
    of additions and placed into the result.  The result equals
    ``tenferro.einsum(subscripts, *operands)`` (to rounding).

    The contraction order is opt_einsum's or a cotengra optimizer's (its contraction
    tree, and with ``slicing_opts`` the indices that tree slices).  A worker that dies
    mid-run costs a retry of its tasks (Dask's), or of the whole call where every copy
    of the operands died with the workers; what Dask gives up on (``KilledWorker``
    past ``distributed.scheduler.allowed-failures``, no worker) raises Dask's exception
    with a message naming this function.

    Parameters
    ----------
    subscripts : str
        tenferro.einsum's (NumPy's) grammar: ellipsis, repeated labels (diagonals),
        size-1 broadcasting and repeated output labels included.  An operand's
        diagonals and the labels only it carries are taken by a local einsum before the
        distributed contraction (slicing such a label is a no-op).
    *operands : Tensor or array_like
        The operands (CPU tensors, or arrays).
    client : distributed.Client, optional
        The cluster (operands are scattered once to every worker); None: Dask's
        default local scheduler.
    slices : str or sequence of str, optional
        The indices to slice (letters of ``subscripts``).
    optimize : str or list or cotengra optimizer, default "greedy"
        opt_einsum's ``"greedy"``, ``"optimal"``, ``"dp"``, an explicit path, or a
        ``cotengra.HyperOptimizer``.
    target_size : int, optional
        Without ``slices``: slice indices greedily until the largest intermediate of
        one slice has at most this many elements.  With neither, nothing is sliced (or
        what the cotengra tree slices).
    tasks : int, optional
        About how many tasks (at most; default four per worker thread of ``client``,
        the local scheduler's thread count without one); the result does not depend
        on it.

    Returns
    -------
    Tensor
        The contraction, on the CPU.

    Raises
    ------
    ValueError
        If ``subscripts`` does not match the operands, a sliced index is not one of its
        labels, or ``tasks`` is not a positive int.

    See Also
    --------
    tenferro.einsum, map

    Notes
    -----
    Differentiable: yes, forward and reverse (``tenferro.grad``, ``jvp``,
    ``backward``), to any order: the derivatives run on Dask sliced on the same
    indices; reverse mode computes every needed operand's cotangent in one pass over
    the slices (docs/distributed.md, "Gradients").

    Examples
    --------
    >>> import tenferro.dask
    >>> a = tf.asarray(np.arange(6.0).reshape(2, 3))
    >>> b = tf.ones((3, 4))
    >>> tenferro.dask.einsum("ij,jk->ik", a, b, slices="j")
    tensor([[ 3.,  3.,  3.,  3.],
            [12., 12., 12., 12.]])
    >>> tf.grad(lambda x: tenferro.dask.einsum("ij,jk->", x, b, slices="j"))(a)
    tensor([[4., 4., 4.],
            [4., 4., 4.]])
    """
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


def _jvp(tangents, primals, out, params):
    # the tangent network is the forward's with operands replaced: the forward's path;
    # one pass for every tangent (dask.einsum_jvp), a plain dask.einsum for one
    ts = [t if t is None or t.dtype == x.dtype else _ops.astype(t, x.dtype)
          for t, x in zip(tangents, primals)]
    has = tuple(t is not None for t in ts)
    if sum(has) == 1:
        return _bind(params["net"], params["path"], params["sliced"],
                     [t if t is not None else x for t, x in zip(ts, primals)],
                     params["client"], params["tasks"])
    if not any(has):
        return None
    return einsum_jvp_p.bind(*primals, *[t for t in ts if t is not None], **params, has=has)


def _vjp(ct, primals, out, params, needs):
    # every needed cotangent in one distributed pass (dask.einsum_vjp)
    needs = tuple(bool(n) for n in needs)
    if not any(needs):
        return (None,) * len(needs)
    gs = iter(einsum_vjp_p.bind(ct, *primals, **params, needs=needs))
    return tuple(next(gs) if n else None for n in needs)


# -- dask.einsum_vjp: the cotangents of every needed operand, one pass over the slices --
# Its derivatives use the per-operand formulation: operand k's cotangent is the einsum
# of the output cotangent with the conjugates of the other operands (the einsum rule of
# tenferro/autograd/_rules/einsum.py), a dask.einsum of the network _plan.vjp_network
# along the forward's tree re-rooted at k (_plan.vjp_path): linear in the cotangent,
# multilinear in the operands, so its JVP and VJP are dask.einsum's own rules.

def _vjp_abstract_eval(ct, *avals, net, path, sliced, client, tasks, needs):
    dt = _dtypes.result_type(ct[1], *[d for _, d in avals])
    return tuple((tuple(net.size[l] for l in net.ins[k]), dt)
                 for k, need in enumerate(needs) if need)


einsum_vjp_p = Primitive(
    "dask.einsum_vjp", _vjp_abstract_eval, multiple_results=True,
    doc="The cotangents of the operands of a dask.einsum that needs marks, for the "
        "output cotangent (the first input), in one pass over the slices on Dask.")


def _vjp_impl(ct, *arrays, net, path, sliced, client, tasks, needs):
    return tuple(np.asarray(g) for g in _run.contract(
        net, path, sliced, [np.asarray(a) for a in arrays], client, tasks,
        ct=np.asarray(ct), needs=needs))


def _base(params):
    """The dask.einsum parameters among ``params``."""
    return {k: params[k] for k in ("net", "path", "sliced", "client", "tasks")}


def _cotangent_params(params, k):
    """The dask.einsum parameters of operand k's cotangent network."""
    net = params["net"]
    return dict(_base(params), net=_plan.vjp_network(net, k),
                path=_plan.vjp_path(net, params["path"], k))


def _cotangent_inputs(ct, operands, k):
    """The inputs of operand k's cotangent network (None stays None)."""
    return [ct] + [None if x is None else _ops.conj(x)
                   for j, x in enumerate(operands) if j != k]


def _wanted(needs):
    return [k for k, need in enumerate(needs) if need]


def _vjp_jvp(tangents, primals, out, params):
    res = []
    for i, k in enumerate(_wanted(params["needs"])):
        t = _jvp(_cotangent_inputs(tangents[0], tangents[1:], k),
                 _cotangent_inputs(primals[0], primals[1:], k), None,
                 _cotangent_params(params, k))
        res.append(_ops.zeros_like(out[i]) if t is None else t)
    return tuple(res)


def _vjp_vjp(cts, primals, out, params, needs):
    ct, operands = primals[0], primals[1:]
    acc = [None] * len(primals)

    def put(i, g):
        acc[i] = g if acc[i] is None else acc[i] + g
    for k, g in zip(_wanted(params["needs"]), cts):
        if g is None:
            continue
        others = [j for j in range(len(operands)) if j != k]
        sub = _vjp(g, _cotangent_inputs(ct, operands, k), None, _cotangent_params(params, k),
                   [needs[0]] + [needs[1 + j] for j in others])
        if sub[0] is not None:
            put(0, sub[0])
        for j, c in zip(others, sub[1:]):
            if c is not None:             # the cotangent of conj(x) is conj of x's
                put(1 + j, _ops.conj(c))
    return tuple(acc)


# -- dask.einsum_jvp: the tangent for several operands' tangents, one pass over the
# slices.  It is sum_k E(x; x_k -> t_k) (E the network's einsum, t_k operand k's
# tangent): linear in the tangents and multilinear in the operands, so its rules are
# dask.einsum's at the operands with x_k replaced by t_k, one term per k.

einsum_jvp_p = Primitive(
    "dask.einsum_jvp", lambda *avals, has, **params: _abstract_eval(*avals, **params),
    doc="The tangent of a dask.einsum for the tangents (after the operands) of the "
        "operands has marks, in one pass over the slices on Dask.")


def _jvp_impl(*arrays, net, path, sliced, client, tasks, has):
    return np.asarray(_run.contract(net, path, sliced, [np.asarray(a) for a in arrays],
                                    client, tasks, has=has))


def _split(args, has):
    """(the operands' entries of ``args``, the tangents' entries per operand or None)."""
    rest = iter(args[len(has):])
    return list(args[:len(has)]), [next(rest) if h else None for h in has]


def _replaced(xs, k, t):
    return [t if j == k else x for j, x in enumerate(xs)]


def _jvp_jvp(tangents, primals, out, params):
    (xs, ts), (dxs, dts), acc = _split(primals, params["has"]), _split(tangents,
                                                                        params["has"]), None
    for k in _wanted(params["has"]):
        r = _jvp(_replaced(dxs, k, dts[k]), _replaced(xs, k, ts[k]), None, _base(params))
        if r is not None:
            acc = r if acc is None else acc + r
    return _ops.zeros_like(out) if acc is None else acc


def _jvp_vjp(ct, primals, out, params, needs):
    has = params["has"]
    (xs, ts), (nx, nt) = _split(primals, has), _split(needs, has)
    where = {k: len(has) + i for i, k in enumerate(_wanted(has))}  # t_k among the inputs
    acc = [None] * len(primals)
    for k in _wanted(has):
        sub = _vjp(ct, _replaced(xs, k, ts[k]), None, _base(params),
                   _replaced(nx, k, nt[k]))
        for j, c in enumerate(sub):
            if c is not None:
                i = where[k] if j == k else j
                acc[i] = c if acc[i] is None else acc[i] + c
    return tuple(acc)


for _rule in (_vjp, _vjp_vjp, _jvp_vjp):
    _rule.uses_out = False
def_impl(einsum_p, "cpu", _impl)
def_jvp_rule(einsum_p, _jvp)
def_vjp_rule(einsum_p, _vjp)
def_batch_loop(einsum_p)
def_impl(einsum_vjp_p, "cpu", _vjp_impl)
def_jvp_rule(einsum_vjp_p, _vjp_jvp)
def_vjp_rule(einsum_vjp_p, _vjp_vjp)
def_batch_loop(einsum_vjp_p)
def_impl(einsum_jvp_p, "cpu", _jvp_impl)
def_jvp_rule(einsum_jvp_p, _jvp_jvp)
def_vjp_rule(einsum_jvp_p, _jvp_vjp)
def_batch_loop(einsum_jvp_p)
