"""What the special functions share: scipy.special's dtype rules for their operands, the
primitives whose CPU kernel is a scipy.special ufunc, and the shape of their rules.

A kernel primitive is registered like tenferro.linalg's (``Primitive``, ``def_impl``,
per-argument rules) for the ``"cpu"`` device type only: its kernel is scipy's ufunc
on the CPU driver's device arrays (NumPy ndarrays).  On any other device
:func:`apply` raises ``UnsupportedOperation`` before anything runs; nothing is ever
copied to the host behind the caller's back.  A driver that registers its own kernel
under the same primitive name (``def_impl(prim, "cuda", fn)``) is used instead.
"""
import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .._errors import UnsupportedOperation
from ..devices.cpu import threads as _threads
from .._ops._common import broadcast_shapes, common_device, to_tensor
from .._ops.elementwise import _at, _operand, _resolve
from .._tensor import Tensor
from ..autograd._engine import detach
from ..autograd._rules._util import conj, unbroadcast_to
from ..autograd.extend import Primitive, def_impl, defjvp, defvjp


# (name, ufunc, dtype, arity) -> whether the ufunc's loop for that dtype is that dtype
_KEEPS = {}


def operands(name, type_rule, *args):
    """``args`` as tensors of one device and of the loop dtype NumPy's type resolution
    gives ``type_rule`` (the scipy.special ufunc; NumPy 2 rules, weak Python scalars
    included): float32 stays float32, ints and bools become float64 (float32 where the
    ufunc's first loop is float32, as scipy), and a dtype scipy has no loop for raises
    a TypeError naming ``tenferro.special.<name>``."""
    first = args[0]
    if type(first) is Tensor:   # the everyday call: tensors of one dtype, device, shape
        d, dev, shape = first.dtype, first._device, first.shape
        for a in args[1:]:
            if type(a) is not Tensor or a.dtype != d or a._device is not dev \
                    or a.shape != shape:
                break
        else:
            key = (name, type_rule, d, len(args))
            keeps = _KEEPS.get(key)
            if keeps is None:
                keeps = _KEEPS[key] = _resolve("special." + name, type_rule,
                                               (d,) * len(args))[0] == d
            if keeps:
                return list(args)
    tensors = [a for a in args if isinstance(a, Tensor)]
    args = [a if isinstance(a, Tensor) else _operand(a, tensors[0] if tensors else None)
            for a in args]
    if not any(isinstance(a, Tensor) for a in args):
        args[0] = to_tensor(args[0])
    dev = common_device("tenferro.special." + name, args)
    types = tuple(a.dtype if isinstance(a, Tensor) else type(a) for a in args)
    loop, _ = _resolve("special." + name, type_rule, types)
    out = [_at(a, loop, dev) for a in args]
    if len(out) > 1:
        broadcast_shapes("special." + name, *[a.shape for a in out])
    return out


def _aval(*avals, **params):
    return broadcast_shapes("elementwise", *[a[0] for a in avals]), avals[0][1]


# From this many elements a kernel splits its work over tenferro's thread count
# (scipy's ufuncs release the GIL; below it a thread hand-off costs more than it saves).
PARALLEL_FROM = 32768
_pool = []   # the worker pool, made at first use: [ThreadPoolExecutor]


def ufunc_kernel(ufunc):
    """A CPU implementation running scipy's ``ufunc``: one call, or for large arrays
    chunks along the longest axis on ``tenferro.get_num_threads()`` threads (the same
    values: the ufunc is elementwise).  NumPy's warnings are silenced as for tenferro's
    own kernels; scipy's own error reporting (``scipy.special.seterr``) stays as set."""
    def run(*arrays):
        shape = arrays[0].shape if len(arrays) == 1 else \
            np.broadcast_shapes(*[a.shape for a in arrays])
        n = min(_threads.current, max(1, math.prod(shape) // PARALLEL_FROM))
        if n <= 1:
            with np.errstate(all="ignore"):
                return np.asarray(ufunc(*arrays))
        return _chunked(ufunc, arrays, shape, n)
    run.__name__ = "scipy_" + getattr(ufunc, "__name__", "kernel")
    return run


def _chunked(ufunc, arrays, shape, n):
    if not _pool:
        _pool.append(ThreadPoolExecutor(max_workers=_threads.max_threads(),
                                        thread_name_prefix="tenferro-special"))
    out = np.empty(shape, arrays[0].dtype)
    views = [np.broadcast_to(a, shape) for a in arrays]
    k = int(np.argmax(shape))
    step = -(-shape[k] // n)

    def part(i):
        sl = (slice(None),) * k + (slice(i, i + step),)
        with np.errstate(all="ignore"):   # (per thread: NumPy's error state is)
            ufunc(*[v[sl] for v in views], out=out[sl])
    list(_pool[0].map(part, range(0, shape[k], step)))
    return out


def kernel_primitive(name, kernel, doc, source="scipy.special"):
    """The primitive ``special.<name>`` with ``kernel`` (ndarrays in, a new ndarray of the
    inputs' dtype out) as its CPU implementation (``source`` names it in the doc)."""
    prim = Primitive("special." + name, _aval, doc=doc + " CPU kernel: %s." % source)
    def_impl(prim, "cpu", kernel)
    return prim


def composite_primitive(name, fn, doc):
    """The primitive ``special.<name>`` computed by ``fn``, written with tenferro ops
    (on its detached inputs): it runs on every device those ops run on, and its
    derivatives are its own rules, not those of the ops inside ``fn`` (for the right
    values at the edges of the domain)."""
    prim = Primitive("special." + name, _aval, doc=doc)
    prim.impl = lambda *xs: fn(*[detach(x) for x in xs])
    return prim


def apply(prim, *tensors, **params):
    """``prim`` bound to ``tensors``, or UnsupportedOperation on a device no kernel of
    ``prim`` is registered for (scipy's kernels run on host memory only)."""
    dev = tensors[0].device
    if prim.name not in dev.driver.implementations:
        raise UnsupportedOperation(
            dev, prim.name, tensors[0].dtype,
            "its kernel is scipy.special's, on the CPU; move the data there explicitly "
            "with .to_device('cpu') (tenferro never copies to the host silently)")
    return prim.bind(*tensors, **params)


def holomorphic(prim, deriv):
    """Rules of a unary primitive with derivative ``deriv(x, out)``: JVP ``t * f'``,
    VJP ``ct * conj(f')`` (tenferro's complex convention)."""
    defjvp(prim, lambda t, x, *, out, **params: t * deriv(x, out, **params))
    defvjp(prim, lambda ct, x, *, out, **params: ct * conj(deriv(x, out, **params)))


def partial_rules(prim, *derivs):
    """Rules of a real binary primitive from its partial derivatives ``d_i(a, b)`` (one
    that is not available: :func:`no_derivative`): JVP ``sum t_i d_i`` (broadcast),
    VJP ``ct * d_i`` summed down to argument i's shape."""
    def jvp(d):
        return lambda t, a, b: t * d(a, b)

    def vjp(d, i):
        return lambda ct, a, b: unbroadcast_to(ct * d(a, b), (a, b)[i])
    defjvp(prim, *[jvp(d) for d in derivs])
    defvjp(prim, *[vjp(d, i) for i, d in enumerate(derivs)])


def no_derivative(op, arg, why):
    """A partial derivative that raises NotImplementedError naming ``op`` and ``arg``."""
    def d(a, b):
        raise NotImplementedError(
            "tenferro.special.%s: the derivative with respect to %s is not implemented "
            "(%s); pass %s as a constant (detach it or leave requires_grad off)"
            % (op, arg, why, arg))
    return d


def polynomial(coeffs, t):
    """sum_k coeffs[k] t^k (Horner), for the series branches near a removable
    singularity (tenferro ops: they differentiate)."""
    r = coeffs[-1]
    for c in coeffs[-2::-1]:
        r = r * t + c
    return r
