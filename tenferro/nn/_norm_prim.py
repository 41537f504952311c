"""The primitives ``nn.layer_norm`` and ``nn.rms_norm``: their implementation, their
rules (PyTorch's backward formulas) and their batching and rewrite rules.

Each takes ``x`` and, where present, the weight and the bias (params ``ndim``: how many
trailing dimensions are normalized; ``eps``; ``weighted``, ``biased``: which of the two
follow x) and returns the normalized x.  PyTorch's ``native_layer_norm`` also returns
the rows' mean and rstd for its backward; here the rules recompute them instead (the
kernel in cache, at the cost of two passes over a row it reads anyway), so the
primitive has one output and every transform sees a plain unary-like primitive.

* **Value.**  On the CPU, for float32/float64, ``_kernels/_norm``'s row kernel: the
  mean and variance of each row in double, in two passes over the row (in cache), then
  ``(x - mean) * rstd * w + b``, rows in parallel.  Elsewhere (another device,
  another dtype) the composition of tenferro's ops (:func:`composition`), which under
  ``jit`` on another device is spliced into the graph (fused with its neighbours); on
  the CPU the compiled graph keeps the primitive (the kernel beats the fused groups).
* **VJP.**  PyTorch's layer_norm backward in the form of its decomposition
  (torch/_decomp/decompositions.py ``native_layer_norm_backward``; the CPU kernel
  ATen/native/cpu/layer_norm_kernel.cpp ``LayerNormBackwardKernelImplInternal``
  computes the same sums): with ``g = ct * w`` and ``xhat = (x - mean) * rstd``,
  ``dx = rstd / N * (N g - sum(g) - xhat sum(g xhat))``, ``dw = sum(ct * xhat)`` and
  ``db = sum(ct)`` over the leading axes; rms_norm is the same with mean 0 and no
  ``sum(g)`` (the derivative of PyTorch 2.4's composition ``x * rsqrt(mean(x^2) + eps)
  * w``).  The rule binds the backward primitive ``nn.layer_norm_grad`` /
  ``nn.rms_norm_grad`` (:mod:`._norm_grad`): one CPU kernel call in a plain eager
  backward, on the tape and in a compiled gradient alike, differentiable to any order.
* **JVP.**  The Jacobian of ``xhat`` in ``x`` is symmetric, so the tangent is
  ``w * vjp_x(t; no weight) + tw * xhat + tb``: the same backward (kernel or ops) and
  the primitive itself for ``xhat``.
* **vmap.**  The normalized dimensions are trailing: a batched ``x`` alone is the same
  primitive; a batched weight or bias multiplies or adds the normalized, batched x.
"""
import numpy as np

from .. import _ops
from .._kernels import _norm as _k
from .._kernels._alloc import empty as _empty
from .._tensor import _wrap
from ..autograd._engine import detach
from ..autograd.extend import Primitive, bind, def_batch_rule, def_jvp_rule, def_vjp_rule
from ..batching import materialize
from ..devices.cpu import threads as _threads
from ..graph import TensorSpec, make_graph
from ..graph.rewrite import Splice, register_rewrite
from ._norm_grad import grad, moments, register

_REAL = frozenset("fd")   # float32, float64: the kernel's dtypes


def _aval(x, *wb, **params):
    return x


PRIMS = {
    rms: Primitive("nn." + name, _aval, doc=doc) for rms, name, doc in (
        (False, "layer_norm", "torch.nn.functional.layer_norm over the trailing `ndim` "
                              "dimensions of x (args x[, weight][, bias]; params ndim, "
                              "eps, weighted, biased)."),
        (True, "rms_norm", "torch.nn.functional.rms_norm over the trailing `ndim` "
                           "dimensions of x (args x[, weight]; params ndim, eps, "
                           "weighted, biased=False)."))}


def _split(args, weighted, biased):
    """(x, weight or None, bias or None) from the primitive's arguments."""
    it = iter(args[1:])
    return args[0], next(it) if weighted else None, next(it) if biased else None


def _axes(x, ndim):
    return tuple(range(x.ndim - ndim, x.ndim))


def composition(x, w, b, *, ndim, eps, rms):
    """The normalization in tenferro's ops (other devices and dtypes; ``jit``'s splice)."""
    xc, rstd = moments(x, _axes(x, ndim), eps, rms)
    y = xc * rstd
    if w is not None:
        y = y * w
    return y if b is None else y + b


# -- the CPU kernels --------------------------------------------------------------------

def _on_kernel(*tensors):
    """Whether the tensors (None: absent) are real floats of one dtype in CPU memory."""
    dt = tensors[0]._data.dtype
    return all(t is None or (t._device.type == "cpu" and type(t._data) is np.ndarray
                             and t._data.dtype == dt) for t in tensors) \
        and dt.char in _REAL


def _rows(a, ndim):
    """``a`` as (rows, row length) with contiguous rows (a view where it is one)."""
    m = int(np.prod(a.shape[:a.ndim - ndim], dtype=np.int64))
    if a.size == 0:   # (nothing is read or written)
        return np.empty((m, int(np.prod(a.shape[a.ndim - ndim:], dtype=np.int64))), a.dtype)
    r = a.reshape(m, -1)
    if r.shape[1] > 1 and r.strides[1] != r.itemsize:
        r = np.ascontiguousarray(r)
    return r


def _vector(p):
    return None if p is None else np.ascontiguousarray(p._data).reshape(-1)


def _nthreads(size):
    return _threads.current if size >= _threads.GRAIN["reduce"] else 1


def _mode(rms):
    return "rms_norm" if rms else "layer_norm"


def _forward_kernel(x, w, b, ndim, eps, rms):
    a = x._data
    out = _empty(a.shape, a.dtype)   # (large ones from the buffer cache: no page faults)
    _k.forward(_mode(rms), _rows(a, ndim), _vector(w), _vector(b), _rows(out, ndim), eps,
               _nthreads(a.size))
    return _wrap(out, x._device)


def _backward_kernel(ct, x, w, needs, ndim, eps, rms):
    """(dx, dw, db) of the kernel, None where not in ``needs``."""
    a = x._data
    shape = a.shape[a.ndim - ndim:]
    dx = _empty(a.shape, a.dtype) if needs[0] else None
    dw = np.empty(shape, a.dtype) if needs[1] else None
    db = np.empty(shape, a.dtype) if needs[2] else None
    _k.backward(_mode(rms), _rows(np.asarray(ct._data, a.dtype), ndim), _rows(a, ndim),
                _vector(w), None if dx is None else _rows(dx, ndim),
                None if dw is None else dw.reshape(-1), None if db is None else db.reshape(-1),
                eps, _nthreads(a.size))
    return tuple(None if r is None else _wrap(r, x._device) for r in (dx, dw, db))


def _impl(rms):
    def impl(*args, ndim, eps, weighted, biased):
        x, w, b = _split(args, weighted, biased)
        if _on_kernel(x, w, b):
            return _forward_kernel(x, w, b, ndim, eps, rms)
        return composition(detach(x), None if w is None else detach(w),
                           None if b is None else detach(b), ndim=ndim, eps=eps, rms=rms)
    return impl


# -- rules ------------------------------------------------------------------------------

def _grad_kernel(rms):
    """The backward primitive's CPU kernel: its results, or None off the kernel."""
    def kernel(ct, x, w, params):
        if not (_on_kernel(x, w) and _on_kernel(ct) and ct._device is x._device):
            return None
        r = _backward_kernel(ct, x, w, (True, True, not rms), params["ndim"], params["eps"],
                             rms)
        return r[:2] if rms else r
    return kernel


def _vjp(rms):
    def vjp(ct, primals, out, params, needs):
        x, w, b = _split(primals, params["weighted"], params["biased"])
        dx, dw, db = grad(rms, ct, x, w, params["ndim"], params["eps"])
        grads = (dx,) + ((dw,) if w is not None else ()) + ((db,) if b is not None else ())
        return tuple(g if n else None for g, n in zip(grads, needs))
    vjp.uses_out = False   # the tape need not keep the output
    return vjp


def _jvp(rms):
    def jvp(tangents, primals, out, params):
        x, w, b = _split(primals, params["weighted"], params["biased"])
        tx, tw, tb = _split(tangents, params["weighted"], params["biased"])
        ndim, eps = params["ndim"], params["eps"]
        r = None
        if tx is not None:   # the Jacobian of xhat is symmetric: its VJP is its JVP
            r = grad(rms, tx, x, None, ndim, eps)[0]
            if w is not None:
                r = r * w
        if tw is not None:
            xhat = bind(PRIMS[rms], (x,), dict(params, weighted=False, biased=False))
            r = xhat * tw if r is None else r + xhat * tw
        if tb is not None:
            r = _ops.broadcast_to(tb, x.shape) if r is None else r + tb
        return r
    return jvp


# -- vmap, jit ----------------------------------------------------------------------------

def _batch(rms):
    def rule(args, batched, params, size):
        if not any(batched[1:]):   # the batch axis is in front of the normalized ones
            return bind(PRIMS[rms], args, params)
        x, w, b = _split(args, params["weighted"], params["biased"])
        _, bw, bb = _split(batched, params["weighted"], params["biased"])
        x = materialize(x, batched[0], size)
        y = bind(PRIMS[rms], (x,), dict(params, weighted=False, biased=False))
        for p, bp, op in ((w, bw, _ops.multiply), (b, bb, _ops.add)):
            if p is not None:
                if bp:   # (B, *normalized) -> (B, 1, ..., 1, *normalized)
                    p = _ops.reshape(p, p.shape[:1] + (1,) * (x.ndim - 1 - params["ndim"])
                                     + p.shape[1:])
                y = op(y, p)
        return y
    return rule


def _splice(rms):
    def rule(node, inputs, ctx):
        if ctx.device.type == "cpu":   # the kernel: faster than the fused composition
            return None
        p = node.params
        specs = [TensorSpec(v.shape, v.dtype, ctx.device) for v in inputs]

        def fn(*args):
            x, w, b = _split(args, p["weighted"], p["biased"])
            return composition(x, w, b, ndim=p["ndim"], eps=p["eps"], rms=rms)
        return Splice(make_graph(fn, *specs), inputs)
    return rule


for _rms, _prim in PRIMS.items():
    _prim.impl = _impl(_rms)
    def_vjp_rule(_prim, _vjp(_rms))
    def_jvp_rule(_prim, _jvp(_rms))
    def_batch_rule(_prim, _batch(_rms))
    register_rewrite(_prim, _splice(_rms))
register(PRIMS, {rms: _grad_kernel(rms) for rms in PRIMS})
