"""The Array API ``fft`` extension over :mod:`tenferro.fft` (which is scipy.fft's).

The standard's signatures: keyword-only ``n``/``axis``/``s``/``axes``/``norm``, ``norm``
defaulting to ``"backward"``, ``fftfreq``/``rfftfreq`` with ``dtype`` and ``device``,
``fftshift``/``ifftshift`` with keyword ``axes``.  The values, dtypes (float32 and
complex64 kept) and derivatives are tenferro.fft's.
"""
from .. import fft as _fft

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft",
           "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def fft(x, /, *, n=None, axis=-1, norm="backward"):
    return _fft.fft(x, n=n, axis=axis, norm=norm)


def ifft(x, /, *, n=None, axis=-1, norm="backward"):
    return _fft.ifft(x, n=n, axis=axis, norm=norm)


def fftn(x, /, *, s=None, axes=None, norm="backward"):
    return _fft.fftn(x, s=s, axes=axes, norm=norm)


def ifftn(x, /, *, s=None, axes=None, norm="backward"):
    return _fft.ifftn(x, s=s, axes=axes, norm=norm)


def rfft(x, /, *, n=None, axis=-1, norm="backward"):
    return _fft.rfft(x, n=n, axis=axis, norm=norm)


def irfft(x, /, *, n=None, axis=-1, norm="backward"):
    return _fft.irfft(x, n=n, axis=axis, norm=norm)


def rfftn(x, /, *, s=None, axes=None, norm="backward"):
    return _fft.rfftn(x, s=s, axes=axes, norm=norm)


def irfftn(x, /, *, s=None, axes=None, norm="backward"):
    return _fft.irfftn(x, s=s, axes=axes, norm=norm)


def hfft(x, /, *, n=None, axis=-1, norm="backward"):
    return _fft.hfft(x, n=n, axis=axis, norm=norm)


def ihfft(x, /, *, n=None, axis=-1, norm="backward"):
    return _fft.ihfft(x, n=n, axis=axis, norm=norm)


def fftfreq(n, /, *, d=1.0, dtype=None, device=None):
    return _fft.fftfreq(n, d, dtype=dtype, device=device)


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None):
    return _fft.rfftfreq(n, d, dtype=dtype, device=device)


def fftshift(x, /, *, axes=None):
    return _fft.fftshift(x, axes=axes)


def ifftshift(x, /, *, axes=None):
    return _fft.ifftshift(x, axes=axes)
