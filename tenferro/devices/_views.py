"""Views and their adjoints for the drivers whose device arrays carry an element offset
and element strides (WebGPU's ``WGPUArray``, CUDA's ``CUDAArray``; see
:mod:`._layout`): reshape, permute_dims, broadcast_to, basic_index and diagonal are
metadata only (no copy); basic_index_transpose, diagonal_transpose and concatenate
write into a new array through those views; :func:`paired` is the pair of views a
gather or scatter-add walks.

The views follow the CPU driver's semantics (NumPy's): ``basic_index`` takes the
core's normalised key, ``diagonal`` is read-only, ``reshape`` copies only where the
layout needs it (and ``copy=False`` then raises).
"""
from ._layout import broadcast_view, c_strides


def permute_dims(x, *, axes):
    return x.view(tuple(x.shape[a] for a in axes), tuple(x.estrides[a] for a in axes),
                  x.offset)


def broadcast_to(x, *, shape):
    return broadcast_view(x, tuple(shape))


def basic_index(x, *, key):
    """A view of ``x`` at the basic index ``key``, as the CPU driver's: ("i", int) |
    ("s", start, stop, step) | ("n",) per entry, applied to the leading axes (the rest
    kept whole)."""
    shape, st = [], []
    off = x.offset
    ax = 0
    for e in key:
        if e[0] == "i":
            i = e[1]
            if i < 0:
                i += x.shape[ax]
            off += i * x.estrides[ax]
            ax += 1
        elif e[0] == "s":
            _, start, stop, step = e
            n = len(range(start, stop, step))
            if n > 0:
                off += start * x.estrides[ax]
            shape.append(n)
            st.append(x.estrides[ax] * step)
            ax += 1
        else:
            shape.append(1)
            st.append(0)
    shape += x.shape[ax:]
    st += x.estrides[ax:]
    return x.view(tuple(shape), tuple(st), off)


def diagonal(x, *, offset, axis1, axis2):
    """A read-only view of ``x``'s diagonal ``offset`` over ``axis1`` and ``axis2``, last."""
    n1, n2 = x.shape[axis1], x.shape[axis2]
    s1, s2 = x.estrides[axis1], x.estrides[axis2]
    if offset >= 0:
        n = max(0, min(n1, n2 - offset))
        off = x.offset + (offset * s2 if n else 0)
    else:
        n = max(0, min(n1 + offset, n2))
        off = x.offset + (-offset * s1 if n else 0)
    keep = [i for i in range(x.ndim) if i not in (axis1, axis2)]
    return x.view(tuple(x.shape[i] for i in keep) + (n,),
                  tuple(x.estrides[i] for i in keep) + (s1 + s2,), off, writeable=False)


def paired(target, idx, axis, along):
    """(target view, index view) over a gather's or scatter's iterated shape: ``take``'s
    ``target.shape[:axis] + idx.shape + target.shape[axis + 1:]``, or (``along``, the
    core has broadcast both off ``axis``) ``idx.shape``.  The target's strides are 0
    along the index dims (the index supplies its position there), the index's 0 along
    the others."""
    if along:
        st = list(target.estrides)
        st[axis] = 0
        return target.view(idx.shape, st, target.offset), idx
    shape = target.shape[:axis] + idx.shape + target.shape[axis + 1:]
    k, rest = idx.ndim, target.ndim - axis - 1
    t = target.view(shape, target.estrides[:axis] + (0,) * k + target.estrides[axis + 1:],
                    target.offset)
    return t, idx.view(shape, (0,) * axis + idx.estrides + (0,) * rest, idx.offset)


def implementations(contiguous_copy, assign, zeros, new):
    """The view primitives and their adjoints for one driver, given its
    ``contiguous_copy(x)``, ``assign(dst, src)`` (through a strided view),
    ``zeros(shape, dtype, device, op)`` and ``new(shape, dtype, device, op)``."""
    def reshape(x, *, shape, copy=None):
        """``x`` in ``shape``: a view where its layout allows (and ``copy`` is not
        true)."""
        shape = tuple(shape)
        if not copy and x.c_contiguous:
            return x.view(shape, c_strides(shape), x.offset)
        if copy is False:
            raise ValueError("tenferro.reshape: cannot reshape a tensor of shape %s and "
                             "strides %s to %s without copying (copy=False)"
                             % (x.shape, x.strides, shape))
        c = contiguous_copy(x)
        return c.view(shape, c_strides(shape), c.offset)

    def basic_index_transpose(ct, *, key, shape):
        out = zeros(shape, ct.dtype, ct.device, "basic_index_transpose")
        assign(basic_index(out, key=key), ct)
        return out

    def diagonal_transpose(ct, *, offset, axis1, axis2, shape):
        out = zeros(shape, ct.dtype, ct.device, "diagonal_transpose")
        view = diagonal(out, offset=offset, axis1=axis1, axis2=axis2)
        view.writeable = True  # distinct elements: safe to write through
        assign(view, ct)
        return out

    def concatenate(*xs, axis):
        shape = list(xs[0].shape)
        shape[axis] = sum(x.shape[axis] for x in xs)
        out = new(tuple(shape), xs[0].dtype, xs[0].device, "concatenate")
        start = 0
        for x in xs:
            n = x.shape[axis]
            key = [("s", 0, m, 1) for m in shape[:axis]] + [("s", start, start + n, 1)]
            assign(basic_index(out, key=key), x)
            start += n
        return out

    return {"reshape": reshape, "permute_dims": permute_dims, "broadcast_to": broadcast_to,
            "basic_index": basic_index, "diagonal": diagonal,
            "basic_index_transpose": basic_index_transpose,
            "diagonal_transpose": diagonal_transpose, "concatenate": concatenate}
