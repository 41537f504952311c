"""tenferro's exception types.

Each subclasses the built-in exception a NumPy user would catch (ValueError,
TypeError, ...), so ``except ValueError`` keeps working.
"""
import numpy as np


class TenferroError(Exception):
    """Base class of tenferro-specific errors."""


class UnsupportedOperation(TenferroError, TypeError):
    """A device driver has no implementation of ``op`` for ``dtype``.

    There is never a silent fallback to another device.
    """

    def __init__(self, device, op, dtype=None, detail=None):
        self.device = device
        self.op = op
        self.dtype = dtype
        msg = "%s: not supported on device %r" % (op, str(device))
        if dtype is not None:
            msg += " for dtype %s" % dtype
        if detail:
            msg += " (%s)" % detail
        super().__init__(msg)


class DeviceMismatchError(TenferroError, ValueError):
    """Tensors on different devices were mixed in one operation."""

    def __init__(self, op, devices):
        self.op = op
        self.devices = tuple(str(d) for d in devices)
        super().__init__(
            "%s: expected all tensors on one device, got %s; move them explicitly "
            "with .to(device)" % (op, ", ".join(self.devices)))


class LinAlgError(TenferroError, np.linalg.LinAlgError):
    """A linear-algebra routine failed (singular or non-definite matrix, ...).  A
    ``numpy.linalg.LinAlgError`` (and so a ValueError), as scipy.linalg raises, so
    ``except np.linalg.LinAlgError`` catches it."""


class ConcretizationError(TenferroError, TypeError):
    """A traced value was needed on the host (data-dependent control flow, a
    data-dependent shape, an explicit read)."""
