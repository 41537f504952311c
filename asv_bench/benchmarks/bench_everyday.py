"""The everyday functions (sort, unique, order statistics, roll, joins, calculus,
counting):
tenferro beside NumPy at 100, 1e4 and 1e6 float64 elements (2 threads for tenferro).

PyTorch is left out: several of these have no torch twin of the same semantics
(NumPy's quantile methods, histogram's edges, unique's NaN handling).
asv_bench/compare_everyday.py prints the same cases as a table without asv.
"""
import numpy as np

from .common import convert, get_array, module, set_threads

LIBS = ["tenferro", "numpy"]
SIZES = [100, 10_000, 1_000_000]


class _Everyday:
    params = [LIBS, SIZES]
    param_names = ["lib", "n"]

    def setup(self, lib, n):
        set_threads()
        self.xp = module(lib)
        self.x = convert(get_array(n, "float64", seed=11), lib)


class Sorting(_Everyday):
    """sort, argsort (stable), unique and searchsorted of n values in n sorted ones."""

    def setup(self, lib, n):
        super().setup(lib, n)
        self.sorted = convert(np.sort(get_array(n, "float64", seed=12)), lib)

    def time_sort(self, lib, n):
        self.xp.sort(self.x)

    def time_argsort_stable(self, lib, n):
        self.xp.argsort(self.x, kind="stable")

    def time_unique(self, lib, n):
        self.xp.unique(self.x)

    def time_searchsorted(self, lib, n):
        self.xp.searchsorted(self.sorted, self.x)


class OrderStatistics(_Everyday):
    """median, quantile, percentile of three q, nanmedian."""

    def time_median(self, lib, n):
        self.xp.median(self.x)

    def time_quantile(self, lib, n):
        self.xp.quantile(self.x, 0.3)

    def time_percentile(self, lib, n):
        self.xp.percentile(self.x, [10.0, 50.0, 90.0])

    def time_nanmedian(self, lib, n):
        self.xp.nanmedian(self.x)


class Structural(_Everyday):
    """roll, diff, concatenate and stack of four pieces, np.stack on the library's arrays
    (tensors: NumPy's __array_function__), the other joins of four pieces, one element
    before n."""

    def setup(self, lib, n):
        super().setup(lib, n)
        self.parts = [convert(get_array(max(n // 4, 1), "float64", seed=s), lib)
                      for s in range(4)]

    def time_roll(self, lib, n):
        self.xp.roll(self.x, 1)

    def time_diff(self, lib, n):
        self.xp.diff(self.x)

    def time_concatenate(self, lib, n):
        self.xp.concatenate(self.parts)

    def time_stack(self, lib, n):
        self.xp.stack(self.parts)

    def time_np_stack(self, lib, n):
        np.stack(self.parts)

    def time_stack_last_axis(self, lib, n):
        self.xp.stack(self.parts, axis=-1)

    def time_vstack(self, lib, n):
        self.xp.vstack(self.parts)

    def time_hstack(self, lib, n):
        self.xp.hstack(self.parts)

    def time_column_stack(self, lib, n):
        self.xp.column_stack(self.parts)

    def time_concatenate_one_before(self, lib, n):
        self.xp.concatenate([self.x[:1], self.x])


class Calculus(_Everyday):
    """trapezoid (dx=1 and sample points), cumsum, interp of n points among n."""

    def setup(self, lib, n):
        super().setup(lib, n)
        self.grid = convert(np.cumsum(np.random.default_rng(14).random(n)), lib)
        self.fp = convert(get_array(n, "float64", seed=15), lib)

    def time_trapezoid(self, lib, n):
        self.xp.trapezoid(self.x)

    def time_trapezoid_x(self, lib, n):
        self.xp.trapezoid(self.x, self.grid)

    def time_cumsum(self, lib, n):
        self.xp.cumsum(self.x)

    def time_interp(self, lib, n):
        self.xp.interp(self.x, self.grid, self.fp)


class Counting(_Everyday):
    """histogram (10 equal-width bins) and bincount of integers below 1000."""

    def setup(self, lib, n):
        super().setup(lib, n)
        self.ints = convert(np.random.default_rng(13).integers(0, 1000, n), lib)

    def time_histogram(self, lib, n):
        self.xp.histogram(self.x)

    def time_bincount(self, lib, n):
        self.xp.bincount(self.ints)
