"""Functional transforms (JAX-style): ``grad``, ``vjp``, ``jvp`` and what they compose into.

Each transform opens a *trace* at a new level on the interpreter stack and wraps its
inputs in *tracers* of that trace (Tensors carrying the primal value plus a tangent,
or plus a graph node for reverse mode).  ``bind`` hands every primitive applied to a
tracer to the highest-level trace among its arguments, which computes the primal by
binding again one level down and then applies the primitive's JVP rule (forward mode)
or records a node for its VJP rule (reverse mode).  Levels keep nested transforms
apart (no perturbation confusion); a tracer used after its transform has returned is
reported as leaked.  Forward mode is real forward mode: tangents travel through the
JVP rules alongside the primal computation.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .._errors import DeviceMismatchError
from .._ops import (asarray, astype, broadcast_to, eye, moveaxis, ones_like, reshape, zeros,
                    zeros_like)
from .._primitive import Trace, Tracer, bind, with_rules
from .._tensor import Tensor
from ._engine import InputNode, Node, check_zero_derivative, run_backward
from .._tree import tree_flatten, tree_unflatten
from ..batching._api import vmap

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import ParamSpec

    from .._tensor import ArrayLike

    P = ParamSpec("P")

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "linearize", "hvp", "jacrev", "jacfwd",
           "hessian", "stop_gradient"]


# -- the transforms' tracers (bases: tenferro._primitive.Trace/Tracer) -----------------

class JVPTracer(Tracer):
    __slots__ = ("tangent",)

    def __init__(self, trace, primal, tangent):
        self._init(trace, primal)
        self.tangent = tangent


class VJPTracer(Tracer):
    __slots__ = ("node", "index")

    def __init__(self, trace, primal, node, index=0):
        self._init(trace, primal)
        self.node = node
        self.index = index


def _inexact(t):
    return t.dtype.kind in "fc"


def _fit_tangent(prim, t, out, trusted):
    """A JVP rule's result at the output's shape and dtype.  tenferro's own rules
    (``trusted``) may return a tangent that broadcasts; a user's rule must match the
    output's shape (JAX's check of custom rules)."""
    if not isinstance(t, Tensor):
        raise TypeError("tenferro: the JVP rule of %s returned a %s as a tangent; expected a "
                        "tensor or None" % (prim.name, type(t).__name__))
    if t.dtype != out.dtype:
        if t.dtype.kind == "c" and out.dtype.kind != "c":
            raise RuntimeError("tenferro: the JVP rule of %s returned a complex tangent (%s) "
                               "for a real output (%s)" % (prim.name, t.dtype, out.dtype))
        t = astype(t, out.dtype)
    if t.shape != out.shape:
        if not trusted:
            raise RuntimeError("tenferro: the JVP rule of %s returned a tangent of shape %s for "
                               "an output of shape %s" % (prim.name, t.shape, out.shape))
        t = broadcast_to(t, out.shape)
    return t


def _differentiated(prim, primals, live, out):
    """Whether the output of ``prim`` applied to a tracer of this level gets a derivative."""
    if not live:
        return False
    if not prim.differentiable:
        if prim.zero_derivative:
            check_zero_derivative(prim, primals)
        return False
    outs = out if prim.multiple_results else (out,)
    return any(_inexact(o) for o in outs)


class JVPTrace(Trace):
    __slots__ = ()

    def __init__(self):
        Trace.__init__(self, "jvp")

    def process(self, prim, args, params):
        primals, mine = self.split(args)
        out = bind(prim, primals, params)
        rp = with_rules(prim)
        if not _differentiated(rp, primals, mine, out):
            return out
        tangents = tuple(a.tangent if a._trace is self else None for a in args)
        rule = rp.jvp if rp.jvp is not None else rp.rule("jvp")
        t = rule(tangents, primals, out, params)
        trusted = getattr(rule, "trusted", False)   # tenferro's rules, verified by its tests
        if not prim.multiple_results:
            return out if t is None else JVPTracer(self, out, _fit_tangent(prim, t, out, trusted))
        if not trusted and (not isinstance(t, (tuple, list)) or len(t) != len(out)):
            raise RuntimeError("tenferro: the JVP rule of %s must return one tangent (or None) "
                               "per output (%d), got %s" % (prim.name, len(out), "%d" % len(t)
                                                            if isinstance(t, (tuple, list))
                                                            else type(t).__name__))
        return tuple(o if ti is None or not _inexact(o) else
                     JVPTracer(self, o, _fit_tangent(prim, ti, o, trusted))
                     for o, ti in zip(out, t))


class VJPTrace(Trace):
    __slots__ = ()

    def __init__(self):
        Trace.__init__(self, "vjp")

    def process(self, prim, args, params):
        primals, mine = self.split(args)
        out = bind(prim, primals, params)
        rp = with_rules(prim)   # the node keeps the VJP rule in force now
        if not _differentiated(rp, primals, mine, out):
            return out
        edges = tuple((a.node, a.index) if a._trace is self else None for a in args)
        outs = out if prim.multiple_results else (out,)
        node = Node(rp, params, primals, out, edges, len(outs))
        if not prim.multiple_results:
            return VJPTracer(self, out, node, 0)
        return tuple(VJPTracer(self, o, node, i) if _inexact(o) else o
                     for i, o in enumerate(outs))


def stop_gradient(x: ArrayLike) -> Tensor:
    """``x``'s value with no derivative at any level (JAX's ``jax.lax.stop_gradient``).

    Every tensor leaf of ``x`` is detached: the eager tape does not record through it,
    and every functional transform (``grad``, ``jvp``, ``vmap`` of them, at any nesting)
    treats it as a constant.  Inside a traced function the value stays in the graph;
    only its derivative is cut.

    Parameters
    ----------
    x : Tensor or pytree of Tensor
        The value(s); non-tensor leaves are returned as they are.

    Returns
    -------
    Tensor or pytree of Tensor
        The same values, sharing ``x``'s data, with no derivative.

    See Also
    --------
    Tensor.detach, no_grad

    Examples
    --------
    >>> f = lambda x: tf.stop_gradient(x) * x
    >>> tf.grad(f)(tf.asarray(3.0))      # d/dx (c * x) with c = 3
    tensor(3.)
    """
    from ._engine import detach

    flat, tree = tree_flatten(x)
    return tree_unflatten(tree, [detach(v) if isinstance(v, Tensor) else v for v in flat])


# -- argument handling ---------------------------------------------------------------------

def _as_tensor(op, v, what, inexact=True):
    """``v`` as a tensor; differentiated inputs (``inexact``) must be floating-point or
    complex: an integer has no derivative (JAX's TypeError; pass ``1.0``, not ``1``)."""
    if isinstance(v, Tensor):
        t = v
    elif isinstance(v, (int, float, complex, np.ndarray, np.generic)) and not isinstance(v, bool):
        t = asarray(v)
    else:
        raise TypeError("tenferro.%s: %s must be tensors (or nested tuples/lists/dicts of "
                        "them), got %s" % (op, what, type(v).__name__))
    if inexact and not _inexact(t):
        raise TypeError("tenferro.%s: %s must have a floating-point or complex dtype, got %s "
                        "(shape %s): integers have no derivative; pass floating-point values "
                        "(e.g. 1.0, or x.astype('float64'))" % (op, what, t.dtype, t.shape))
    return t


def _argnums(op, argnums, nargs):
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for n in nums:
        if not -nargs <= n < nargs:
            raise ValueError("tenferro.%s: argnums %r out of range for a function called with %d "
                             "positional arguments" % (op, argnums, nargs))
    return tuple(n % nargs for n in nums)


def _split(f, args, nums):
    """(the function of the differentiated arguments only, those arguments)."""
    def g(*dyn):
        a = list(args)
        for n, v in zip(nums, dyn):
            a[n] = v
        return f(*a)
    return g, tuple(args[n] for n in nums)


def _unwrap_out(op, out, trace, has_aux):
    """(flat primal outputs, tree, flat per-output tracers-or-None, aux)."""
    aux = None
    if has_aux:
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise TypeError("tenferro.%s: with has_aux=True the function must return a pair "
                            "(output, aux), got %s" % (op, type(out).__name__))
        out, aux = out
        aux = _strip(aux, trace)
    flat, tree = tree_flatten(out)
    primals, tracers = [], []
    for v in flat:
        if isinstance(v, Tracer) and v._trace is trace:
            primals.append(v.primal)
            tracers.append(v)
        else:
            primals.append(_as_tensor(op, v, "outputs", inexact=False))
            tracers.append(None)
    return primals, tree, tracers, aux


def _strip(x, trace):
    flat, tree = tree_flatten(x)
    return tree_unflatten(tree, [v.primal if isinstance(v, Tracer) and v._trace is trace else v
                                 for v in flat])


# -- reverse mode ----------------------------------------------------------------------------

def vjp(f: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """The output of ``f`` and its vector-Jacobian product function (JAX's ``jax.vjp``).

    ``f`` runs once, recording; ``vjp_fn(ct)`` then maps a cotangent ``ct`` of the
    output (the same pytree structure, shapes and dtypes) to the cotangents of every
    primal, ``ct @ J``, by reverse mode.  ``vjp_fn`` may be called many times.  For
    complex values tenferro follows PyTorch's convention (docs/autodiff.md).

    Parameters
    ----------
    f : callable
        A function of tensors (or pytrees of them) returning a tensor or a pytree.
    *primals : Tensor or pytree of Tensor
        The point; floating-point or complex (Python and NumPy numbers are converted).
    has_aux : bool, default False
        ``f`` returns ``(output, aux)``; ``aux`` is returned as is, not differentiated.

    Returns
    -------
    tuple
        ``(output, vjp_fn)``, or ``(output, vjp_fn, aux)`` with ``has_aux``;
        ``vjp_fn(ct)`` returns a tuple with one cotangent per primal.

    Raises
    ------
    TypeError
        If a primal is not a tensor or number, or has an integer or bool dtype; if
        ``has_aux`` and ``f`` does not return a pair.
    ValueError
        If ``vjp_fn`` gets a cotangent whose structure or shape differs from the output's.

    See Also
    --------
    jvp, grad, tenferro.autograd.grad

    Examples
    --------
    >>> out, vjp_fn = tf.vjp(tf.sin, tf.asarray(0.0))
    >>> vjp_fn(tf.asarray(2.0))
    (tensor(2.),)
    """
    flat, in_tree = tree_flatten(primals)
    flat = [_as_tensor("vjp", v, "primals") for v in flat]
    with VJPTrace() as trace:
        nodes = [InputNode() for _ in flat]
        tracers = [VJPTracer(trace, p, n) for p, n in zip(flat, nodes)]
        out = f(*tree_unflatten(in_tree, tracers))
        outs, out_tree, out_tracers, aux = _unwrap_out("vjp", out, trace, has_aux)

    def vjp_fn(ct):
        cts, ct_tree = tree_flatten(ct)
        if ct_tree != out_tree:
            raise ValueError("tenferro.vjp: the cotangent's structure %s does not match the "
                             "output's %s" % (ct_tree, out_tree))
        roots, root_cts = [], []
        for i, (o, tr, c) in enumerate(zip(outs, out_tracers, cts)):
            c = _check_like("vjp", "cotangent", c, o, i)
            if tr is not None:
                roots.append((tr.node, tr.index))
                root_cts.append(c)
        # every node of a vjp graph reaches an input (no pruning pass needed)
        captured = run_backward(roots, root_cts, targets=[(n, 0) for n in nodes],
                                accumulate=False, prune=False) if roots else {}
        grads = [captured.get((n, 0)) for n in nodes]
        grads = [zeros_like(p) if g is None else g for g, p in zip(grads, flat)]
        return tuple(tree_unflatten(in_tree, grads))

    out = tree_unflatten(out_tree, outs)
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


def _check_like(op, what, c, o, i):
    if not isinstance(c, Tensor):
        c = asarray(c, dtype=o.dtype, device=o.device)
    if c.shape != o.shape:
        raise ValueError("tenferro.%s: %s %d has shape %s but the value it goes with has shape "
                         "%s" % (op, what, i, c.shape, o.shape))
    if c._device is not o._device:
        raise DeviceMismatchError(op, [o._device, c._device])
    if c.dtype != o.dtype:
        if c.dtype.kind == "c" and o.dtype.kind != "c" or not _inexact(c) and c.size:
            raise TypeError("tenferro.%s: %s %d has dtype %s but the value it goes with has "
                            "dtype %s" % (op, what, i, c.dtype, o.dtype))
        c = c.astype(o.dtype)
    return c


def value_and_grad(f: Callable[P, Any], argnums: int | Sequence[int] = 0,
                   has_aux: bool = False) -> Callable[P, tuple[Any, Any]]:
    """A function returning ``f``'s value and its gradient (JAX's ``jax.value_and_grad``).

    ``f`` must return a real floating-point scalar.  The gradient is taken with respect
    to the ``argnums`` positional arguments by one reverse pass.  For complex inputs it
    follows tenferro's convention, ``dL/dRe z + i dL/dIm z`` (PyTorch's; JAX's is its
    conjugate).  Nestable with every other transform.

    Parameters
    ----------
    f : callable
        The function to differentiate; keyword arguments are passed through and not
        differentiated.
    argnums : int or sequence of int, default 0
        Which positional arguments to differentiate (negative counts from the end).
    has_aux : bool, default False
        ``f`` returns ``(value, aux)``; the result is then ``((value, aux), grads)``.

    Returns
    -------
    callable
        ``g(*args, **kwargs) -> (value, grads)``: ``grads`` is shaped like the argument
        for an int ``argnums``, a tuple of those for a sequence.

    Raises
    ------
    TypeError
        When called: if ``f`` does not return a real floating-point 0-d tensor, or a
        differentiated argument is an integer or bool.
    ValueError
        When called: if ``argnums`` is out of range for the arguments given.

    See Also
    --------
    grad, vjp

    Examples
    --------
    >>> f = lambda x: (x ** 2).sum()
    >>> tf.value_and_grad(f)(tf.asarray([1.0, 2.0, 3.0]))
    (tensor(14.), tensor([2., 4., 6.]))
    """
    def wrapped(*args, **kwargs):
        nums = _argnums("grad", argnums, len(args))
        args = list(args)
        for n in nums:   # JAX's TypeError for integer inputs, naming grad
            flat, tree = tree_flatten(args[n])
            args[n] = tree_unflatten(tree, [_as_tensor("grad", v, "differentiated arguments")
                                            for v in flat])
        g, dyn = _split(lambda *a: f(*a, **kwargs), args, nums)
        res = vjp(g, *dyn, has_aux=has_aux)
        out, fn = res[0], res[1]
        if not isinstance(out, Tensor) or out.shape != ():
            raise TypeError("tenferro.grad: the function must return a scalar (a 0-d tensor), "
                            "got %s" % ("shape %s" % (out.shape,) if isinstance(out, Tensor)
                                        else type(out).__name__))
        if out.dtype.kind == "c":
            raise TypeError("tenferro.grad: the function must return a real scalar, got dtype "
                            "%s; use vjp for complex outputs" % out.dtype)
        if out.dtype.kind != "f":
            raise TypeError("tenferro.grad: the function must return a real floating-point "
                            "scalar, got dtype %s (an integer or bool output has no derivative)"
                            % out.dtype)
        grads = fn(ones_like(out))
        grads = grads[0] if isinstance(argnums, int) else grads
        return ((out, res[2]), grads) if has_aux else (out, grads)
    _name(wrapped, "value_and_grad", f)
    return wrapped


def grad(f: Callable[P, Any], argnums: int | Sequence[int] = 0,
         has_aux: bool = False) -> Callable[P, Any]:
    """The gradient of a real-scalar function, as a function (JAX's ``jax.grad``).

    ``tf.grad(f)(x)`` is ``df/dx`` at ``x``, by reverse mode; ``tf.grad(tf.grad(f))``
    and any composition with ``jvp``, ``vmap``, ``jacfwd`` work to any order.  This is
    ``tenferro.grad`` (also ``tenferro.autograd.functional_grad``);
    ``tenferro.autograd.grad`` is PyTorch's ``torch.autograd.grad`` on the eager tape.
    Complex inputs get ``dL/dRe z + i dL/dIm z`` (PyTorch's convention).

    Parameters
    ----------
    f : callable
        The function; it must return a real floating-point scalar (0-d tensor).
    argnums : int or sequence of int, default 0
        Which positional arguments to differentiate.
    has_aux : bool, default False
        ``f`` returns ``(value, aux)``; the result is then ``(grads, aux)``.

    Returns
    -------
    callable
        ``g(*args, **kwargs)`` returning the gradient (shaped like the argument), a
        tuple of them for a sequence ``argnums``.

    Raises
    ------
    TypeError
        When called: if ``f`` does not return a real floating-point scalar, or a
        differentiated argument is an integer or bool (pass ``1.0``, not ``1``).
    ValueError
        When called: if ``argnums`` is out of range.

    See Also
    --------
    value_and_grad, jacrev, hessian, tenferro.autograd.grad

    Examples
    --------
    >>> f = lambda x: (x ** 2).sum()
    >>> tf.grad(f)(tf.asarray([1.0, 2.0, 3.0]))
    tensor([2., 4., 6.])
    >>> tf.grad(tf.grad(tf.sin))(tf.asarray(0.0))   # second derivative
    tensor(-0.)
    """
    vg = value_and_grad(f, argnums, has_aux)

    def wrapped(*args, **kwargs):
        (out, g) = vg(*args, **kwargs)
        return (g, out[1]) if has_aux else g
    _name(wrapped, "grad", f)
    return wrapped


def _name(wrapped, what, f):
    wrapped.__name__ = "%s(%s)" % (what, getattr(f, "__name__", "f"))
    wrapped.__doc__ = getattr(f, "__doc__", None)
    wrapped.__wrapped__ = f


# -- forward mode ----------------------------------------------------------------------------

def jvp(f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any],
        has_aux: bool = False) -> tuple[Any, ...]:
    """The output of ``f`` and its directional derivative, by forward mode (``jax.jvp``).

    Returns ``(f(*primals), J t)``: the Jacobian-vector product along ``tangents``,
    computed alongside ``f`` in one pass.

    Parameters
    ----------
    f : callable
        A function of tensors (or pytrees of them).
    primals : tuple or list
        The positional arguments of ``f``: the point.
    tangents : tuple or list
        The direction: the same structure, shapes and (floating-point or complex)
        dtypes as ``primals``.
    has_aux : bool, default False
        ``f`` returns ``(output, aux)``; the result is then ``(output, tangent, aux)``.

    Returns
    -------
    tuple
        ``(output, output_tangent)`` (``+ (aux,)`` with ``has_aux``), the tangent shaped
        like the output.

    Raises
    ------
    TypeError
        If ``primals`` or ``tangents`` is not a tuple or list, a primal is an integer,
        or a tangent is an integer or bool, or complex for a real primal (a tangent of
        another floating precision is cast to its primal's dtype, unlike JAX).
    ValueError
        If the tangents' structure or shapes differ from the primals'.

    See Also
    --------
    vjp, linearize, jacfwd

    Examples
    --------
    >>> tf.jvp(tf.sin, (tf.asarray(0.0),), (tf.asarray(2.0),))
    (tensor(0.), tensor(2.))
    """
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("tenferro.jvp: primals and tangents must be tuples or lists (of the "
                        "function's positional arguments), got %s and %s"
                        % (type(primals).__name__, type(tangents).__name__))
    flat, in_tree = tree_flatten(tuple(primals))
    tflat, t_tree = tree_flatten(tuple(tangents))
    if in_tree != t_tree:
        raise ValueError("tenferro.jvp: tangents structure %s does not match primals %s"
                         % (t_tree, in_tree))
    flat = [_as_tensor("jvp", v, "primals") for v in flat]
    tflat = [_check_like("jvp", "tangent", t, p, i) for i, (t, p) in enumerate(zip(tflat, flat))]
    with JVPTrace() as trace:
        tracers = [JVPTracer(trace, p, t) for p, t in zip(flat, tflat)]
        out = f(*tree_unflatten(in_tree, tracers))
        outs, out_tree, out_tracers, aux = _unwrap_out("jvp", out, trace, has_aux)
    touts = [zeros_like(o) if tr is None else tr.tangent for o, tr in zip(outs, out_tracers)]
    res = (tree_unflatten(out_tree, outs), tree_unflatten(out_tree, touts))
    return res + (aux,) if has_aux else res


def linearize(f: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """The output of ``f`` and its linearization at ``primals`` (``jax.linearize``).

    Eager tenferro re-runs ``f`` in forward mode for each call of ``f_jvp``; the traced
    graphs of :mod:`tenferro.graph` (``Graph.jvp``) evaluate the primal once.

    Parameters
    ----------
    f : callable
        A function of tensors.
    *primals : Tensor or pytree of Tensor
        The point (floating-point or complex).

    Returns
    -------
    tuple
        ``(f(*primals), f_jvp)`` with ``f_jvp(*tangents)`` the JVP at ``primals``.

    Raises
    ------
    TypeError
        If a primal is not a tensor or number, or is an integer or bool.

    See Also
    --------
    jvp

    Examples
    --------
    >>> y, f_jvp = tf.linearize(tf.exp, tf.asarray(0.0))
    >>> y, f_jvp(tf.asarray(3.0))
    (tensor(1.), tensor(3.))
    """
    flat, tree = tree_flatten(primals)
    primals = tree_unflatten(tree, [_as_tensor("linearize", p, "primals") for p in flat])
    out = f(*primals)

    def f_jvp(*tangents):
        return jvp(f, primals, tangents)[1]
    return out, f_jvp


def hvp(f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any]) -> Any:
    """Hessian-vector product of a real-scalar function, forward over reverse.

    The JVP of ``grad(f)`` (with respect to all ``primals``) along ``tangents``:
    ``H v`` without forming ``H``, at the cost of a few gradient evaluations.

    Parameters
    ----------
    f : callable
        A function returning a real floating-point scalar.
    primals : sequence
        The positional arguments of ``f``: the point.
    tangents : sequence
        The vectors ``v``, shaped like ``primals``.

    Returns
    -------
    tuple of Tensor
        ``H v``, one tensor per primal (shaped like it).

    Raises
    ------
    TypeError
        If ``f`` does not return a real scalar or a primal is an integer.

    See Also
    --------
    hessian, jvp, grad

    Examples
    --------
    >>> f = lambda x: (x ** 3).sum()          # H = diag(6 x)
    >>> tf.hvp(f, (tf.asarray([1.0, 2.0]),), (tf.ones(2),))
    (tensor([ 6., 12.]),)
    """
    primals, tangents = tuple(primals), tuple(tangents)
    g = grad(f, argnums=tuple(range(len(primals))))
    return jvp(g, primals, tangents)[1]


def _basis(x):
    """The unit tensors shaped like ``x``, stacked: shape ``(x.size,) + x.shape``."""
    return reshape(eye(x.size, dtype=x.dtype, device=x.device), (x.size,) + x.shape)


def _check_real(op, values, holomorphic, what):
    for v in values:
        if not _inexact(v):   # as grad (and JAX's jacrev): no derivative to report
            raise TypeError("tenferro.%s: %s of dtype %s: integer and bool values have no "
                            "derivative; return floating-point values (e.g. "
                            "x.astype('float64'))" % (op, what, v.dtype))
        c = v.dtype.kind == "c"
        if c and not holomorphic:
            raise TypeError("tenferro.%s: %s of dtype %s; for holomorphic functions of complex "
                            "values pass holomorphic=True, otherwise split real and imaginary "
                            "parts" % (op, what, v.dtype))
        if holomorphic and not c:
            raise TypeError("tenferro.%s: holomorphic=True needs complex %s, got dtype %s"
                            % (op, what, v.dtype))


def _jac_block(rows, lead, trail):
    """Batched results ``rows`` (one per basis vector, shape ``(n,) + ...``) as a tensor
    of shape ``lead + trail``; an empty basis gives zeros."""
    if rows.shape[0] == 0:
        return zeros(lead + trail, dtype=rows.dtype, device=rows.device)
    return reshape(rows, lead + trail)


def jacrev(f: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False) -> Callable[..., Any]:
    """The Jacobian by reverse mode, as a function (``jax.jacrev``).

    One VJP per output element, batched with ``vmap`` over the basis of the output's
    cotangents: efficient when the outputs are fewer than the inputs.  For an output of
    shape ``O`` and an input of shape ``I`` the block has shape ``O + I``.

    Parameters
    ----------
    f : callable
        The function.
    argnums : int or sequence of int, default 0
        Which positional arguments to differentiate.
    has_aux : bool, default False
        ``f`` returns ``(output, aux)``; the result is then ``(jacobian, aux)``.
    holomorphic : bool, default False
        ``f`` is holomorphic in complex inputs: return the complex Jacobian.  Without it
        complex inputs or outputs raise.

    Returns
    -------
    callable
        ``jac(*args, **kwargs)``: the Jacobian blocks, in the output's pytree structure
        (and the ``argnums`` structure within).

    Raises
    ------
    TypeError
        When called: for integer or bool inputs or outputs, for complex values without
        ``holomorphic=True``, or real ones with it.

    See Also
    --------
    jacfwd, hessian, vjp

    Examples
    --------
    >>> tf.jacrev(lambda x: x[:2] * x[1:])(tf.asarray([1.0, 2.0, 3.0]))
    tensor([[2., 1., 0.],
            [0., 3., 2.]])
    """
    def wrapped(*args, **kwargs):
        nums = _argnums("jacrev", argnums, len(args))
        g, dyn = _split(lambda *a: f(*a, **kwargs), args, nums)
        res = vjp(g, *dyn, has_aux=has_aux)
        out, fn = res[0], res[1]
        outs, out_tree = tree_flatten(out)
        ins, in_tree = tree_flatten(dyn)
        _check_real("jacrev", outs, holomorphic, "outputs")
        _check_real("jacrev", [_as_tensor("jacrev", v, "inputs") for v in ins], holomorphic,
                    "inputs")
        per_out = []
        for j, o in enumerate(outs):
            def pull(e, j=j):
                cts = [zeros_like(x) for x in outs]
                cts[j] = e
                gs, _ = tree_flatten(fn(tree_unflatten(out_tree, cts)))
                return tuple(gk.conj() if holomorphic else gk for gk in gs)
            rows = vmap(pull, fallback="loop")(_basis(o))
            blocks = [_jac_block(r, o.shape, x.shape) for r, x in zip(rows, ins)]
            per_out.append(_inner(in_tree, blocks, argnums))
        jac = tree_unflatten(out_tree, per_out)
        return (jac, res[2]) if has_aux else jac
    _name(wrapped, "jacrev", f)
    return wrapped


def _inner(in_tree, blocks, argnums):
    t = tree_unflatten(in_tree, blocks)
    return t[0] if isinstance(argnums, int) else t


def jacfwd(f: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False) -> Callable[..., Any]:
    """The Jacobian by forward mode, as a function (``jax.jacfwd``).

    One JVP per input element, batched with ``vmap`` over the basis of the input's
    tangents: efficient when the inputs are fewer than the outputs.  Blocks have shape
    ``O + I`` as :func:`jacrev`'s.

    Parameters
    ----------
    f : callable
        The function.
    argnums : int or sequence of int, default 0
        Which positional arguments to differentiate.
    has_aux : bool, default False
        ``f`` returns ``(output, aux)``; the result is then ``(jacobian, aux)``.
    holomorphic : bool, default False
        ``f`` is holomorphic in complex inputs: return the complex Jacobian.

    Returns
    -------
    callable
        ``jac(*args, **kwargs)``: the Jacobian blocks, in the output's pytree structure.

    Raises
    ------
    TypeError
        When called: for integer or bool inputs or outputs, for complex values without
        ``holomorphic=True``, or real ones with it.

    See Also
    --------
    jacrev, jvp

    Examples
    --------
    >>> tf.jacfwd(tf.sin)(tf.asarray([0.0, 0.0]))
    tensor([[1., 0.],
            [0., 1.]])
    """
    def wrapped(*args, **kwargs):
        nums = _argnums("jacfwd", argnums, len(args))
        g, dyn = _split(lambda *a: f(*a, **kwargs), args, nums)
        ins, in_tree = tree_flatten(dyn)
        ins = [_as_tensor("jacfwd", v, "inputs") for v in ins]
        _check_real("jacfwd", ins, holomorphic, "inputs")
        dyn = tree_unflatten(in_tree, ins)
        cols = []  # cols[i][j]: per input leaf i, per output leaf j, the batched tangents
        out = aux = None
        for i, x in enumerate(ins):
            def push(e, i=i):
                ts = [zeros_like(v) for v in ins]
                ts[i] = e
                r = jvp(g, dyn, tree_unflatten(in_tree, ts), has_aux=has_aux)
                return tree_flatten(r[1])[0], r[0], r[2] if has_aux else None
            touts, out, aux = vmap(push, out_axes=(0, None, None), fallback="loop")(_basis(x))
            cols.append(touts)
        if not ins:  # no input: one evaluation for the output structure
            r = jvp(g, dyn, dyn, has_aux=has_aux)
            out, aux = r[0], (r[2] if has_aux else None)
        outs, out_tree = tree_flatten(out)
        _check_real("jacfwd", outs, holomorphic, "outputs")
        per_out = []
        for j, o in enumerate(outs):
            blocks = []
            for i, x in enumerate(ins):
                b = cols[i][j]  # (n_in, *O)
                b = moveaxis(b, 0, -1) if o.ndim else b
                blocks.append(_jac_block(b, o.shape, x.shape) if x.size else
                              zeros(o.shape + x.shape, dtype=o.dtype, device=o.device))
            per_out.append(_inner(in_tree, blocks, argnums))
        jac = tree_unflatten(out_tree, per_out)
        return (jac, aux) if has_aux else jac
    _name(wrapped, "jacfwd", f)
    return wrapped


def hessian(f: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
            holomorphic: bool = False) -> Callable[..., Any]:
    """The Hessian of a real-scalar function: ``jacfwd(jacrev(f))`` (``jax.hessian``).

    Forward over reverse.  For an input of shape ``I`` the Hessian has shape ``I + I``.

    Parameters
    ----------
    f : callable
        A function returning a scalar.
    argnums : int or sequence of int, default 0
        Which positional arguments to differentiate (a sequence gives the nested blocks
        ``H[i][j]``).
    has_aux : bool, default False
        ``f`` returns ``(value, aux)``; the result is then ``(hessian, aux)``.
    holomorphic : bool, default False
        As in :func:`jacrev`.

    Returns
    -------
    callable
        ``h(*args, **kwargs)`` returning the Hessian.

    Raises
    ------
    TypeError
        When called: for integer inputs, or complex ones without ``holomorphic``.

    See Also
    --------
    hvp, jacfwd, jacrev

    Examples
    --------
    >>> tf.hessian(lambda x: (x ** 3).sum())(tf.asarray([1.0, 2.0]))
    tensor([[ 6.,  0.],
            [ 0., 12.]])
    """
    return jacfwd(jacrev(f, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)
