"""The public extension API: define a primitive, its device kernels and its derivatives.

tenferro's own rules are registered with exactly these functions (see
``tenferro/autograd/_rules``).  A rule is written with tenferro ops, so derivatives
of derivatives work by composition.

Rule signatures (``primals`` are the primitive's inputs, ``out`` its output -- a tuple
for multiple-result primitives --, ``params`` its keyword parameters):

* per-argument JVP, ``defjvp(prim, f0, f1, ...)``: ``fi(t, *primals, out=out, **params)``
  returns argument i's contribution to the output tangent for the input tangent ``t``
  (the contributions are summed; arguments with a zero tangent are skipped);
* per-argument VJP, ``defvjp(prim, g0, g1, ...)``: ``gi(ct, *primals, out=out, **params)``
  returns the cotangent of argument i for the output cotangent ``ct`` (only called for
  arguments that need it);
* ``None`` in place of ``fi``/``gi`` marks an argument without derivative (an index, a
  condition mask);
* batching rule (``vmap``), ``def_batch_rule(prim, fn)``: ``fn(args, batched, params,
  size)`` returns the batched output (a tuple for multiple results), batch as axis 0 of
  every output; ``args[i]`` carries the batch as its axis 0 where ``batched[i]`` is
  true and is the same for every example otherwise; ``size`` is the batch size.
  ``batch_elementwise(prim)`` registers the rule of a NumPy-broadcasting elementwise
  primitive, ``def_batch_loop(prim)`` declares a primitive batched by a loop over the
  examples (docs/vmap.md).

Complex numbers follow tenferro's (PyTorch's) convention: a VJP maps the cotangent of the
output to that of the input under the real inner product ``<a, b> = Re sum(conj(a) b)``,
so for a holomorphic ``f`` the VJP is ``ct * conj(f'(z))``; JVPs are convention-free.

Example (see docs/autodiff.md)::

    import numpy as np
    import tenferro as tf
    from tenferro.autograd.extend import Primitive, defjvp, defvjp, def_impl

    softplus_p = Primitive("softplus", lambda x: x)       # (shape, dtype) -> same
    def_impl(softplus_p, "cpu", lambda x: np.logaddexp(0.0, x))
    defjvp(softplus_p, lambda t, x, *, out: t * tf.sigmoid(x))
    defvjp(softplus_p, lambda ct, x, *, out: ct * tf.sigmoid(x))

    def softplus(x):
        return softplus_p.bind(tf.asarray(x))
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Optional, Sequence

from .. import _primitive
from .._ir import is_abstract  # noqa: F401  (re-exported)
from .._primitive import Primitive, bind, registry  # noqa: F401  (re-exported)
from .._tensor import Tensor  # noqa: F401  (in the annotations)
from ._check import check  # noqa: F401  (re-exported)
from ..batching._core import (BatchRule, batch_elementwise, def_batch_loop,  # noqa: F401
                              def_batch_rule)

#: ``fn(tangents, primals, out, params) -> tangent`` (tuple for multiple results)
JvpRule = Callable[[Sequence[Optional["Tensor"]], Sequence["Tensor"], Any, dict], Any]
#: ``fn(ct, primals, out, params, needs) -> cotangents`` (one per primal, or None);
#: ``ct`` and ``out`` are tuples for a multiple-results primitive, however many results
VjpRule = Callable[[Any, Sequence["Tensor"], Any, dict, Sequence[bool]],
                   Sequence[Optional["Tensor"]]]
#: a per-argument rule: ``fn(g, *primals, out=..., **params) -> Tensor`` (or None)
ArgRule = Optional[Callable[..., Any]]

__all__ = ["Primitive", "bind", "defjvp", "defvjp", "def_jvp_rule", "def_vjp_rule",
           "deflinear", "def_impl", "zero_derivative", "is_differentiated", "check",
           "is_abstract", "def_batch_rule", "def_batch_loop", "batch_elementwise"]


def is_differentiated(*tensors: "Tensor") -> bool:
    """Whether an operation on any of ``tensors`` can itself be differentiated.

    True when one is a tracer of an active transform (``grad``, ``jvp``, ``vmap``, a
    graph trace), or grad mode is on and one requires grad.  A rule may take a shortcut
    that is exact but not differentiable -- e.g. solve with an LU factorization saved as
    an extra output of the primitive, treated as a constant -- only when this is false
    for the inputs that shortcut depends on; when it is true, the rule must be written
    in differentiable ops (PyTorch's rules make the same choice with
    ``GradMode::is_enabled()``).

    Parameters
    ----------
    *tensors : Tensor
        The values the shortcut would depend on.

    Returns
    -------
    bool
        Whether any of them is being differentiated.

    Examples
    --------
    >>> from tenferro.autograd.extend import is_differentiated
    >>> x = tf.asarray([1.0, 4.0])
    >>> is_differentiated(x)
    False
    >>> seen = []
    >>> _ = tf.grad(lambda v: seen.append(is_differentiated(v)) or v.sum())(x)
    >>> seen
    [True]
    """
    tape = _primitive.state.enabled
    return any(t._trace is not None or (tape and t.requires_grad) for t in tensors)


def def_jvp_rule(prim: Primitive, fn: JvpRule) -> JvpRule:
    """Register ``prim``'s full JVP (forward-mode) rule.

    ``fn(tangents, primals, out, params) -> tangent``: ``tangents`` has one entry per
    primal, ``None`` for a zero tangent; return ``None`` for a zero output tangent, a
    tuple for multiple-result primitives.  Written with tenferro ops, the rule is
    itself differentiable.  :func:`defjvp` builds one from per-argument rules.

    Parameters
    ----------
    prim : Primitive
        The primitive.
    fn : callable
        The rule.

    Returns
    -------
    callable
        ``fn`` (usable as a decorator).

    See Also
    --------
    defjvp, def_vjp_rule

    Examples
    --------
    >>> from tenferro.autograd import extend
    >>> p = extend.Primitive("scale_demo", lambda x, *, k: x)
    >>> _ = extend.def_impl(p, "cpu", lambda x, *, k: x * k)
    >>> _ = extend.def_jvp_rule(p, lambda tangents, primals, out, params:
    ...                         tangents[0] * params["k"])
    >>> tf.jvp(lambda v: p.bind(v, k=3.0), (tf.ones(2),), (tf.ones(2),))[1]
    tensor([3., 3.])
    >>> del tf.autograd.extend.registry['scale_demo']   # (unregister this example's primitive)
    """
    prim.jvp = fn
    return fn


def def_vjp_rule(prim: Primitive, fn: VjpRule) -> VjpRule:
    """Register ``prim``'s full VJP (reverse-mode) rule.

    ``fn(ct, primals, out, params, needs) -> cotangents``: one entry per primal,
    ``None`` where ``needs[i]`` is false or the cotangent is zero; ``ct`` is a tuple
    (with ``None`` for zero cotangents) for multiple-result primitives.  For complex
    values the rule follows tenferro's (PyTorch's) convention: for holomorphic ``f``
    the VJP is ``ct * conj(f'(z))``.  Set ``fn.uses_out = False`` when the rule ignores
    ``out``: the eager tape then does not keep the output alive for it.
    :func:`defvjp` builds one from per-argument rules.

    Parameters
    ----------
    prim : Primitive
        The primitive.
    fn : callable
        The rule.

    Returns
    -------
    callable
        ``fn``.

    See Also
    --------
    defvjp, def_jvp_rule

    Examples
    --------
    >>> from tenferro.autograd import extend
    >>> p = extend.Primitive("scale_demo", lambda x, *, k: x)
    >>> _ = extend.def_impl(p, "cpu", lambda x, *, k: x * k)
    >>> _ = extend.def_vjp_rule(p, lambda ct, primals, out, params, needs:
    ...                         (ct * params["k"],))
    >>> tf.grad(lambda v: p.bind(v, k=3.0).sum())(tf.ones(2))
    tensor([3., 3.])
    >>> del tf.autograd.extend.registry['scale_demo']   # (unregister this example's primitive)
    """
    prim.vjp = fn
    return fn


def _caller(fn):
    """``(call, uses_out)``: ``call(c, primals, out, params)`` invokes a per-argument rule
    with only the keywords it declares (a positional call is ~10x cheaper than
    ``out=out, **params``); ``uses_out`` tells whether the output must be kept for it."""
    if fn is None:
        return None, False
    try:
        ps = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # a builtin or callable without a signature
        ps = [inspect.Parameter("kw", inspect.Parameter.VAR_KEYWORD)]
    if any(q.kind is inspect.Parameter.VAR_KEYWORD for q in ps):
        return (lambda c, primals, out, params: fn(c, *primals, out=out, **params)), True
    kw = [q.name for q in ps if q.kind is inspect.Parameter.KEYWORD_ONLY]
    if not kw:
        return (lambda c, primals, out, params: fn(c, *primals)), False
    if kw == ["out"]:
        return (lambda c, primals, out, params: fn(c, *primals, out=out)), True
    names = [n for n in kw if n != "out"]
    if "out" in kw:
        return (lambda c, primals, out, params:
                fn(c, *primals, out=out, **{n: params[n] for n in names})), True
    return (lambda c, primals, out, params: fn(c, *primals, **{n: params[n] for n in names})), \
        False


def defjvp(prim: Primitive, *fns: ArgRule) -> JvpRule:
    """Register ``prim``'s JVP rule from one rule per argument (``jax.interpreters.ad.defjvp``).

    ``fns[i](t, *primals, out=out, **params)`` returns argument ``i``'s contribution to
    the output tangent for its tangent ``t``; the contributions are summed, and
    arguments with a zero tangent are skipped.  A rule declares only the keywords it
    uses (``out``, parameters).  ``None`` marks an argument without derivative (an
    index, a mask).

    Parameters
    ----------
    prim : Primitive
        The primitive.
    *fns : callable or None
        One rule per argument.

    Returns
    -------
    callable
        The full JVP rule registered.

    Raises
    ------
    TypeError
        When the rule runs: if the primitive is applied to another number of arguments,
        or a tangent is given for an argument without derivative.

    See Also
    --------
    defvjp, def_jvp_rule

    Examples
    --------
    >>> from tenferro.autograd import extend
    >>> softplus_p = extend.Primitive("softplus_demo", lambda x: x)
    >>> _ = extend.def_impl(softplus_p, "cpu", lambda x: np.logaddexp(0.0, x))
    >>> _ = extend.defjvp(softplus_p, lambda t, x: t * tf.sigmoid(x))
    >>> tf.jvp(softplus_p.bind, (tf.asarray(0.0),), (tf.asarray(1.0),))[1]
    tensor(0.5)
    >>> del tf.autograd.extend.registry['softplus_demo']   # (unregister this example's primitive)
    """
    return def_jvp_rule(prim, _per_argument_jvp(prim, fns))


def _per_argument_jvp(prim, fns):
    """The full JVP rule made of per-argument rules ``fns`` (also AdContext.defjvp's)."""
    calls = [_caller(f)[0] for f in fns]
    if len(calls) == 1 and calls[0] is not None:
        c0 = calls[0]

        def jvp(tangents, primals, out, params):  # the common unary case, unrolled
            t = tangents[0]
            return None if t is None else c0(t, primals, out, params)
    else:
        def jvp(tangents, primals, out, params):
            _arity(prim, fns, primals)
            acc = None
            for c, t in zip(calls, tangents):
                if t is None:
                    continue
                if c is None:
                    raise TypeError("%s: a tangent was given for an argument without "
                                    "derivative" % prim.name)
                r = c(t, primals, out, params)
                if r is not None:
                    acc = r if acc is None else acc + r
            return acc
    return jvp


def defvjp(prim: Primitive, *fns: ArgRule) -> VjpRule:
    """Register ``prim``'s VJP rule from one rule per argument (``jax.interpreters.ad.defvjp``).

    ``fns[i](ct, *primals, out=out, **params)`` returns the cotangent of argument ``i``
    for the output cotangent ``ct`` (called only for arguments that need it).  A rule
    declares only the keywords it uses; one that does not take ``out`` lets the eager
    tape free the output.  ``None`` marks an argument without derivative.

    Parameters
    ----------
    prim : Primitive
        The primitive.
    *fns : callable or None
        One rule per argument.

    Returns
    -------
    callable
        The full VJP rule registered.

    Raises
    ------
    TypeError
        When the rule runs: if the primitive is applied to another number of arguments.

    See Also
    --------
    defjvp, def_vjp_rule

    Examples
    --------
    >>> from tenferro.autograd import extend
    >>> softplus_p = extend.Primitive("softplus_demo", lambda x: x)
    >>> _ = extend.def_impl(softplus_p, "cpu", lambda x: np.logaddexp(0.0, x))
    >>> _ = extend.defvjp(softplus_p, lambda ct, x: ct * tf.sigmoid(x))
    >>> tf.grad(lambda v: softplus_p.bind(v).sum())(tf.asarray([0.0, 0.0]))
    tensor([0.5, 0.5])
    >>> del tf.autograd.extend.registry['softplus_demo']   # (unregister this example's primitive)
    """
    return def_vjp_rule(prim, _per_argument_vjp(prim, fns))


def _per_argument_vjp(prim, fns):
    """The full VJP rule made of per-argument rules ``fns`` (also AdContext.defvjp's)."""
    pairs = [_caller(f) for f in fns]
    calls = [c for c, _ in pairs]
    if len(calls) == 1:
        c0, = calls

        def vjp(ct, primals, out, params, needs):  # the common arities, unrolled
            if len(primals) != 1:
                _arity(prim, fns, primals)
            return (c0(ct, primals, out, params) if needs[0] and c0 else None,)
    elif len(calls) == 2:
        c0, c1 = calls

        def vjp(ct, primals, out, params, needs):
            if len(primals) != 2:
                _arity(prim, fns, primals)
            return (c0(ct, primals, out, params) if needs[0] and c0 else None,
                    c1(ct, primals, out, params) if needs[1] and c1 else None)
    else:
        def vjp(ct, primals, out, params, needs):
            _arity(prim, fns, primals)
            return tuple(c(ct, primals, out, params) if n and c is not None else None
                         for c, n in zip(calls, needs))
    vjp.uses_out = any(u for _, u in pairs)
    return vjp


def _arity(prim, fns, primals):
    if len(fns) != len(primals):
        raise TypeError("%s: rules were registered for %d arguments but it was applied to %d"
                        % (prim.name, len(fns), len(primals)))


def deflinear(prim: Primitive, transpose: Callable[..., Any]) -> None:
    """Register both rules of a primitive linear in its first argument.

    As JAX's ``jax.interpreters.ad.deflinear``.
    The JVP applies the primitive to the tangent; the VJP is ``transpose(ct, *primals,
    out=out, **params)`` (declaring only the keywords it uses).  The other arguments
    have no derivative.

    Parameters
    ----------
    prim : Primitive
        A primitive linear in its first argument.
    transpose : callable
        The transpose (adjoint) map.

    Returns
    -------
    None

    See Also
    --------
    defjvp, defvjp

    Examples
    --------
    >>> from tenferro.autograd import extend
    >>> p = extend.Primitive("scale_demo", lambda x, *, k: x)
    >>> _ = extend.def_impl(p, "cpu", lambda x, *, k: x * k)
    >>> extend.deflinear(p, lambda ct, x, *, k: p.bind(ct, k=k))
    >>> tf.grad(lambda v: p.bind(v, k=3.0).sum())(tf.ones(2))
    tensor([3., 3.])
    >>> del tf.autograd.extend.registry['scale_demo']   # (unregister this example's primitive)
    """
    def jvp(tangents, primals, out, params):
        t = tangents[0]
        if t is None:
            return None
        return bind(prim, (t,) + tuple(primals[1:]), params)
    def_jvp_rule(prim, jvp)
    call, uses_out = _caller(transpose)

    def vjp(ct, primals, out, params, needs):
        g = call(ct, primals, out, params) if needs[0] else None
        return (g,) + (None,) * (len(primals) - 1)
    vjp.uses_out = uses_out
    def_vjp_rule(prim, vjp)


def zero_derivative(prim: Primitive) -> None:
    """Mark a float-valued primitive whose derivative is zero almost everywhere.

    For piecewise-constant functions (``floor``, ``sign``, ...), created with
    ``differentiable=False``: the eager tape then passes zero gradients through it, as
    PyTorch does, while the functional transforms still raise (use an
    :class:`~tenferro.autograd.AdContext` for a straight-through gradient).

    Parameters
    ----------
    prim : Primitive
        The primitive.

    Returns
    -------
    None

    Examples
    --------
    >>> from tenferro.autograd import extend
    >>> p = extend.Primitive("round_demo", lambda x: x, differentiable=False,
    ...                      nondiff_reason="piecewise constant")
    >>> _ = extend.def_impl(p, "cpu", np.round)
    >>> extend.zero_derivative(p)
    >>> x = tf.asarray([0.4, 1.6]).requires_grad_()
    >>> p.bind(x).sum().backward()
    >>> x.grad
    tensor([0., 0.])
    >>> del tf.autograd.extend.registry['round_demo']   # (unregister this example's primitive)
    """
    prim.zero_derivative = True


def def_impl(prim: Primitive, device_type: str,
             fn: Callable[..., Any]) -> Callable[..., Any]:
    """Register ``fn`` as ``prim``'s kernel on devices of ``device_type``.

    As JAX's ``register_lowering(..., platform=)``.
    ``fn(*device_arrays, **params)`` takes the device arrays of the inputs (NumPy
    arrays on the CPU) and returns a new device array (a tuple for multiple results).
    It must not return its inputs or views of them (unless the driver's ``view_ops``
    lists ``prim``): a compiled program may write into a result's buffer once no later
    step reads it.  Registration only records: it loads no driver and imports no
    device library, so an extension may register for ``"cuda"`` next to ``"cpu"`` at no
    import cost.  The driver finds the registration when it loads.

    Parameters
    ----------
    prim : Primitive
        The primitive.
    device_type : str
        ``"cpu"``, ``"cuda"``, ``"webgpu"`` or a third-party driver's type.
    fn : callable
        The kernel.

    Returns
    -------
    callable
        ``fn``.

    See Also
    --------
    Primitive, tenferro.devices.Driver

    Examples
    --------
    >>> from tenferro.autograd import extend
    >>> p = extend.Primitive("softplus_demo", lambda x: x)
    >>> _ = extend.def_impl(p, "cpu", lambda x: np.logaddexp(0.0, x))
    >>> tf.round(p.bind(tf.asarray([0.0, 1.0])), 6)
    tensor([0.693147, 1.313262])
    >>> del tf.autograd.extend.registry['softplus_demo']   # (unregister this example's primitive)
    """
    return _primitive.def_impl(prim, device_type, fn)
