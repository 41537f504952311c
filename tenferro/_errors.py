"""tenferro's exception types.

Each subclasses the built-in exception a NumPy user would catch (ValueError,
TypeError, ...), so ``except ValueError`` keeps working.
"""
import numpy as np


class TenferroError(Exception):
    """Base class of tenferro's own errors.

    Catch it to handle any error that tenferro raises beyond NumPy's built-in ones.
    Each subclass also derives from the built-in exception a NumPy user would catch
    (``TypeError``, ``ValueError``, ``numpy.linalg.LinAlgError``), so existing
    ``except`` clauses keep working.

    See Also
    --------
    UnsupportedOperation, DeviceMismatchError, LinAlgError, ConcretizationError
    """


class UnsupportedOperation(TenferroError, TypeError):
    """A device has no implementation of an operation for a dtype (a ``TypeError``).

    Raised, for example, for float64 on WebGPU (which has no standard float64) or a
    sort on CUDA.  tenferro never falls back silently to another device: move the data
    explicitly (``x.to("cpu")``) or cast it (``x.astype(tf.float32)``); the message
    says which.  docs/devices.md lists what each device supports.

    Parameters
    ----------
    device : Device or str
        The device that lacks the operation.
    op : str
        The operation's name.
    dtype : numpy.dtype, optional
        The dtype it lacks it for.
    detail : str, optional
        A hint appended to the message (what to do instead).

    Attributes
    ----------
    device : Device or str
        The device, as given.
    op : str
        The operation's name.
    dtype : numpy.dtype or None
        The dtype, as given.

    See Also
    --------
    DeviceMismatchError, to_device
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
    """Tensors on different devices were mixed in one operation (a ``ValueError``).

    tenferro never moves data implicitly: move the operands to one device first, with
    ``x.to(device)`` or :func:`to_device`.  The message names the operation and the
    devices.

    Parameters
    ----------
    op : str
        The operation's name.
    devices : sequence of Device
        The devices of its operands.

    Attributes
    ----------
    op : str
        The operation's name.
    devices : tuple of str
        The devices' names.

    See Also
    --------
    to_device, UnsupportedOperation
    """

    def __init__(self, op, devices):
        self.op = op
        self.devices = tuple(str(d) for d in devices)
        super().__init__(
            "%s: expected all tensors on one device, got %s; move them explicitly "
            "with .to(device)" % (op, ", ".join(self.devices)))


class LinAlgError(TenferroError, np.linalg.LinAlgError):
    """A linear-algebra routine failed: a singular matrix, one that is not positive
    definite, an iteration that did not converge.

    A ``numpy.linalg.LinAlgError`` (and so a ``ValueError``), as NumPy and SciPy raise,
    so ``except np.linalg.LinAlgError`` catches it.  The message names the routine and,
    for a batch, the first failing matrix.  Check the input's conditioning, or use a
    routine that copes (``lstsq``, ``pinv``, ``eigh`` instead of ``cholesky``).

    See Also
    --------
    numpy.linalg.LinAlgError
    """


class ConcretizationError(TenferroError, TypeError):
    """A traced value was needed on the host (a ``TypeError``): Python control flow on
    data (``if x > 0``), a data-dependent shape (``nonzero``, ``unique``, ``x[mask]``),
    or an explicit read (``float(x)``, ``x.numpy()``) inside ``jit`` or another
    transform that traces.

    Its values exist only when the compiled program runs.  Compute with tensor ops
    instead (``tf.where(x > 0, a, b)`` for a branch), pass the value as a static
    argument, or run that part eagerly, outside the traced function.

    See Also
    --------
    jit
    """
