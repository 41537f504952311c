"""The Tensor's constructor, operators and op methods, attached from the ops layer.

:mod:`tenferro._tensor` defines storage, metadata and host conversion and imports
nothing above it; this module gives the class everything that computes (the pattern of
JAX's ``jax/_src/numpy/array_methods.py``).  The attached functions are the ops' own
(``Tensor.__add__`` is the elementwise fast path itself), so attaching costs nothing
per call.
"""
from .. import _ops
from .._primitive import bind
from .._tensor import Tensor
from . import _fastpath, reduction as _R
from .elementwise import DUNDERS
from .shape import permute_dims_p

_REVERSED = [tuple(range(n - 1, -1, -1)) for n in range(65)]   # .T's axes, by ndim


class _Methods:
    """Holder of the methods below (copied onto Tensor by :func:`_attach`)."""

    def __init__(self, data, dtype=None, device=None, copy=None, requires_grad=False):
        src = _ops.asarray(data, dtype=dtype, device=device, copy=copy)
        if src._trace is not None or src.requires_grad or src.grad_fn is not None:
            # a new Tensor object cannot take over a derivative: that would be a silent cut
            raise TypeError("tenferro.Tensor(data): data is (or holds) a tensor that requires "
                            "grad or is being differentiated or traced; use tenferro.asarray "
                            "or tenferro.tensor (which keep the derivative), or pass "
                            "data.detach()")
        self._data = src._data
        self._device = src._device
        self._ad = None
        if requires_grad:
            self.requires_grad_(True)

    @property
    def T(self):
        """All axes reversed (NumPy's ``.T``)."""
        nd = self.ndim
        if nd < 2:   # the identity permutation: the tensor itself, as permute_dims gives
            return self
        # permute_dims' primitive with its axes, valid by construction (its checks skipped)
        return bind(permute_dims_p, (self,), {"axes": _REVERSED[nd]})

    @property
    def mT(self):
        """The last two axes swapped (batched matrix transpose)."""
        if self.ndim < 2:
            raise ValueError("Tensor.mT: expected a tensor with at least 2 dimensions, got "
                             "shape %s" % (self.shape,))
        return _ops.swapaxes(self, -1, -2)

    @property
    def mH(self):
        """The last two axes swapped and conjugated (conjugate transpose,
        ``conj(t.mT)``)."""
        return _ops.conj(self.mT)

    @property
    def real(self):
        """The real part (:func:`tenferro.real`; the tensor itself for real dtypes)."""
        return _ops.real(self)

    @property
    def imag(self):
        """The imaginary part (:func:`tenferro.imag`; zeros for real dtypes)."""
        return _ops.imag(self)

    def to(self, device=None, dtype=None, copy=False):
        """Move to ``device`` and/or cast to ``dtype`` (explicit transfer)."""
        t = self
        if device is not None:
            t = _ops.to_device(t, device, copy=copy)
            copy = False
        if dtype is not None:
            t = t.astype(dtype, copy=copy)
        elif copy:
            t = t.copy()
        return t

    def cpu(self):
        """The tensor on the CPU (``t.to('cpu')``; itself when already there)."""
        return self.to("cpu")

    # -- methods that are public ops ---------------------------------------------------
    def astype(self, dtype, copy=True, casting="unsafe"):
        """A copy cast to ``dtype`` (:func:`tenferro.astype`; ``copy=False`` returns
        ``self`` when the dtype already matches)."""
        return _ops.astype(self, dtype, copy=copy, casting=casting)

    def copy(self):
        """A copy of the values, in the autodiff graph (:func:`tenferro.copy`)."""
        return _ops.copy(self)

    def contiguous(self):
        """A C-contiguous tensor with these values (``self`` when it already is;
        PyTorch's ``contiguous``)."""
        return _ops.ascontiguousarray(self)

    def is_contiguous(self):
        """Whether the elements lie in C order without gaps (PyTorch's
        ``is_contiguous``)."""
        return _ops.is_contiguous(self)

    def reshape(self, *shape, copy=None):
        """The values in a new shape, ``t.reshape(2, 3)`` or ``t.reshape((2, 3))``
        (:func:`tenferro.reshape`; a view where possible)."""
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        return _ops.reshape(self, shape, copy=copy)

    def view(self, *shape):
        """The values in a new shape without copying (PyTorch's ``view``); raises
        where a copy would be needed."""
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        return _ops.reshape(self, shape, copy=False)

    def flatten(self):
        """A 1-D copy of the values in C order (NumPy's ``ndarray.flatten``)."""
        return _ops.reshape(self, (-1,), copy=True)

    def ravel(self):
        """The values as 1-D, a view where possible (:func:`tenferro.ravel`)."""
        return _ops.reshape(self, (-1,))

    def transpose(self, *axes):
        """The axes permuted, reversed by default: ``t.transpose()``,
        ``t.transpose(1, 0, 2)`` (:func:`tenferro.transpose`; a view)."""
        if not axes:
            axes = None
        elif len(axes) == 1 and not isinstance(axes[0], int):
            axes = axes[0]
        return _ops.transpose(self, axes)

    def permute(self, *axes):
        """The axes in the order given, ``t.permute(2, 0, 1)`` (PyTorch's
        ``permute``; :func:`tenferro.permute_dims`)."""
        if len(axes) == 1 and not isinstance(axes[0], int):
            axes = axes[0]
        return _ops.permute_dims(self, axes)

    def swapaxes(self, a, b):
        """Axes ``a`` and ``b`` exchanged (:func:`tenferro.swapaxes`; a view)."""
        return _ops.swapaxes(self, a, b)

    def squeeze(self, axis=None):
        """Size-1 axes removed, all or those in ``axis`` (:func:`tenferro.squeeze`)."""
        return _ops.squeeze(self, axis)

    def expand_dims(self, axis):
        """A size-1 axis inserted at ``axis`` (:func:`tenferro.expand_dims`;
        ``unsqueeze`` is PyTorch's name)."""
        return _ops.expand_dims(self, axis)

    unsqueeze = expand_dims

    def broadcast_to(self, shape):
        """A read-only view broadcast to ``shape`` (:func:`tenferro.broadcast_to`)."""
        return _ops.broadcast_to(self, shape)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        """The ``offset`` diagonal of the (``axis1``, ``axis2``) planes
        (:func:`tenferro.diagonal`)."""
        return _ops.diagonal(self, offset, axis1, axis2)

    def take(self, indices, axis=None):
        """Elements at ``indices`` along ``axis`` (flattened when None)
        (:func:`tenferro.take`)."""
        return _ops.take(self, indices, axis)

    def conj(self):
        """The complex conjugate (:func:`tenferro.conj`; the values themselves for
        real dtypes)."""
        return _ops.conj(self)

    def round(self, decimals=0, out=None):
        """Rounded to ``decimals`` decimals, halves to even
        (:func:`tenferro.round`)."""
        r = _ops.round(self, decimals)
        return r if out is None else _ops.store_out("round", r, out)

    def clip(self, min=None, max=None, out=None):
        """The values limited to [``min``, ``max``] (:func:`tenferro.clip`)."""
        r = _ops.clip(self, min, max)
        return r if out is None else _ops.store_out("clip", r, out)

    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        """Sum over ``axis`` (all axes by default) (:func:`tenferro.sum`)."""
        return _R.sum.fast(self, axis, dtype, keepdims, out)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        """Product over ``axis`` (all axes by default) (:func:`tenferro.prod`)."""
        return _R.prod.fast(self, axis, dtype, keepdims, out)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        """Arithmetic mean over ``axis`` (all axes by default)
        (:func:`tenferro.mean`)."""
        return _R.mean(self, axis, dtype, keepdims, out)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """Variance over ``axis``, divided by ``N - ddof`` (:func:`tenferro.var`)."""
        return _ops.var(self, axis=axis, ddof=ddof, keepdims=keepdims, dtype=dtype, out=out)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """Standard deviation over ``axis``, ``sqrt(var)`` (:func:`tenferro.std`)."""
        return _ops.std(self, axis=axis, ddof=ddof, keepdims=keepdims, dtype=dtype, out=out)

    def max(self, axis=None, out=None, keepdims=False):
        """Maximum over ``axis`` (all axes by default; NaN propagates)
        (:func:`tenferro.max`)."""
        return _R.max.fast(self, axis, None, keepdims, out)

    def min(self, axis=None, out=None, keepdims=False):
        """Minimum over ``axis`` (all axes by default; NaN propagates)
        (:func:`tenferro.min`)."""
        return _R.min.fast(self, axis, None, keepdims, out)

    def argmax(self, axis=None, out=None, keepdims=False):
        """Index of the first maximum along ``axis`` (of the flattened tensor by
        default) (:func:`tenferro.argmax`)."""
        return _ops.argmax(self, axis=axis, keepdims=keepdims, out=out)

    def argmin(self, axis=None, out=None, keepdims=False):
        """Index of the first minimum along ``axis`` (of the flattened tensor by
        default) (:func:`tenferro.argmin`)."""
        return _ops.argmin(self, axis=axis, keepdims=keepdims, out=out)

    def any(self, axis=None, out=None, keepdims=False):
        """Whether any element along ``axis`` is nonzero (:func:`tenferro.any`)."""
        return _R.any.fast(self, axis, None, keepdims, out)

    def all(self, axis=None, out=None, keepdims=False):
        """Whether every element along ``axis`` is nonzero (:func:`tenferro.all`)."""
        return _R.all.fast(self, axis, None, keepdims, out)

    def cumsum(self, axis=None, dtype=None, out=None):
        """Cumulative sum along ``axis`` (of the flattened tensor by default)
        (:func:`tenferro.cumsum`)."""
        return _ops.cumsum(self, axis=axis, dtype=dtype, out=out)

    def cumprod(self, axis=None, dtype=None, out=None):
        """Cumulative product along ``axis`` (of the flattened tensor by default)
        (:func:`tenferro.cumprod`)."""
        return _ops.cumprod(self, axis=axis, dtype=dtype, out=out)

    # -- in-place writes (PyTorch's names; on a tensor that requires grad only under
    # no_grad, as an optimizer step does: see tenferro._ops.conversion.check_inplace)
    def _write(self, what, value):
        _ops.conversion.check_inplace(what, self)
        _ops.copy_into(self, value)
        return self

    def copy_(self, src):
        """Write ``src`` (broadcast, cast) into this tensor's memory; returns it."""
        return self._write("copy_", src)

    def fill_(self, value):
        """Set every element to ``value``; returns the tensor."""
        return self._write("fill_", value)

    def zero_(self):
        """Set every element to zero; returns the tensor."""
        return self._write("zero_", 0)

    # (compiled: the basic-indexing fast path in front of _ops.getitem/_ops.setitem)
    __getitem__ = _fastpath.getitem(_ops.getitem)
    __setitem__ = _fastpath.setitem(_ops.setitem)


def _binop(name, reflected=False):
    def method(self, other):
        fn = getattr(_ops, name)
        try:
            return fn(other, self) if reflected else fn(self, other)
        except _ops.NotATensor:
            return NotImplemented
    method.__name__ = name
    return method


def _inplace(name):
    def method(self, other):
        _ops.inplace(name, self, other)
        return self
    return method


def _unop(name):
    def method(self):
        return getattr(_ops, name)(self)
    return method


def _attach():
    for name, value in vars(_Methods).items():
        if not (name.startswith("__") and name.endswith("__")) or name in (
                "__init__", "__getitem__", "__setitem__"):
            if hasattr(value, "__qualname__"):
                value.__qualname__ = "Tensor." + name
            setattr(Tensor, name, value)
    for _dunder, _fn in [("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                         ("truediv", "divide"), ("floordiv", "floor_divide"),
                         ("mod", "remainder"), ("pow", "power"), ("matmul", "matmul"),
                         ("and", "bitwise_and"), ("or", "bitwise_or"), ("xor", "bitwise_xor"),
                         ("lshift", "left_shift"), ("rshift", "right_shift")]:
        setattr(Tensor, "__%s__" % _dunder, DUNDERS.get(_fn) or _binop(_fn))
        setattr(Tensor, "__r%s__" % _dunder, _binop(_fn, reflected=True))
        setattr(Tensor, "__i%s__" % _dunder, _inplace(_fn))
    for _dunder, _fn in [("eq", "equal"), ("ne", "not_equal"), ("lt", "less"),
                         ("le", "less_equal"), ("gt", "greater"), ("ge", "greater_equal")]:
        setattr(Tensor, "__%s__" % _dunder, DUNDERS[_fn])
    for _dunder, _fn in [("neg", "negative"), ("pos", "positive"), ("abs", "abs"),
                         ("invert", "bitwise_invert")]:
        setattr(Tensor, "__%s__" % _dunder, _unop(_fn))


_attach()
