"""The backward primitives ``nn.layer_norm_grad`` and ``nn.rms_norm_grad``: the
gradients (dx, dweight, dbias) of a normalization for a cotangent, as one node.

The forward primitives' VJP rules (:mod:`._norm_prim`) bind them, so the backward is
one CPU kernel wherever it runs: a plain eager backward pass, the eager tape, and the
graphs ``jit`` compiles from a gradient (where a composition would be several fused
groups).  Args ``(ct, x[, weight])``; params ``ndim``, ``eps``, ``weighted``; results
``(dx, dweight, dbias)`` (rms_norm: ``(dx, dweight)``), all of them always (the
weight and bias sums cost the kernel little; and the eager tape wants a fixed count
of results).

* **Value.**  The CPU kernel ``_kernels/_norm.backward`` for float32/float64, else
  :func:`formula` (PyTorch's decomposition of the backward, in tenferro's ops), which
  under ``jit`` on another device is spliced into the graph.
* **Derivatives** (second order and up): those of :func:`formula`, taken by tenferro's
  own forward and reverse mode (``jvp``/``vjp`` of the formula inside the rules), so
  every order composes from the ops' rules -- no separate double-backward formula.
* **vmap.**  dx is per row, so a batched ct and x need nothing; a batched weight is
  folded into the cotangent (dx of ``ct * w`` without a weight); the weight and bias
  gradients are sums over each example's rows, in tenferro's ops.
"""
import numpy as np

from .. import _ops
from ..autograd._engine import detach
from ..autograd._functional import jvp as _jvp, vjp as _vjp
from ..autograd.extend import Primitive, bind, def_batch_rule, def_jvp_rule, def_vjp_rule
from ..batching import materialize
from ..graph import TensorSpec, make_graph
from ..graph.rewrite import Splice, register_rewrite


def _avals(rms):
    def aval(ct, x, *w, ndim, eps, weighted):
        shape, dt = x
        p = (shape[len(shape) - ndim:], dt)
        return ((shape, dt), p) if rms else ((shape, dt), p, p)
    return aval


GRAD_PRIMS = {
    rms: Primitive("nn.%s_grad" % name, _avals(rms), multiple_results=True, doc=(
        "The gradients (dx, dweight%s) of torch.nn.functional.%s for a cotangent: args "
        "(ct, x[, weight]), params ndim, eps, weighted." % ("" if rms else ", dbias", name)))
    for rms, name in ((False, "layer_norm"), (True, "rms_norm"))}


def moments(x, axes, eps, rms):
    """(x - mean, rstd) over ``axes`` (kept), in tenferro ops; rms: the mean is 0."""
    xc = x if rms else x - _ops.mean(x, axis=axes, keepdims=True)
    return xc, _ops.rsqrt(_ops.mean(xc * xc, axis=axes, keepdims=True) + eps)


def formula(ct, x, w, *, ndim, eps, rms):
    """PyTorch's backward in tenferro's ops (torch/_decomp/decompositions.py
    ``native_layer_norm_backward``): with ``g = ct * w`` and ``xhat = (x - mean) * rstd``,
    ``dx = rstd / N * (N g - sum(g) - xhat * sum(g * xhat))``, ``dw = sum(ct * xhat)``,
    ``db = sum(ct)`` over the leading axes (rms_norm: mean 0, no ``sum(g)``, no db)."""
    axes = tuple(range(x.ndim - ndim, x.ndim))
    lead = tuple(range(x.ndim - ndim))
    xc, rstd = moments(x, axes, eps, rms)
    xhat = xc * rstd
    n = float(np.prod(x.shape[x.ndim - ndim:]))
    g = ct if w is None else ct * w
    inner = n * g - xhat * _ops.sum(g * xhat, axis=axes, keepdims=True)
    if not rms:
        inner = inner - _ops.sum(g, axis=axes, keepdims=True)
    out = ((rstd / n) * inner, _ops.sum(ct * xhat, axis=lead))
    return out if rms else out + (_ops.sum(ct, axis=lead),)


def _fn(rms, params):
    """:func:`formula` as a function of the primitive's arguments."""
    def f(ct, x, *w):
        return formula(ct, x, w[0] if w else None, ndim=params["ndim"], eps=params["eps"],
                       rms=rms)
    return f


def _impl(rms, kernel):
    def impl(ct, x, *w, **params):
        r = kernel(ct, x, w[0] if w else None, params)
        if r is not None:
            return r
        return _fn(rms, params)(*[detach(t) for t in (ct, x) + w])
    return impl


def _rules(rms, prim):
    def jvp(tangents, primals, out, params):
        ts = [t if t is not None else _ops.zeros_like(p) for t, p in zip(tangents, primals)]
        return _jvp(_fn(rms, params), list(primals), ts)[1]

    def vjp(cts, primals, out, params, needs):
        _, back = _vjp(_fn(rms, params), *primals)
        cts = tuple(c if c is not None else _ops.zeros(o.shape, dtype=o.dtype, device=o.device)
                    for c, o in zip(cts, out))
        return back(cts)
    def_jvp_rule(prim, jvp)
    def_vjp_rule(prim, vjp)


def grad(rms, ct, x, w, ndim, eps):
    """(dx, dw, db) by the backward primitive (rms_norm: db None)."""
    r = tuple(bind(GRAD_PRIMS[rms], (ct, x) + (() if w is None else (w,)),
                   dict(ndim=ndim, eps=eps, weighted=w is not None)))
    return r + (None,) if rms else r


def _batch(rms):
    def rule(args, batched, params, size):
        ct, x = (materialize(a, b, size) for a, b in zip(args[:2], batched[:2]))
        w = args[2] if params["weighted"] else None
        ndim, eps = params["ndim"], params["eps"]
        if w is not None and len(batched) > 2 and batched[2]:   # (B, *normalized)
            w = _ops.reshape(w, w.shape[:1] + (1,) * (x.ndim - 1 - ndim) + w.shape[1:])
        dx = grad(rms, ct if w is None else ct * w, x, None, ndim, eps)[0]
        # the weight and bias gradients: sums over each example's rows
        per = tuple(range(1, x.ndim - ndim))
        xhat = bind(_FORWARD[rms], (x,), dict(ndim=ndim, eps=eps, weighted=False,
                                              biased=False))
        out = (dx, _ops.sum(ct * xhat, axis=per))
        return out if rms else out + (_ops.sum(ct, axis=per),)
    return rule


def _splice(rms):
    def rule(node, inputs, ctx):
        if ctx.device.type == "cpu":   # the kernel
            return None
        specs = [TensorSpec(v.shape, v.dtype, ctx.device) for v in inputs]
        return Splice(make_graph(_fn(rms, node.params), *specs), inputs)
    return rule


_FORWARD = {}   # rms -> the forward primitive (set by register)


def register(forward_prims, kernels):
    """The backward primitives' implementations (``kernels[rms](ct, x, w, params)``: a
    tuple of the results, or None where the kernel does not apply) and rules;
    ``forward_prims[rms]``: the forward primitives (for the batching rule)."""
    _FORWARD.update(forward_prims)
    for rms, prim in GRAD_PRIMS.items():
        prim.impl = _impl(rms, kernels[rms])
        _rules(rms, prim)
        def_batch_rule(prim, _batch(rms))
        register_rewrite(prim, _splice(rms))
