"""tenferro on Dask (docs/distributed.md): tenferro tensors as dask.array chunks and
dask.distributed messages (``_chunks``).  Importing this package imports dask.array."""
from . import _chunks  # noqa: F401  (registers tenferro's chunk type with dask)
