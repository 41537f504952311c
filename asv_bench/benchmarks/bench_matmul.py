"""Matrix products: tenferro beside NumPy and PyTorch (2 threads each).

tenferro and NumPy float64 both go to BLAS, except tiny products in a batch (tenferro's
own loop, unrolled for 2x2x2 to 4x4x4); int32/int64 use tenferro's own blocked,
register-tiled kernel (NumPy's is a naive loop, PyTorch's a generic one).
"""
from .common import LIBS, convert, get_array, set_threads, sync

# name -> (shape of a, shape of b, dtype, kind)
CASES = {
    "f64_1000x1000x1000": ((1000, 1000), (1000, 1000), "float64", "normal"),
    "f64_batch64_128^3": ((64, 128, 128), (64, 128, 128), "float64", "normal"),
    "f64_batch10000_4^3": ((10000, 4, 4), (10000, 4, 4), "float64", "normal"),
    "f64_batch10000_3^3": ((10000, 3, 3), (10000, 3, 3), "float64", "normal"),
    "f32_batch10000_4^3": ((10000, 4, 4), (10000, 4, 4), "float32", "normal"),
    "i64_256^3": ((256, 256), (256, 256), "int64", "int"),
    "i32_256^3": ((256, 256), (256, 256), "int32", "int"),
}


class Matmul:
    params = [LIBS, list(CASES)]
    param_names = ["lib", "case"]
    timeout = 180

    def setup(self, lib, case):
        set_threads()
        sa, sb, dtype, kind = CASES[case]
        self.lib = lib
        self.a = convert(get_array(sa, dtype, kind, seed=9), lib)
        self.b = convert(get_array(sb, dtype, kind, seed=10), lib)

    def time_matmul(self, lib, case):
        sync(self.a @ self.b, self.lib)
