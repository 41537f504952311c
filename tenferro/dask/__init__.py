"""tenferro on Dask: tensor-network contractions sliced over Dask workers, with
gradients (docs/distributed.md).  Needs ``dask`` (and ``distributed`` for a cluster)."""
from ._einsum import einsum
