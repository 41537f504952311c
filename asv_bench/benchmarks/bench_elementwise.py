"""Elementwise benchmarks: tenferro beside NumPy and PyTorch (2 threads each).

Memory-bound binary ops on 1e7 float64, an eager unfused ``x*y + sin(x)``, unary
transcendental functions on 1e6 float32/float64, and the per-call overhead of a
3-element add (dominated by dispatch, not arithmetic).
"""
from .common import LIBS, convert, empty_like, get_array, module, set_threads, sync

N_BIG = 10_000_000
N_UNARY = 1_000_000


class BinaryAdd:
    """``x + y`` on 1e7 float64: fresh output, and into a preallocated ``out``."""

    params = [LIBS, ["fresh", "out"]]
    param_names = ["lib", "output"]
    timeout = 120

    def setup(self, lib, output):
        set_threads()
        self.xp = module(lib)
        self.lib = lib
        self.x = convert(get_array(N_BIG, "float64", seed=1), lib)
        self.y = convert(get_array(N_BIG, "float64", seed=2), lib)
        if output == "out":
            self.o = empty_like(self.x, lib)

    def time_add(self, lib, output):
        if output == "out":
            sync(self.xp.add(self.x, self.y, out=self.o), lib)
        else:
            sync(self.x + self.y, lib)


class MulAddSin:
    """``x*y + sin(x)`` on 1e7 float64, eager (three kernels, two temporaries)."""

    params = [LIBS]
    param_names = ["lib"]
    timeout = 120

    def setup(self, lib):
        set_threads()
        self.xp = module(lib)
        self.lib = lib
        self.x = convert(get_array(N_BIG, "float64", seed=1), lib)
        self.y = convert(get_array(N_BIG, "float64", seed=2), lib)

    def time_mul_add_sin(self, lib):
        x, y = self.x, self.y
        sync(x * y + self.xp.sin(x), self.lib)


class Unary:
    """exp / sin / tanh on 1e6 elements."""

    params = [LIBS, ["exp", "sin", "tanh"], ["float32", "float64"]]
    param_names = ["lib", "func", "dtype"]

    def setup(self, lib, func, dtype):
        set_threads()
        self.f = getattr(module(lib), func)
        self.lib = lib
        self.x = convert(get_array(N_UNARY, dtype, seed=3), lib)

    def time_unary(self, lib, func, dtype):
        sync(self.f(self.x), self.lib)


class TinyAdd:
    """Per-call cost of ``x + y`` on 3-element float64 (dispatch overhead)."""

    params = [LIBS, ["operator", "function"]]
    param_names = ["lib", "spelling"]

    def setup(self, lib, spelling):
        set_threads()
        self.add = module(lib).add
        self.lib = lib
        self.x = convert(get_array(3, "float64", seed=4), lib)
        self.y = convert(get_array(3, "float64", seed=5), lib)

    def time_tiny_add(self, lib, spelling):
        if spelling == "operator":
            self.x + self.y
        else:
            self.add(self.x, self.y)
