"""Reductions and scans: tenferro beside NumPy and PyTorch (2 threads each)."""
from .common import LIBS, axis_kw, convert, get_array, module, set_threads, sync

SHAPE = (4000, 4000)


class Sum:
    """Full, axis-0 and axis-1 sums of a 4000x4000 float64 matrix."""

    params = [LIBS, ["all", "0", "1"]]
    param_names = ["lib", "axis"]

    def setup(self, lib, axis):
        set_threads()
        self.xp = module(lib)
        self.lib = lib
        self.x = convert(get_array(SHAPE, "float64", seed=6), lib)
        self.kw = axis_kw(lib, None if axis == "all" else int(axis))

    def time_sum(self, lib, axis):
        sync(self.xp.sum(self.x, **self.kw), self.lib)


class MaxArgmax:
    """max (amax) and argmax of a 4000x4000 float64 matrix, full and along axes 0 and 1."""

    params = [LIBS, ["max", "argmax"], ["all", "0", "1"]]
    param_names = ["lib", "func", "axis"]

    def setup(self, lib, func, axis):
        set_threads()
        xp = module(lib)
        self.lib = lib
        # torch.max(x, dim) also returns indices; amax is the values-only reduction.
        self.f = getattr(xp, "amax" if func == "max" else "argmax")
        self.x = convert(get_array(SHAPE, "float64", seed=7), lib)
        self.kw = axis_kw(lib, None if axis == "all" else int(axis))

    def time_reduce(self, lib, func, axis):
        sync(self.f(self.x, **self.kw), self.lib)


class Cumsum:
    """cumsum of 1e6 float64."""

    params = [LIBS]
    param_names = ["lib"]

    def setup(self, lib):
        set_threads()
        self.xp = module(lib)
        self.lib = lib
        self.x = convert(get_array(1_000_000, "float64", seed=8), lib)
        self.kw = axis_kw(lib, 0)

    def time_cumsum(self, lib):
        sync(self.xp.cumsum(self.x, **self.kw), self.lib)
