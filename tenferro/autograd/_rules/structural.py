"""JVP and VJP rules of the structural primitives: reductions and scans, views, gathers
and scatters, concatenation and matmul.

Every rule is written with tenferro ops (public ops or ``bind`` of primitives), so the
rules differentiate again.  None branches on data: the same code runs eagerly and on
tracers (cumprod and prod stay exact at zeros through division-free formulas).
"""
from ... import _dtypes
from ... import _ops
from ..._primitive import bind
from ..._ops._common import numel
from ..._ops.reduction import (sum_p, prod_p, max_p, min_p, cumsum_p, cumprod_p)
from ..._ops.shape import (reshape_p, permute_dims_p, broadcast_to_p, basic_index_p,
                           diagonal_p, basic_index_transpose_p, diagonal_transpose_p)
from ..._ops.indexing import (take_p, take_along_axis_p, scatter_add_p,
                              scatter_add_along_axis_p)
from ..._ops.joining import concatenate_p
from ..._ops.matmul import matmul_p
from ..extend import def_jvp_rule, def_vjp_rule, defjvp, defvjp, deflinear
from ._util import conj, expand_to, unbroadcast


# -- helpers ---------------------------------------------------------------------------

def _fit(g, x):
    """``g`` with ``x``'s dtype (the real part for a real ``x``; shapes already agree)."""
    if g.dtype != x.dtype:
        if g.dtype.kind == "c" and x.dtype.kind != "c":
            g = _ops.real(g)
        if g.dtype != x.dtype:
            g = _ops.astype(g, x.dtype)
    return g


def _slice(x, axis, start, stop):
    """``x[..., start:stop, ...]`` along ``axis`` (a basic_index view)."""
    key = tuple(("s", start, stop, 1) if i == axis else ("s", 0, n, 1)
                for i, n in enumerate(x.shape))
    return bind(basic_index_p, (x,), {"key": key})


def _fill(x, axis, n, value):
    """A tensor like ``x`` with ``n`` along ``axis``, filled with ``value``."""
    shape = x.shape[:axis] + (n,) + x.shape[axis + 1:]
    return _ops.full_like(x, value, shape=shape)


def _shift(x, axis, d, reverse=False):
    """``x`` moved ``d`` places along ``axis`` (towards higher indices, or lower ones if
    ``reverse``), zeros shifted in."""
    n = x.shape[axis]
    if d >= n:
        return _ops.zeros_like(x)
    z = _fill(x, axis, d, 0)
    if reverse:
        return bind(concatenate_p, (_slice(x, axis, d, n), z), {"axis": axis})
    return bind(concatenate_p, (z, _slice(x, axis, 0, n - d)), {"axis": axis})


def _exclusive_cumprod(x, axis):
    """``[1, x0, x0 x1, ..., x0 ... x(n-2)]`` along ``axis`` (no division: exact at 0)."""
    n = x.shape[axis]
    if n <= 1:
        return _ops.ones_like(x)
    y = bind(concatenate_p, (_fill(x, axis, 1, 1), _slice(x, axis, 0, n - 1)), {"axis": axis})
    return _ops.cumprod(y, axis=axis)


def _linear_scan(a, u, axis, reverse=False):
    """``s`` with ``s[j] = u[j] + a[j] * s[j-1]`` along ``axis`` (``s[-1] = 0``); with
    ``reverse``, ``s[j] = u[j] + a[j] * s[j+1]``.  Hillis-Steele doubling: log2(n) steps of
    elementwise work, no division, so it is exact where ``a`` has zeros and it
    differentiates as a polynomial."""
    n = u.shape[axis]
    d = 1
    while d < n:  # invariant: s[j] = u[j] + a[j] * s[j -+ d]
        u = u + a * _shift(u, axis, d, reverse)
        if 2 * d < n:
            a = a * _shift(a, axis, d, reverse)
        d *= 2
    return u


def _inverse_perm(axes):
    inv = [0] * len(axes)
    for i, a in enumerate(axes):
        inv[a] = i
    return tuple(inv)


def _matrix_transpose(x):
    axes = tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2)
    return bind(permute_dims_p, (x,), {"axes": axes})


# -- reductions ------------------------------------------------------------------------

# JAX lax.py _reduce_sum_transpose_rule (sum is linear; its transpose broadcasts back)
deflinear(sum_p, lambda ct, x, *, out, axes, out_dtype:
          _fit(expand_to(ct, x.shape, axes), x))


def _prod_others(x, axes):
    """``prod over axes of x, all but the element itself``, with ``x``'s shape: the
    derivative of prod, exact where ``x`` has zeros (one or several)."""
    if x.size == 0:
        return _ops.zeros_like(x)
    if not axes:
        return _ops.ones_like(x)
    keep = [i for i in range(x.ndim) if i not in axes]
    perm = tuple(keep) + tuple(axes)
    y = bind(permute_dims_p, (x,), {"axes": perm}) if perm != tuple(range(x.ndim)) else x
    pshape = y.shape
    lead = pshape[:len(keep)]
    y = _ops.reshape(y, lead + (numel(x.shape[a] for a in axes),))
    left = _exclusive_cumprod(y, y.ndim - 1)
    right = _ops.flip(_exclusive_cumprod(_ops.flip(y, axis=-1), y.ndim - 1), axis=-1)
    o = _ops.reshape(left * right, pshape)
    if perm != tuple(range(x.ndim)):
        o = bind(permute_dims_p, (o,), {"axes": _inverse_perm(perm)})
    return o


# PyTorch FunctionsManual.cpp prod_safe_zeros_backward (JVP: its transpose)
defjvp(prod_p, lambda t, x, *, out, axes, out_dtype:
       _fit(_ops.sum(t * _prod_others(x, axes), axis=axes), out))
# PyTorch FunctionsManual.cpp prod_backward / prod_safe_zeros_backward
defvjp(prod_p, lambda ct, x, *, out, axes, out_dtype:
       _fit(expand_to(ct, x.shape, axes) * conj(_prod_others(x, axes)), x))


def _chooser_mask(x, out, axes):
    """(positions equal to the extremum as 0/1 of x's real dtype, their count); a NaN
    extremum is matched by the NaN positions (the gradient goes to them, as the binary
    maximum's goes to its NaN operand, instead of being 0/0 everywhere)."""
    rd = _dtypes.real_dtype(x.dtype) if x.dtype.kind == "c" else x.dtype
    o = expand_to(out, x.shape, axes)
    hit = _ops.logical_or(_ops.equal(x, o), _ops.logical_and(_ops.isnan(x), _ops.isnan(o)))
    mask = _ops.astype(hit, rd)
    return mask, _ops.sum(mask, axis=axes)


def _chooser_jvp(t, x, *, out, axes, out_dtype):
    mask, count = _chooser_mask(x, out, axes)
    return _fit(_ops.sum(t * mask, axis=axes) / count, out)


def _chooser_vjp(ct, x, *, out, axes, out_dtype):
    mask, count = _chooser_mask(x, out, axes)
    return _fit(expand_to(ct / count, x.shape, axes) * mask, x)


# JAX lax.py _reduce_chooser_jvp_rule (ties share the tangent evenly)
defjvp(max_p, _chooser_jvp)
defjvp(min_p, _chooser_jvp)
# PyTorch FunctionsManual.cpp scale_grad_by_count (amax/amin backward: ties split evenly)
defvjp(max_p, _chooser_vjp)
defvjp(min_p, _chooser_vjp)


# PyTorch FunctionsManual.cpp cumsum_backward (reversed cumsum of the cotangent)
deflinear(cumsum_p, lambda ct, x, *, out, axis, out_dtype:
          _fit(_ops.flip(_ops.cumsum(_ops.flip(ct, axis=axis), axis=axis), axis=axis), x))


def _cumprod_jvp(t, x, *, out, axis, out_dtype):
    # dy[j] = x[j] dy[j-1] + t[j] prod(x[:j])  (product rule on y[j] = y[j-1] x[j])
    return _fit(_linear_scan(x, t * _exclusive_cumprod(x, axis), axis), out)


def _cumprod_vjp(ct, x, *, out, axis, out_dtype):
    # dx[k] = sum_{j>=k} ct[j] conj(prod_{i<=j, i!=k} x[i])
    #       = conj(prod(x[:k])) * s[k],  s[k] = ct[k] + conj(x[k+1]) s[k+1]
    if x.shape[axis] <= 1:
        return _fit(ct, x)
    xc = conj(x)
    s = _linear_scan(_shift(xc, axis, 1, reverse=True), ct, axis, reverse=True)
    return _fit(conj(_exclusive_cumprod(x, axis)) * s, x)


# PyTorch FunctionsManual.cpp cumprod_jvp (the same derivative, as a division-free scan)
defjvp(cumprod_p, _cumprod_jvp)
# PyTorch cumprod_backward (aten ReductionOps.cpp, formerly FunctionsManual.cpp) formula
# (2), dy_j/dx_k = prod_{i<=j,i!=k} x_i, evaluated by a division-free scan instead of its
# data-dependent branches: exact with zeros, differentiable to any order, traceable
defvjp(cumprod_p, _cumprod_vjp)


# -- shape ops ---------------------------------------------------------------------------

# JAX lax.py _reshape_transpose_rule
defjvp(reshape_p, lambda t, x, *, out, shape, copy: _ops.reshape(t, shape))
defvjp(reshape_p, lambda ct, x, *, out, shape, copy: _fit(_ops.reshape(ct, x.shape), x))

# JAX lax.py _transpose_transpose_rule (the inverse permutation)
deflinear(permute_dims_p, lambda ct, x, *, out, axes:
          _fit(bind(permute_dims_p, (ct,), {"axes": _inverse_perm(axes)}), x))

# JAX lax.py _broadcast_in_dim_transpose_rule (sum over the broadcast axes)
deflinear(broadcast_to_p, lambda ct, x, *, out, shape: _fit(unbroadcast(ct, x.shape), x))

# JAX lax slicing.py _slice_transpose_rule (zeros with the cotangent in the slice)
deflinear(basic_index_p, lambda ct, x, *, out, key:
          _fit(bind(basic_index_transpose_p, (ct,), {"key": key, "shape": x.shape}), x))
# JAX lax.py _pad_transpose (the transpose of "zeros with a slice written" is the slice)
deflinear(basic_index_transpose_p, lambda ct, x, *, out, key, shape:
          _fit(bind(basic_index_p, (ct,), {"key": key}), x))

# PyTorch FunctionsManual.cpp diagonal_backward_symint (zeros with the diagonal written)
deflinear(diagonal_p, lambda ct, x, *, out, offset, axis1, axis2:
          _fit(bind(diagonal_transpose_p, (ct,), {"offset": offset, "axis1": axis1,
                                                  "axis2": axis2, "shape": x.shape}), x))
# PyTorch derivatives.yaml diagonal_backward: grad_output.diagonal(offset, dim1, dim2)
deflinear(diagonal_transpose_p, lambda ct, x, *, out, offset, axis1, axis2, shape:
          _fit(bind(diagonal_p, (ct,), {"offset": offset, "axis1": axis1, "axis2": axis2}), x))


# -- gathers and scatters ------------------------------------------------------------------

def _linear_in_first(prim, transpose):
    """A primitive linear in its first argument, the second an index (no derivative)."""
    defjvp(prim, lambda t, x, idx, *, out, **p: _fit(bind(prim, (t, idx), p), out), None)
    defvjp(prim, transpose, None)


# JAX lax slicing.py _gather_transpose_rule (scatter-add of the cotangent)
_linear_in_first(take_p, lambda ct, x, idx, *, out, axis:
                 _fit(bind(scatter_add_p, (ct, idx), {"axis": axis, "shape": x.shape}), x))
# PyTorch derivatives.yaml take_along_dim / gather: grad.new_zeros().scatter_add(...)
_linear_in_first(take_along_axis_p, lambda ct, x, idx, *, out, axis:
                 _fit(bind(scatter_add_along_axis_p, (ct, idx),
                           {"axis": axis, "shape": x.shape}), x))
# JAX lax slicing.py _scatter_add_transpose_rule (a gather of the cotangent)
_linear_in_first(scatter_add_p, lambda ct, v, idx, *, out, axis, shape:
                 _fit(bind(take_p, (ct, idx), {"axis": axis}), v))
# PyTorch derivatives.yaml scatter_add: src: grad.gather(dim, index)
_linear_in_first(scatter_add_along_axis_p, lambda ct, v, idx, *, out, axis, shape:
                 _fit(bind(take_along_axis_p, (ct, idx), {"axis": axis}), v))


# -- concatenate ---------------------------------------------------------------------------

def _concatenate_jvp(tangents, primals, out, params):
    # PyTorch FunctionsManual.cpp cat_jvp (zero tangents instantiated)
    if all(t is None for t in tangents):
        return None
    ts = tuple(_ops.zeros_like(x, dtype=out.dtype) if t is None else _fit(t, out)
               for t, x in zip(tangents, primals))
    return bind(concatenate_p, ts, params)


def _concatenate_vjp(ct, primals, out, params, needs):
    # JAX lax.py _concatenate_transpose_rule (slices of the cotangent)
    axis = params["axis"]
    res = []
    start = 0
    for x, need in zip(primals, needs):
        n = x.shape[axis]
        res.append(_fit(_slice(ct, axis, start, start + n), x) if need else None)
        start += n
    return tuple(res)


def_jvp_rule(concatenate_p, _concatenate_jvp)
def_vjp_rule(concatenate_p, _concatenate_vjp)


# -- matmul ----------------------------------------------------------------------------------

# JAX lax.py dot_general_p, ad.defbilinear (the product rule)
defjvp(matmul_p,
       lambda ta, a, b, *, out: bind(matmul_p, (_fit(ta, a), b), {}),
       lambda tb, a, b, *, out: bind(matmul_p, (a, _fit(tb, b)), {}))
# PyTorch FunctionsManual.cpp mm_mat1_backward / mm_mat2_backward (ct @ b^H, a^H @ ct)
defvjp(matmul_p,
       lambda ct, a, b, *, out: _fit(bind(matmul_p, (_fit(ct, a), _matrix_transpose(conj(b))),
                                          {}), a),
       lambda ct, a, b, *, out: _fit(bind(matmul_p, (_matrix_transpose(conj(a)), _fit(ct, b)),
                                          {}), b))
