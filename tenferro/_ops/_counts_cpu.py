"""Values-only counting primitives, ``bincount`` and ``histogram_counts``, and their
CPU implementations (NumPy's ``bincount`` and ``histogram`` on the CPU driver's
ndarrays): one pass over the data where the differentiable compositions of
tenferro/_ops/statistics.py take a dozen elementwise ops and a ``scatter_add``.

Both count (no weights), so their integer results are those of the compositions
exactly; ``statistics`` binds them only for tensors outside autodiff and tracing on a
device implementing them (``_order_cpu.plain``), so they are never traced.
"""
import numpy as np

from .. import _dtypes
from .._primitive import Primitive, def_impl

_REASON = "integer counts, bound only for tensors outside autodiff"

bincount_p = Primitive(      # (no abstract evaluation: its length depends on the data)
    "bincount", None, differentiable=False, nondiff_reason=_REASON,
    doc="Occurrences (int64) of each value of the non-negative int64 1-D ``x``, at least "
        "``minlength`` of them.")
histogram_counts_p = Primitive(
    "histogram_counts", lambda a, *, bins, range: ((bins,), _dtypes.int64),
    differentiable=False, nondiff_reason=_REASON,
    doc="Counts (int64) of the 1-D ``a`` in ``bins`` equal-width bins over ``range`` "
        "(NumPy's ``histogram``: the last bin closed, values outside and NaN dropped).")


def _bincount_cpu(x, *, minlength):
    try:
        r = np.bincount(x, minlength=minlength)
    except ValueError:   # (minlength was checked: a negative element)
        raise ValueError("tenferro.bincount: x must have no negative elements") from None
    return r.astype(np.int64, copy=False)


def _histogram_counts_cpu(a, *, bins, range):
    return np.histogram(a, bins=bins, range=range)[0].astype(np.int64, copy=False)


def_impl(bincount_p, "cpu", _bincount_cpu)
def_impl(histogram_counts_p, "cpu", _histogram_counts_cpu)
