"""NumPy's protocols for tensors: ``__array_function__`` (NEP 18) and
``__array_ufunc__`` (NEP 13), attached to Tensor from here (the top layer, as they
reach every layer's functions: tenferro.linalg's among them).

``np.stack``, ``np.sum``, ``np.linalg.solve``, ``np.sin``, ... on tensors run tenferro's
own, differentiable implementation when it has one (:mod:`._functions`,
:mod:`._ufuncs`); everything else is computed by NumPy on the tensors' host data,
explicitly (:mod:`._host`: CPU tensors back, a TypeError for a tensor that requires grad
or lives on another device).  See docs/tensors.md, "NumPy interoperability".
"""
from .._tensor import Tensor
from ._functions import array_function, twin  # noqa: F401
from ._ufuncs import array_ufunc, ufunc_twin  # noqa: F401

for _name, _fn in (("__array_function__", array_function), ("__array_ufunc__", array_ufunc)):
    _fn.__qualname__ = "Tensor." + _name
    setattr(Tensor, _name, _fn)
