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
    """Whether an operation on any of ``tensors`` can itself be differentiated: one is a
    tracer of an active transform, or grad mode is on and one requires grad.

    A rule may take a shortcut that is exact but not differentiable -- e.g. solve with
    an LU factorization saved as an extra output of the primitive, treated as a
    constant -- only when this is false for the inputs that shortcut depends on; when
    it is true, the rule must be written in differentiable ops (PyTorch's rules make
    the same choice with ``GradMode::is_enabled()``)."""
    tape = _primitive.state.enabled
    return any(t._trace is not None or (tape and t.requires_grad) for t in tensors)


def def_jvp_rule(prim: Primitive, fn: JvpRule) -> JvpRule:
    """Register the full JVP rule ``fn(tangents, primals, out, params) -> tangent``
    (``tangents`` has ``None`` for zero tangents; return ``None`` for a zero output
    tangent, a tuple for multiple-result primitives)."""
    prim.jvp = fn
    return fn


def def_vjp_rule(prim: Primitive, fn: VjpRule) -> VjpRule:
    """Register the full VJP rule ``fn(ct, primals, out, params, needs) -> cotangents``
    (one entry per primal, ``None`` where ``needs[i]`` is false or the cotangent is
    zero; ``ct`` is a tuple, with ``None`` for zero cotangents, for multiple-result
    primitives).  Set ``fn.uses_out = False`` when the rule ignores ``out``: the eager
    tape then does not keep the output alive for it."""
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
    """Per-argument JVP rules (see the module docstring)."""
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
    """Per-argument VJP rules (see the module docstring)."""
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
    """Rules of a primitive linear in its (single differentiable, first) argument:
    the JVP applies the primitive to the tangent; the VJP is ``transpose(ct, *primals,
    out=out, **params)`` (declaring only the keywords it uses)."""
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
    """Mark a float-valued primitive whose derivative is zero almost everywhere
    (floor, sign, ...): the eager tape gives zero gradients through it, as PyTorch."""
    prim.zero_derivative = True


def def_impl(prim: Primitive, device_type: str,
             fn: Callable[..., Any]) -> Callable[..., Any]:
    """Register ``fn`` (device arrays in, device array out, ``**params``) as the
    implementation of ``prim`` on devices of ``device_type`` (e.g. ``"cpu"``).  It
    must return new device arrays, not its inputs or views of them (unless the
    driver's ``view_ops`` lists ``prim``): a compiled program may write into a
    result's buffer once no later step reads it.

    Registration only records: it loads no driver and imports no device library, so an
    extension may register for ``"cuda"`` next to ``"cpu"`` at no import cost.  The
    driver finds the registration when it loads (or at once, when already loaded)."""
    return _primitive.def_impl(prim, device_type, fn)
