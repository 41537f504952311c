"""gradcheck: derivatives against central finite differences, in every mode, to any order.

For random directions ``t`` (complex for complex inputs) the central difference
``(f(x + h t) - f(x - h t)) / 2h`` approximates the directional derivative ``J t`` of
the real-linear map ``J``.  Forward mode must reproduce it elementwise.  Reverse mode
(functional ``vjp`` and the eager tape) must be its adjoint under the real inner
product: ``Re <g, t> == Re <c, J t>`` for the cotangent ``g`` it gives for a random
output cotangent ``c`` -- for complex values this is PyTorch's convention (the "2 *
conj Wirtinger" gradient), checked without computing a full Jacobian.  Higher orders
check the derivative functions themselves (the JVP along ``t``, the VJP of ``c``) in
the same way, so second-order rules (rules of rules) are covered.
"""
import warnings

import numpy as np

from .._ops import asarray, to_numpy, zeros_like
from .._tensor import Tensor
from ._engine import detach, enable_grad, grad as _autograd_grad, no_grad
from ._functional import jvp, vjp
from .._tree import tree_flatten

__all__ = ["gradcheck", "GradcheckError", "TOLERANCES"]

# dtype -> (finite-difference step, atol, rtol), as JAX's check_grads table (float32
# 2e-3, float64 1e-5).  The step is near eps**(1/3) (float32: 6e-8**(1/3) ~ 4e-3), where
# the central difference's truncation error (~h**2) and rounding error (~eps/h) balance.
TOLERANCES = {
    "float64": (1e-6, 1e-6, 1e-5),
    "complex128": (1e-6, 1e-6, 1e-5),
    "float32": (4e-3, 2e-3, 2e-3),
    "complex64": (4e-3, 2e-3, 2e-3),
}


class GradcheckError(AssertionError):
    """A derivative disagrees with finite differences."""


_MODES = ("jvp", "vjp", "eager")
# the names modes had before the one vocabulary ("jvp"/"vjp", as Primitive.rule and
# AdContext use): still accepted, with a DeprecationWarning
_OLD_MODES = {"fwd": "jvp", "rev": "vjp"}


def gradcheck(f, args, modes=("jvp", "vjp"), order=2, eps=None, atol=None, rtol=None, seed=0):
    """Check the derivatives of ``f`` at ``args`` against finite differences.

    As ``torch.autograd.gradcheck`` and ``jax.test_util.check_grads``: for random
    directions ``t`` the central difference ``(f(x + h t) - f(x - h t)) / 2h`` must
    match forward mode elementwise, and reverse mode must be its adjoint,
    ``Re <g, t> == Re <c, J t>`` for a random output cotangent ``c`` (for complex
    values PyTorch's convention), without forming a Jacobian.  Higher orders check the
    derivative functions themselves in the same way, so rules of rules are covered.

    Parameters
    ----------
    f : callable
        ``f(*args)`` returns a tensor or a tuple of tensors.
    args : Tensor or tuple of Tensor
        The point: floating-point or complex tensors (prefer float64: the tolerances
        for float32 are loose).
    modes : tuple of str, default ("jvp", "vjp")
        Any of ``"jvp"`` (forward mode), ``"vjp"`` (functional reverse mode) and
        ``"eager"`` (``backward`` on the tape).
    order : int, default 2
        Check derivatives up to this order (order 2 checks every mode's derivative
        function in every mode).
    eps : float, optional
        The finite-difference step; default by dtype (float64: 1e-6, float32: 4e-3).
    atol : float, optional
        Absolute tolerance; default by dtype (float64: 1e-6, float32: 2e-3).
    rtol : float, optional
        Relative tolerance; default by dtype (float64: 1e-5, float32: 2e-3).
    seed : int, default 0
        Seed of the random directions.

    Returns
    -------
    bool
        True when every check passes.

    Raises
    ------
    GradcheckError
        (an ``AssertionError``) naming the mode, the order and the values that disagree.
    TypeError
        If an argument is not a floating-point or complex tensor.
    ValueError
        If a mode is unknown or ``order < 1``.

    See Also
    --------
    grad, jvp, vjp

    Examples
    --------
    >>> x = tf.asarray([0.3, -1.2])
    >>> tf.autograd.gradcheck(lambda v: tf.sin(v) * v, (x,))
    True
    >>> tf.autograd.gradcheck(tf.exp, x, modes=("jvp", "vjp", "eager"), order=1)
    True
    """
    if isinstance(args, Tensor):
        args = (args,)
    args = tuple(args)
    for i, a in enumerate(args):
        if not isinstance(a, Tensor) or a.dtype.kind not in "fc":
            raise TypeError("tenferro.autograd.gradcheck: argument %d must be a floating-point "
                            "or complex tensor, got %s" % (i, getattr(a, "dtype", type(a))))
    if any(m in _OLD_MODES for m in modes):
        warnings.warn("tenferro.autograd.gradcheck: modes 'fwd'/'rev' are now called "
                      "'jvp'/'vjp'", DeprecationWarning, stacklevel=2)
        modes = tuple(_OLD_MODES.get(m, m) for m in modes)
    for m in modes:
        if m not in _MODES:
            raise ValueError("tenferro.autograd.gradcheck: unknown mode %r; expected some of %s"
                             % (m, _MODES))
    if order < 1:
        raise ValueError("tenferro.autograd.gradcheck: order must be >= 1, got %d" % order)
    rng = np.random.default_rng(seed)
    _check(f, [detach(a) for a in args], tuple(modes), order, 1, (eps, atol, rtol), rng, "f")
    return True


def _random_like(t, rng):
    v = rng.standard_normal(t.shape)
    if t.dtype.kind == "c":
        v = v + 1j * rng.standard_normal(t.shape)
    return asarray(np.asarray(v, dtype=t.dtype), device=t.device)


def _host(t):
    return np.asarray(to_numpy(t))


def _outputs(out):
    flat, _ = tree_flatten(out)
    return [o for o in flat if isinstance(o, Tensor)]


def _tolerances(args, outs, given):
    worst = "float64"
    for t in list(args) + list(outs):
        if t.dtype.itemsize < (8 if t.dtype.kind == "f" else 16):
            worst = "float32"
    h, atol, rtol = TOLERANCES[worst]
    e, a, r = given
    return (e or h, a if a is not None else atol, r if r is not None else rtol)


def _check(f, args, modes, order, k, given, rng, name):
    with no_grad():
        out0 = _outputs(f(*args))
    outs = [o for o in out0 if o.dtype.kind in "fc"]
    inexact = [o.dtype.kind in "fc" for o in out0]
    h, atol, rtol = _tolerances(args, outs, given)
    ts = [_random_like(a, rng) for a in args]
    cs = [_random_like(o, rng) for o in outs]
    with no_grad():
        fp = _outputs(f(*[detach(a) + h * t for a, t in zip(args, ts)]))
        fm = _outputs(f(*[detach(a) - h * t for a, t in zip(args, ts)]))
    fd = [(_host(p) - _host(m)) / (2 * h) for p, m, ok in zip(fp, fm, inexact) if ok]
    where = "%s (derivative order %d)" % (name, k)
    for mode in modes:
        if mode == "jvp":
            touts = [t for t, ok in zip(_outputs(jvp(f, args, ts)[1]), inexact) if ok]
            for j, (t, d) in enumerate(zip(touts, fd)):
                _close(_host(t), d, atol, rtol, "forward mode (jvp) of %s, output %d" % (where, j))
        else:
            gs = _reverse(mode, f, args, cs, inexact)
            for i, (g, a) in enumerate(zip(gs, args)):
                if g.shape != a.shape or g.dtype != a.dtype:
                    raise GradcheckError(
                        "tenferro.autograd.gradcheck: reverse mode (%s) of %s gave a cotangent "
                        "of shape %s and dtype %s for argument %d of shape %s and dtype %s"
                        % (mode, where, g.shape, g.dtype, i, a.shape, a.dtype))
            lhs = sum(np.vdot(_host(c), d).real for c, d in zip(cs, fd))
            rhs = sum(np.vdot(_host(g), _host(t)).real for g, t in zip(gs, ts))
            scale = max(abs(lhs), abs(rhs), 1.0)
            if not abs(lhs - rhs) <= atol * np.sqrt(sum(a.size for a in args) + 1) + rtol * scale:
                raise GradcheckError(
                    "tenferro.autograd.gradcheck: reverse mode (%s) of %s disagrees with finite "
                    "differences: Re<vjp(c), t> = %.12g but Re<c, J t> = %.12g (difference %.3g, "
                    "atol %.1g, rtol %.1g)" % ("vjp" if mode == "vjp" else "eager backward",
                                               where, rhs, lhs, abs(lhs - rhs), atol, rtol))
    if order > 1:
        for mode in modes:
            d = _derivative(mode, f, ts, cs, inexact)
            inner = modes if mode != "eager" else ("eager",)
            _check(d, args, inner, order - 1, k + 1, given, rng, "%s of %s" % (
                {"jvp": "jvp", "vjp": "vjp", "eager": "backward"}[mode], name))


def _reverse(mode, f, args, cs, inexact):
    """Input cotangents of ``f`` at ``args`` for output cotangents ``cs``."""
    if mode == "vjp":
        out, fn = vjp(f, *args)
        flat, tree = tree_flatten(out)
        it = iter(cs)
        full = [next(it) if isinstance(o, Tensor) and o.dtype.kind in "fc" else zeros_like(o)
                for o in flat]
        from .._tree import tree_unflatten

        gs, _ = tree_flatten(fn(tree_unflatten(tree, full)))
        return gs
    xs = [a if a.requires_grad or a._ad is not None and a._ad.grad_fn is not None
          else detach(a).requires_grad_() for a in args]
    with enable_grad():
        outs = [o for o, ok in zip(_outputs(f(*xs)), inexact) if ok]
        pairs = [(o, c) for o, c in zip(outs, cs) if o.requires_grad]
        if not pairs:
            return [zeros_like(x) for x in xs]
        return _autograd_grad([o for o, _ in pairs], xs, [c for _, c in pairs],
                              create_graph=True, materialize_grads=True)


def _derivative(mode, f, ts, cs, inexact):
    """The function ``x -> J(x) t`` (fwd) or ``x -> J(x)^* c`` (rev, eager)."""
    if mode == "jvp":
        def d(*xs):
            return tuple(_outputs(jvp(f, xs, ts)[1]))
    else:
        def d(*xs):
            return tuple(_reverse(mode, f, xs, cs, inexact))
    return d


def _close(got, want, atol, rtol, what):
    if got.shape != want.shape:
        raise GradcheckError("tenferro.autograd.gradcheck: %s has shape %s, expected %s"
                             % (what, got.shape, want.shape))
    err = np.abs(got - want)
    bound = atol + rtol * np.abs(want)
    if not np.all(err <= bound):
        i = np.unravel_index(np.argmax(err - bound), err.shape) if err.ndim else ()
        raise GradcheckError(
            "tenferro.autograd.gradcheck: %s disagrees with finite differences at index %s: "
            "got %r, expected %r (max abs difference %.3g, atol %.1g, rtol %.1g)"
            % (what, i, got[i], want[i], float(err.max()), atol, rtol))
