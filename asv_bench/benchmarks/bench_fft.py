"""FFTs: ``tenferro.fft`` beside ``scipy.fft`` (the same pocketfft; the same thread count,
``workers=N_THREADS`` for scipy and ``set_num_threads(N_THREADS)`` for tenferro) and
``torch.fft``.

The cases of the issue (a 2^20-point complex128 FFT; a batch of 4096 rfft of length
256), their inverses, a 2-D case and the forward + backward of ``sum(|rfft(x)|^2)``.
The workloads are built by :func:`make` (also used by ``asv_bench/compare_fft.py``).
"""
import numpy as np

from .common import (N_THREADS, FactoryBench, backward_runner, get_array, sync,
                     torch_or_none)

FFT_LIBS = ["tenferro", "scipy", "torch"]

# name -> (function, input dtype, input shape, keywords)
CASES = {
    "fft 2^20 complex128": ("fft", "complex128", (2 ** 20,), {}),
    "rfft 4096x256 float64": ("rfft", "float64", (4096, 256), {}),
    "irfft 4096x129 complex128": ("irfft", "complex128", (4096, 129), {}),
    "fft2 512x512 complex128": ("fft2", "complex128", (512, 512), {}),
    "dct 4096x256 float64": ("dct", "float64", (4096, 256), {}),
    "rfft 4096x256 float32": ("rfft", "float32", (4096, 256), {}),
}
GRAD_CASES = {
    "sum |rfft|^2 4096x256: fwd+bwd": ("float64", (4096, 256)),
}


def data(dtype, shape):
    """The seeded input of a case (read-only NumPy array)."""
    x = get_array(shape, "float64", "normal", seed=41)
    if dtype.startswith("complex"):
        x = x + 1j * get_array(shape, "float64", "normal", seed=43)
    x = np.ascontiguousarray(x.astype(dtype))
    x.setflags(write=False)
    return x


def make(lib, case):
    """A zero-argument callable running ``case`` with ``lib`` (NotImplementedError when
    ``lib`` is not installed or has no such case)."""
    if case in GRAD_CASES:
        return _make_grad(lib, *GRAD_CASES[case])
    fn, dtype, shape, kw = CASES[case]
    x = data(dtype, shape)
    if lib == "scipy":
        import scipy.fft as sf

        return lambda: getattr(sf, fn)(x, workers=N_THREADS, **kw)
    if lib == "tenferro":
        import tenferro as tf
        import tenferro.fft as tfft

        t = tf.asarray(x)
        return lambda: getattr(tfft, fn)(t, **kw)   # workers: tenferro's thread count
    if lib == "torch":
        torch = torch_or_none()
        if torch is None:
            raise NotImplementedError("PyTorch is not installed")
        if fn == "dct":
            raise NotImplementedError("torch.fft has no DCT")
        t = torch.from_numpy(np.array(x))
        return lambda: getattr(torch.fft, fn)(t, **kw)
    raise ValueError(lib)


def _make_grad(lib, dtype, shape):
    x = np.array(data(dtype, shape))
    if lib == "tenferro":
        import tenferro as tf
        import tenferro.fft as tfft

        t = tf.tensor(x, requires_grad=True)

        def loss():
            return tf.sum(tf.abs(tfft.rfft(t)) ** 2)
    elif lib == "torch":
        torch = torch_or_none()
        if torch is None:
            raise NotImplementedError("PyTorch is not installed")
        t = torch.from_numpy(x).requires_grad_()

        def loss():
            return (torch.fft.rfft(t).abs() ** 2).sum()
    else:
        raise NotImplementedError("%s has no reverse mode" % lib)
    return backward_runner(t, loss)


class FFT(FactoryBench):
    params = [FFT_LIBS, list(CASES) + list(GRAD_CASES)]
    make = staticmethod(make)

    def time_fft(self, lib, case):
        sync(self.fn(), self.lib)
