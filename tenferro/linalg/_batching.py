"""Batching rules (``tenferro.vmap``) of the linalg primitives, registered through the
public :func:`tenferro.autograd.extend.def_batch_rule` like a third party's.

Every linalg primitive takes a leading batch of matrices ``[..., m, n]`` natively, so
the vmapped batch is one more leading dimension: the inputs are given the batch
(unbatched ones broadcast, a view) and the primitive is bound once.  The exceptions:

* ``solve`` of one matrix shared by the whole batch (``a`` not batched, no batch
  dimensions): the right-hand sides become columns of one right-hand side (one LU
  factorization for the batch); a vector ``b`` per example gains a column axis;
* ``vector_norm``: its reduced ``axes`` shift past the batch axis.
"""
from .. import _ops
from ..autograd.extend import bind, def_batch_rule
from ..batching import materialize
from ._eig import eig_gen_p, eig_p, eigvals_gen_p, eigvals_p
from ._eigh import eigh_p, eigvalsh_p
from ._expm import expm_frechet_p, expm_p
from ._lstsq import lstsq_p, pinv_p
from ._lu import det_p, lu_factor_p, lu_permutation_p, lu_solve_p, solve_p
from ._norm import vector_norm_p
from ._qr import qr_p, qr_r_p
from ._svd import svd_p, svdvals_p
from ._triangular import cholesky_p, triangular_solve_p


def leading_batch(prim):
    """The rule of a primitive over leading batch dimensions: one bind on the batch."""
    def rule(args, batched, params, size):
        return bind(prim, tuple(materialize(x, b, size) for x, b in zip(args, batched)),
                    params)
    return def_batch_rule(prim, rule)


for _p in (cholesky_p, triangular_solve_p, eigh_p, eigvalsh_p, svd_p, svdvals_p, lu_factor_p,
           lu_solve_p, det_p, lu_permutation_p, eig_p, eigvals_p, eig_gen_p, eigvals_gen_p,
           qr_p, qr_r_p, lstsq_p, pinv_p, expm_p, expm_frechet_p):
    leading_batch(_p)


def _solve(args, batched, params, size):
    a, b = args
    vec = a.ndim - batched[0] == 2 and b.ndim - batched[1] == 1   # one matrix, one vector
    if not batched[0] and a.ndim == 2:   # one matrix for all: the batch as columns
        n = b.shape[1]
        cols = _ops.reshape(_ops.moveaxis(b, 0, -1 if vec else -2), (n, -1))
        x, lu, piv = bind(solve_p, (a, cols), params)
        x = _ops.reshape(x, (n, size) if vec else (n, size, b.shape[-1]))
        return (_ops.moveaxis(x, 1 if vec else -2, 0), materialize(lu, False, size),
                materialize(piv, False, size))
    a, b = materialize(a, batched[0], size), materialize(b, batched[1], size)
    if vec:   # [B, n, n] and [B, n]: the vectors as one-column matrices
        x, lu, piv = bind(solve_p, (a, _ops.reshape(b, b.shape + (1,))), params)
        return _ops.reshape(x, b.shape), lu, piv
    return bind(solve_p, (a, b), params)


def _vector_norm(args, batched, params, size):
    return bind(vector_norm_p, args, dict(params, axes=tuple(i + 1 for i in params["axes"])))


def_batch_rule(solve_p, _solve)
def_batch_rule(vector_norm_p, _vector_norm)
