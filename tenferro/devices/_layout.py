"""Strided layouts in elements, shared by the drivers whose device arrays carry an
element offset and element strides (:class:`StridedArray`: WebGPU's ``WGPUArray``,
CUDA's ``CUDAArray``): C-order strides, the contiguity test, broadcast views, the
operands of a binary op, and the merging of dimensions a kernel can walk as one."""
import math

from .._catalog import broadcast_shapes


def c_strides(shape):
    """The C-order element strides of ``shape``."""
    st = []
    acc = 1
    for n in reversed(shape):
        st.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(st))


def is_c(shape, estrides):
    """Whether element strides ``estrides`` lay ``shape`` out in C order (an empty
    array always does, as in NumPy, and as :func:`c_strides` lays it out)."""
    if 0 in shape:
        return True
    acc = 1
    for n, s in zip(reversed(shape), reversed(estrides)):
        if n != 1 and s != acc:
            return False
        acc *= n
    return True


def broadcast_view(x, shape, op="broadcast_to"):
    """``x`` (an array with ``estrides``, ``offset`` and ``view``) broadcast to
    ``shape`` as a read-only view (stride 0 along new axes)."""
    if x.shape == shape:
        return x
    nd = len(shape)
    if x.ndim > nd:
        raise ValueError("tenferro.%s: cannot broadcast shape %s to %s" % (op, x.shape, shape))
    lead = nd - x.ndim
    st = [0] * lead
    for i, (n, s) in enumerate(zip(x.shape, x.estrides)):
        t = shape[lead + i]
        if n == t:
            st.append(s)
        elif n == 1:
            st.append(0)
        else:
            raise ValueError("tenferro.%s: cannot broadcast shape %s to %s"
                             % (op, x.shape, shape))
    return x.view(shape, st, x.offset, writeable=False)


def coalesce(shape, strides_list):
    """``(shape, strides_list)`` with size-1 dimensions dropped and neighbouring
    dimensions merged wherever every operand steps through them as through one (the
    outer stride is the inner stride times the inner size): fewer dimensions for a
    kernel to unravel, and often one (a contiguous walk).  ``strides_list`` holds one
    tuple of element strides per operand, all for ``shape``."""
    dims = [k for k, n in enumerate(shape) if n != 1]
    out_shape = []
    out = [[] for _ in strides_list]
    for k in dims:
        n = shape[k]
        if out_shape and all(o[-1] == st[k] * n for o, st in zip(out, strides_list)):
            out_shape[-1] *= n
            for o, st in zip(out, strides_list):
                o[-1] = st[k]
            continue
        out_shape.append(n)
        for o, st in zip(out, strides_list):
            o.append(st[k])
    return tuple(out_shape), [tuple(o) for o in out]


class StridedArray:
    """A strided view of a device allocation (ndarray-like metadata): ``storage`` (the
    allocation, also ``base``: the core tracks in-place writes by it), ``offset`` and
    ``estrides`` in elements, ``strides`` in bytes of the dtype -- what NumPy would
    report for the same layout.  Drivers subclass it for their own storage."""

    __slots__ = ("storage", "shape", "dtype", "estrides", "offset", "device", "writeable",
                 "__weakref__")
    abstract = False

    def __init__(self, storage, shape, dtype, estrides=None, offset=0, device=None,
                 writeable=True):
        self.storage = storage
        self.shape = tuple(shape)
        self.dtype = dtype
        self.estrides = tuple(estrides) if estrides is not None else c_strides(self.shape)
        self.offset = offset
        self.device = device
        self.writeable = writeable

    @property
    def base(self):
        return self.storage

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return math.prod(self.shape)

    @property
    def strides(self):
        return tuple(s * self.dtype.itemsize for s in self.estrides)

    @property
    def c_contiguous(self):
        return is_c(self.shape, self.estrides)

    def view(self, shape, estrides, offset, writeable=None):
        return type(self)(self.storage, shape, self.dtype, estrides, offset, self.device,
                          self.writeable if writeable is None else writeable)

    def __repr__(self):
        return "%s(shape=%s, dtype=%s, strides=%s, offset=%d, device=%s)" % (
            type(self).__name__, self.shape, self.dtype, self.estrides, self.offset,
            self.device)


def overlaps(out, x):
    """``out`` and ``x`` share memory without being the very same view (an in-place
    write through them would read values it has already overwritten)."""
    return out is not x and out.storage is x.storage and not (
        out.offset == x.offset and out.estrides == x.estrides and out.shape == x.shape)


def binary_operands(op, a, b, out, copy):
    """``(a, b, shape)``: ``a`` and ``b`` broadcast to their common shape, each replaced
    by ``copy(x)`` where it overlaps ``out`` (None: a new output) other than exactly."""
    shape = a.shape if a.shape == b.shape else broadcast_shapes(op, a.shape, b.shape)
    a, b = broadcast_view(a, shape, op), broadcast_view(b, shape, op)
    if out is not None:
        a = copy(a) if overlaps(out, a) else a
        b = copy(b) if overlaps(out, b) else b
    return a, b, shape
