"""The Tensor type: storage on a device plus shape, strides, offset and dtype.

A Tensor wraps its driver's device array (``_data``; on the CPU a NumPy ndarray
view, so ``np.asarray(t)`` is zero-copy) and its :class:`~tenferro.devices.Device`.
All arithmetic goes through the public ops in :mod:`tenferro._ops`, which bind
primitives; the Tensor itself holds no compute and no gradient logic.
"""
import operator

import numpy as np

from . import _dtypes
# Autodiff state of a tensor, allocated only for tensors that take part in AD (compiled
# with the rest of the eager tape's hot path; see tenferro.autograd._engine).
from ._kernels._tape import AutogradMeta  # noqa: F401


class Tensor:
    """An n-dimensional array on a device (see :func:`tenferro.tensor` to make one)."""

    __slots__ = ("_data", "_device", "_ad", "__weakref__")
    # NumPy defers binary operators (ndarray + Tensor) to us.
    __array_priority__ = 1000
    # The autodiff trace owning this value; tracers (tenferro.autograd) override it.
    _trace = None

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

    # -- autodiff state (see tenferro.autograd) ---------------------------------------
    def _meta(self):
        if self._ad is None:
            self._ad = AutogradMeta()
        return self._ad

    @property
    def requires_grad(self):
        return self._ad is not None and self._ad.requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad=True):
        if requires_grad and self.dtype.kind not in "fc":
            raise RuntimeError("requires_grad_: only floating-point and complex tensors can "
                               "require gradients, got dtype %s" % self.dtype)
        self._meta().requires_grad = bool(requires_grad)
        return self

    @property
    def grad(self):
        return None if self._ad is None else self._ad.grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError("Tensor.grad: assigned grad must be a Tensor or None, got %s"
                                % type(value).__name__)
            if value.shape != self.shape or value.dtype != self.dtype \
                    or value._device is not self._device:
                raise RuntimeError(
                    "Tensor.grad: assigned grad has shape %s, dtype %s on %s but the tensor "
                    "has shape %s, dtype %s on %s; they must match"
                    % (value.shape, value.dtype, value._device, self.shape, self.dtype,
                       self._device))
        self._meta().grad = value

    @property
    def grad_fn(self):
        """The node that made this tensor (its name, ``next_functions`` and ``inputs``
        can be inspected), or None for a leaf."""
        return None if self._ad is None else self._ad.grad_fn

    @property
    def is_leaf(self):
        """True for tensors not made by a recorded operation (their ``.grad`` fills)."""
        return self._ad is None or self._ad.grad_fn is None

    @property
    def retains_grad(self):
        return self._ad is not None and self._ad.retains_grad

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate the gradient of this tensor into the leaves' ``.grad`` (PyTorch's
        ``backward``; a non-scalar tensor needs ``gradient``)."""
        _engine.backward(self, gradient, retain_graph, create_graph, inputs)

    def detach(self):
        """The same data, cut from every autodiff graph and transform."""
        return _engine.detach(self)

    def zero_grad(self, set_to_none=True):
        """Clear ``.grad`` (``None``, or zeros in place with ``set_to_none=False``)."""
        if self._ad is None or self._ad.grad is None:
            return
        if set_to_none:
            self._ad.grad = None
        else:
            _ops.copy_into(self._ad.grad, 0)

    def register_hook(self, hook):
        """``hook(grad)`` runs when this tensor's gradient is computed; it may return a
        replacement.  Returns a handle with ``remove()``."""
        return _engine.register_hook(self, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """``hook(tensor)`` runs after a leaf's ``.grad`` was accumulated."""
        return _engine.register_post_accumulate_grad_hook(self, hook)

    def retain_grad(self):
        """Keep the gradient of a non-leaf tensor in its ``.grad``."""
        _engine.retain_grad(self)

    # -- metadata ------------------------------------------------------------------
    @property
    def shape(self):
        return self._data.shape

    @property
    def ndim(self):
        return self._data.ndim

    @property
    def size(self):
        return self._data.size

    @property
    def dtype(self):
        return self._data.dtype

    @property
    def device(self):
        return self._device

    @property
    def strides(self):
        """Strides in bytes, as NumPy reports them."""
        return self._data.strides

    @property
    def itemsize(self):
        return self._data.dtype.itemsize

    @property
    def nbytes(self):
        return self._data.size * self._data.dtype.itemsize

    @property
    def T(self):
        """All axes reversed (NumPy's ``.T``)."""
        return _ops.permute_dims(self, tuple(range(self.ndim - 1, -1, -1)))

    @property
    def mT(self):
        """The last two axes swapped (batched matrix transpose)."""
        if self.ndim < 2:
            raise ValueError("Tensor.mT: expected a tensor with at least 2 dimensions, got "
                             "shape %s" % (self.shape,))
        return _ops.swapaxes(self, -1, -2)

    @property
    def mH(self):
        return _ops.conj(self.mT)

    @property
    def real(self):
        return _ops.real(self)

    @property
    def imag(self):
        return _ops.imag(self)

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        for i in range(self.shape[0]):
            yield self[i]

    # -- conversion ------------------------------------------------------------------
    def _host(self, what):
        """The values as a host ndarray (a CPU tensor's own array): the one path every
        read of values takes.  Tracers (tenferro.autograd) override it to raise
        ``ConcretizationError`` naming ``what``."""
        if self._device.type == "cpu":
            return self._data
        return self._device.driver.to_numpy(self._data)

    def _numpy(self, what):
        """``numpy()``'s checks, for ``what`` (``numpy()``, ``np.asarray``, ...)."""
        if self._trace is not None:
            return self._host(what)
        m = self._ad
        if m is not None and (m.requires_grad or m.grad_fn is not None):
            raise RuntimeError("tenferro: can't call %s on a tensor that requires grad (shape "
                               "%s, dtype %s): the NumPy array would leave the autograd graph. "
                               "Use t.detach().numpy() (or np.asarray(t.detach())) instead"
                               % (what, self.shape, self.dtype))
        if self._device.type != "cpu":
            raise TypeError("Tensor.numpy: tensor is on %r; copy it to the host first with "
                            ".to('cpu')" % str(self._device))
        return self._data

    def numpy(self):
        """The CPU tensor's data as a NumPy array (zero-copy); other devices must
        ``.to('cpu')`` first, a tensor that requires grad must be ``detach()``-ed first."""
        return self._numpy("numpy()")

    def __array__(self, dtype=None, copy=None):
        a = self._numpy("numpy.asarray() (__array__)")
        if dtype is not None and np.dtype(dtype) != a.dtype:
            if copy is False:
                raise ValueError("Tensor.__array__: a cast to %s needs a copy but copy=False"
                                 % np.dtype(dtype))
            return a.astype(dtype)
        return a.copy() if copy else a

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        fn = _ops.NUMPY_UFUNCS.get(ufunc.__name__) if method == "__call__" else None
        if fn is None or kwargs.get("out") is not None or len(kwargs) > 0:
            return NotImplemented
        return fn(*inputs)

    def __dlpack__(self, *args, **kwargs):
        return self._numpy("__dlpack__()").__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self._numpy("__dlpack_device__()").__dlpack_device__()

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
        return self.to("cpu")

    def item(self):
        if self.size != 1:
            raise ValueError("Tensor.item: only a tensor with one element can be converted to "
                             "a Python scalar, got shape %s" % (self.shape,))
        return self._host("item()").reshape(()).item()

    def tolist(self):
        return self._host("tolist()").tolist()

    def _scalar(self, what):
        if self.size != 1:
            raise TypeError("%s: only a tensor with one element can be converted to a Python "
                            "scalar, got shape %s" % (what, self.shape))
        return self._host(what).reshape(())[()]

    def __bool__(self):
        if self.size != 1:
            raise ValueError("The truth value of a tensor with %s elements is ambiguous; use "
                             ".any() or .all()" % self.size)
        return bool(self._scalar("bool()"))

    def __float__(self):
        return float(self._scalar("float()"))

    def __int__(self):
        return int(self._scalar("int()"))

    def __complex__(self):
        return complex(self._scalar("complex()"))

    def __index__(self):
        if self.dtype.kind not in "biu":
            raise TypeError("only integer tensors with one element can be used as an index, "
                            "got dtype %s" % self.dtype)
        return operator.index(self._scalar("__index__"))

    __hash__ = object.__hash__

    # -- pickling and copies (see docs/tensors.md) ---------------------------------------
    def _host_copyable(self, what):
        """The check before pickling or copying: a concrete CPU tensor."""
        if self._trace is not None:   # a tracer of a transform or a graph: no value to copy
            from .autograd._graph import ConcretizationError
            raise ConcretizationError(
                "%s of a traced tensor (shape %s, dtype %s) inside a transform: its value is "
                "not known here; return it from the transformed function instead"
                % (what, self.shape, self.dtype))
        if self._device.type != "cpu":
            raise TypeError("%s: the tensor is on %r; move it to the host first with "
                            ".to('cpu')" % (what, str(self._device)))

    def __reduce_ex__(self, protocol):
        """Pickled as its values (a NumPy array: C order, or Fortran order when the
        tensor is Fortran-contiguous), its device by name and ``requires_grad``; the
        autodiff graph and ``.grad`` are not pickled (as ``torch.save``)."""
        self._host_copyable("pickle")
        state = getattr(self, "__dict__", None) or None   # a subclass's attributes
        return (_rebuild, (type(self), self._data, self._device, self.requires_grad),
                state)

    def _copy_leaf(self, what):
        self._host_copyable(what)
        if not self.is_leaf:
            raise RuntimeError(
                "%s: only tensors made by the user (graph leaves) can be copied, as in "
                "PyTorch; this one was computed by %s: use t.detach() for its value, or "
                "the op t.copy() to copy it inside the graph" % (what, self.grad_fn.name))
        return _rebuild(type(self), self._data.copy(order="K"), self._device,
                        self.requires_grad)

    def __copy__(self):
        """A new leaf with a copy of the values (NumPy's ``copy.copy`` copies too)."""
        return self._copy_leaf("copy.copy")

    def __deepcopy__(self, memo):
        """A new leaf with a copy of the values and of ``.grad`` (PyTorch's deepcopy;
        a non-leaf raises RuntimeError as there)."""
        import copy as _copy
        t = self._copy_leaf("copy.deepcopy")
        memo[id(self)] = t
        if self.grad is not None:
            t.grad = _copy.deepcopy(self.grad, memo)
        state = getattr(self, "__dict__", None)
        if state:
            t.__dict__.update(_copy.deepcopy(state, memo))
        return t

    def __repr__(self):
        a = _ops.to_numpy(self)
        prefix = "tensor("
        body = np.array2string(a, separator=", ", prefix=prefix, threshold=1000)
        extra = ""
        if a.size == 0 and a.shape != (0,):  # as NumPy: "[]" alone would lose the shape
            extra += ", shape=%s" % (a.shape,)
        if a.dtype not in (_dtypes.float64, _dtypes.int64, _dtypes.bool_, _dtypes.complex128) \
                or a.size == 0:
            extra += ", dtype=%s" % a.dtype.name
        if self._device.type != "cpu":
            extra += ", device='%s'" % self._device
        if self.requires_grad:
            extra += ", requires_grad=True"
        return prefix + body + extra + ")"

    def __str__(self):
        return np.array2string(_ops.to_numpy(self), threshold=1000)

    def __format__(self, spec):
        if self.ndim == 0:
            return format(self._scalar("format()").item(), spec)
        return format(str(self), spec)

    # -- methods that are public ops ---------------------------------------------------
    def astype(self, dtype, copy=True, casting="unsafe"):
        return _ops.astype(self, dtype, copy=copy, casting=casting)

    def copy(self):
        return _ops.copy(self)

    def contiguous(self):
        return _ops.ascontiguousarray(self)

    def is_contiguous(self):
        return _ops.is_contiguous(self)

    def reshape(self, *shape, copy=None):
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        return _ops.reshape(self, shape, copy=copy)

    def view(self, *shape):
        if len(shape) == 1 and not isinstance(shape[0], int):
            shape = shape[0]
        return _ops.reshape(self, shape, copy=False)

    def flatten(self):
        return _ops.reshape(self, (-1,), copy=True)

    def ravel(self):
        return _ops.reshape(self, (-1,))

    def transpose(self, *axes):
        if not axes:
            axes = None
        elif len(axes) == 1 and not isinstance(axes[0], int):
            axes = axes[0]
        return _ops.transpose(self, axes)

    def permute(self, *axes):
        if len(axes) == 1 and not isinstance(axes[0], int):
            axes = axes[0]
        return _ops.permute_dims(self, axes)

    def swapaxes(self, a, b):
        return _ops.swapaxes(self, a, b)

    def squeeze(self, axis=None):
        return _ops.squeeze(self, axis)

    def expand_dims(self, axis):
        return _ops.expand_dims(self, axis)

    unsqueeze = expand_dims

    def broadcast_to(self, shape):
        return _ops.broadcast_to(self, shape)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return _ops.diagonal(self, offset, axis1, axis2)

    def take(self, indices, axis=None):
        return _ops.take(self, indices, axis)

    def conj(self):
        return _ops.conj(self)

    def round(self, decimals=0, out=None):
        r = _ops.round(self, decimals)
        return r if out is None else _ops.store_out("round", r, out)

    def clip(self, min=None, max=None, out=None):
        r = _ops.clip(self, min, max)
        return r if out is None else _ops.store_out("clip", r, out)

    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        return _ops.sum(self, axis=axis, dtype=dtype, keepdims=keepdims, out=out)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        return _ops.prod(self, axis=axis, dtype=dtype, keepdims=keepdims, out=out)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        return _ops.mean(self, axis=axis, dtype=dtype, keepdims=keepdims, out=out)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return _ops.var(self, axis=axis, ddof=ddof, keepdims=keepdims, dtype=dtype, out=out)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return _ops.std(self, axis=axis, ddof=ddof, keepdims=keepdims, dtype=dtype, out=out)

    def max(self, axis=None, out=None, keepdims=False):
        return _ops.max(self, axis=axis, keepdims=keepdims, out=out)

    def min(self, axis=None, out=None, keepdims=False):
        return _ops.min(self, axis=axis, keepdims=keepdims, out=out)

    def argmax(self, axis=None, out=None, keepdims=False):
        return _ops.argmax(self, axis=axis, keepdims=keepdims, out=out)

    def argmin(self, axis=None, out=None, keepdims=False):
        return _ops.argmin(self, axis=axis, keepdims=keepdims, out=out)

    def any(self, axis=None, out=None, keepdims=False):
        return _ops.any(self, axis=axis, keepdims=keepdims, out=out)

    def all(self, axis=None, out=None, keepdims=False):
        return _ops.all(self, axis=axis, keepdims=keepdims, out=out)

    def cumsum(self, axis=None, dtype=None, out=None):
        return _ops.cumsum(self, axis=axis, dtype=dtype, out=out)

    def cumprod(self, axis=None, dtype=None, out=None):
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

    def __getitem__(self, key):
        return _ops.getitem(self, key)

    def __setitem__(self, key, value):
        _ops.setitem(self, key, value)


def _wrap(data, device, _new=object.__new__):
    """A Tensor over a device array (the one constructor every op uses)."""
    t = _new(Tensor)
    t._data = data
    t._device = device
    t._ad = None
    return t


Tensor._wrap = staticmethod(_wrap)


def _rebuild(cls, data, device, requires_grad):
    """A tensor of class ``cls`` over host array ``data`` on ``device`` (unpickling)."""
    t = object.__new__(cls)
    t._data, t._device, t._ad = data, device, None
    if requires_grad:
        t.requires_grad_(True)
    return t


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


from . import _ops  # noqa: E402  (the ops need Tensor defined first)
from .autograd import _engine  # noqa: E402
from ._ops.elementwise import DUNDERS as _DUNDERS  # noqa: E402

for _dunder, _fn in [("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                     ("truediv", "divide"), ("floordiv", "floor_divide"), ("mod", "remainder"),
                     ("pow", "power"), ("matmul", "matmul"), ("and", "bitwise_and"),
                     ("or", "bitwise_or"), ("xor", "bitwise_xor"), ("lshift", "left_shift"),
                     ("rshift", "right_shift")]:
    setattr(Tensor, "__%s__" % _dunder, _DUNDERS.get(_fn) or _binop(_fn))
    setattr(Tensor, "__r%s__" % _dunder, _binop(_fn, reflected=True))
    setattr(Tensor, "__i%s__" % _dunder, _inplace(_fn))
for _dunder, _fn in [("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"),
                     ("gt", "greater"), ("ge", "greater_equal")]:
    setattr(Tensor, "__%s__" % _dunder, _DUNDERS[_fn])
for _dunder, _fn in [("neg", "negative"), ("pos", "positive"), ("abs", "abs"),
                     ("invert", "bitwise_invert")]:
    setattr(Tensor, "__%s__" % _dunder, _unop(_fn))
