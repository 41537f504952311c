"""scipy.fft's discrete Fourier, cosine and sine transforms, differentiable, batched over
the axes not transformed, float32/complex64 kept in single precision.

An extension of tenferro like :mod:`tenferro.linalg`: four primitives (``fft.c2c``,
``fft.r2c``, ``fft.c2r``, ``fft.r2r``) registered through the public
:mod:`tenferro.autograd.extend` API, whose CPU kernels are scipy.fft's pocketfft and
whose JVP and VJP rules are the transforms' exact linear maps and adjoints.  Other
devices raise :class:`tenferro.UnsupportedOperation`.  See docs/fft.md for the table of
functions, the dtype rules and the derivative conventions.
"""
from ._basic import (fft, ifft, fft2, ifft2, fftn, ifftn, rfft, irfft, rfft2, irfft2,  # noqa
                     rfftn, irfftn, hfft, ihfft, hfft2, ihfft2, hfftn, ihfftn)
from ._realtransforms import dct, idct, dst, idst, dctn, idctn, dstn, idstn  # noqa: F401
from ._helper import (fftfreq, rfftfreq, fftshift, ifftshift, next_fast_len,  # noqa: F401
                      prev_fast_len)
from . import _batching  # noqa: F401  (vmap's rules of the four primitives)

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2",
           "irfft2", "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn",
           "ihfftn", "dct", "idct", "dst", "idst", "dctn", "idctn", "dstn", "idstn",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift", "next_fast_len", "prev_fast_len"]

from ._docs import document as _document  # noqa: E402
_document(globals())   # the transforms' numpydoc docstrings, one template per family
