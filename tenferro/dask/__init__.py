"""tenferro on Dask (docs/distributed.md): tenferro tensors as dask.array chunks and
dask.distributed messages (``_chunks``), tensor-network contractions sliced over Dask
workers, with gradients (:func:`einsum`), and one function mapped over batches of
arguments, compiled once per worker (:func:`map`).  Needs ``dask`` (and ``distributed``
for a cluster): ``pip install tenferro[dask]``; importing this package imports
dask.array."""
from . import _chunks  # noqa: F401  (registers tenferro's chunk type with dask)
from ._einsum import einsum  # noqa: F401
from ._map import map  # noqa: F401,A001  (tenferro.dask.map, as dask.bag.map)

__all__ = ["einsum", "map"]
