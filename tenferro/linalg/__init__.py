"""scipy-style linear algebra with forward and reverse rules, batched, real and complex.

An extension of tenferro: it registers its primitives, kernels and rules through the
public :mod:`tenferro.autograd.extend` API, as a third party would; nothing in the core
names it.  Every op takes NumPy-style leading batch dims [..., M, N]; see
docs/linalg.md for the table of ops, their derivatives and the conventions.
"""
from .._errors import LinAlgError  # noqa: F401
from ..devices.cpu import blas_kernels as _blas_kernels

_blas_kernels.load()   # before the modules below import _lapack: it sets _lapack up
from ._triangular import cholesky, cho_factor, cho_solve, solve_triangular  # noqa: F401
from ._eigh import eigh, eigvalsh  # noqa: F401
from ._eig import eig, eigvals  # noqa: F401
from ._lu import lu, lu_factor, lu_solve, solve, inv, det, slogdet  # noqa: F401
from ._qr import qr  # noqa: F401
from ._svd import svd, svdvals  # noqa: F401
from ._lstsq import lstsq, pinv  # noqa: F401
from ._expm import expm, expm_frechet, matrix_power  # noqa: F401
from ._norm import norm  # noqa: F401
from . import _batching  # noqa: F401  (vmap's rules of the primitives above)

__all__ = ["LinAlgError", "cholesky", "cho_factor", "cho_solve", "solve_triangular", "eigh",
           "eigvalsh", "eig", "eigvals", "lu", "lu_factor", "lu_solve", "solve", "inv", "det",
           "slogdet", "qr", "svd", "svdvals", "lstsq", "pinv", "expm", "expm_frechet",
           "matrix_power", "norm"]
