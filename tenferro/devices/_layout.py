"""Strided layouts in elements, shared by the drivers whose device arrays carry an
element offset and element strides (WebGPU's ``WGPUArray``, CUDA's ``CUDAArray``):
C-order strides, the contiguity test, broadcast views and the merging of dimensions a
kernel can walk as one."""


def c_strides(shape):
    """The C-order element strides of ``shape``."""
    st = []
    acc = 1
    for n in reversed(shape):
        st.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(st))


def is_c(shape, estrides):
    """Whether element strides ``estrides`` lay ``shape`` out in C order."""
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
