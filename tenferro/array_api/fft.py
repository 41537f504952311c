"""The Array API ``fft`` extension over :mod:`tenferro.fft` (which is scipy.fft's).

The standard's signatures: keyword-only ``n``/``axis``/``s``/``axes``/``norm``, ``norm``
defaulting to ``"backward"``, ``fftfreq``/``rfftfreq`` with ``dtype`` and ``device``,
``fftshift``/``ifftshift`` with keyword ``axes``.  The values, dtypes (float32 and
complex64 kept) and derivatives are tenferro.fft's.  The annotations are the standard's
(its ``array`` is :class:`tenferro.Tensor`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import fft as _fft

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Literal

    from .._tensor import DeviceLike, DTypeLike, Tensor

    Norm = Literal["backward", "ortho", "forward"]

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft",
           "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def fft(x: Tensor, /, *, n: int | None = None, axis: int = -1,
        norm: Norm = "backward") -> Tensor:
    return _fft.fft(x, n=n, axis=axis, norm=norm)


def ifft(x: Tensor, /, *, n: int | None = None, axis: int = -1,
         norm: Norm = "backward") -> Tensor:
    return _fft.ifft(x, n=n, axis=axis, norm=norm)


def fftn(x: Tensor, /, *, s: Sequence[int] | None = None,
         axes: Sequence[int] | None = None, norm: Norm = "backward") -> Tensor:
    return _fft.fftn(x, s=s, axes=axes, norm=norm)


def ifftn(x: Tensor, /, *, s: Sequence[int] | None = None,
          axes: Sequence[int] | None = None, norm: Norm = "backward") -> Tensor:
    return _fft.ifftn(x, s=s, axes=axes, norm=norm)


def rfft(x: Tensor, /, *, n: int | None = None, axis: int = -1,
         norm: Norm = "backward") -> Tensor:
    return _fft.rfft(x, n=n, axis=axis, norm=norm)


def irfft(x: Tensor, /, *, n: int | None = None, axis: int = -1,
          norm: Norm = "backward") -> Tensor:
    return _fft.irfft(x, n=n, axis=axis, norm=norm)


def rfftn(x: Tensor, /, *, s: Sequence[int] | None = None,
          axes: Sequence[int] | None = None, norm: Norm = "backward") -> Tensor:
    return _fft.rfftn(x, s=s, axes=axes, norm=norm)


def irfftn(x: Tensor, /, *, s: Sequence[int] | None = None,
           axes: Sequence[int] | None = None, norm: Norm = "backward") -> Tensor:
    return _fft.irfftn(x, s=s, axes=axes, norm=norm)


def hfft(x: Tensor, /, *, n: int | None = None, axis: int = -1,
         norm: Norm = "backward") -> Tensor:
    return _fft.hfft(x, n=n, axis=axis, norm=norm)


def ihfft(x: Tensor, /, *, n: int | None = None, axis: int = -1,
          norm: Norm = "backward") -> Tensor:
    return _fft.ihfft(x, n=n, axis=axis, norm=norm)


def fftfreq(n: int, /, *, d: float = 1.0, dtype: DTypeLike = None,
            device: DeviceLike = None) -> Tensor:
    return _fft.fftfreq(n, d, dtype=dtype, device=device)


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: DTypeLike = None,
             device: DeviceLike = None) -> Tensor:
    return _fft.rfftfreq(n, d, dtype=dtype, device=device)


def fftshift(x: Tensor, /, *, axes: int | Sequence[int] | None = None) -> Tensor:
    return _fft.fftshift(x, axes=axes)


def ifftshift(x: Tensor, /, *, axes: int | Sequence[int] | None = None) -> Tensor:
    return _fft.ifftshift(x, axes=axes)
