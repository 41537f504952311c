"""tenferro on Dask (docs/distributed.md): tenferro tensors as dask.array chunks and
dask.distributed messages (``_chunks``), and tensor-network contractions sliced over
Dask workers, with gradients (:func:`einsum`).  Needs ``dask`` (and ``distributed`` for
a cluster): ``pip install tenferro[dask]``; importing this package imports dask.array."""
from . import _chunks  # noqa: F401  (registers tenferro's chunk type with dask)
from ._einsum import einsum  # noqa: F401

__all__ = ["einsum"]
