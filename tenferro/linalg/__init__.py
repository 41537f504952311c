"""scipy-style linear algebra with forward and reverse rules, batched, real and complex.

An extension of tenferro: it registers its primitives, kernels and rules through the
public :mod:`tenferro.autograd.extend` API, as a third party would; nothing in the core
names it.  Status (issue 5, in progress): ``cholesky``, ``cho_factor``, ``cho_solve``,
``solve_triangular``, ``eigh``, ``eigvalsh``, ``lu_factor``, ``lu_solve``, ``solve``,
``inv``, ``det``, ``slogdet``, ``svd`` and ``svdvals`` are here; the rest of
scipy.linalg's list follows (docs/linalg.md).
"""
from .._errors import LinAlgError  # noqa: F401
from ._triangular import cholesky, cho_factor, cho_solve, solve_triangular  # noqa: F401
from ._eigh import eigh, eigvalsh  # noqa: F401
from ._lu import lu_factor, lu_solve, solve, inv, det, slogdet  # noqa: F401
from ._svd import svd, svdvals  # noqa: F401

__all__ = ["LinAlgError", "cholesky", "cho_factor", "cho_solve", "solve_triangular", "eigh",
           "eigvalsh", "lu_factor", "lu_solve", "solve", "inv", "det", "slogdet", "svd",
           "svdvals"]
