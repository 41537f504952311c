"""The Array API's statistics with the standard's signatures: ``std`` and ``var``
(``correction``), ``cumulative_sum`` and ``cumulative_prod`` (``include_initial``)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _ops
from .._tensor import Tensor

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Protocol, Union

    from .._tensor import DTypeLike

    Scalar = Union[int, float]

    class _Cumulative(Protocol):
        """cumulative_sum's and cumulative_prod's signature (the standard's)."""
        def __call__(self, x: Tensor, /, *, axis: int | None = None,
                     dtype: DTypeLike = None, include_initial: bool = False) -> Tensor: ...

__all__ = ["std", "var", "cumulative_sum", "cumulative_prod"]


_SPREAD = """{what} over ``axis`` (the standard's ``{name}``: NumPy's with ``ddof`` named
    ``correction``).

    ``{formula}`` with ``N`` the number of elements reduced and ``mean`` their mean;
    ``correction=1`` gives the unbiased sample estimate (of the variance), 0 the
    population one.

    Parameters
    ----------
    x : Tensor
        Floating or complex values.
    axis : int, tuple of int or None, default None
        The axes reduced; None: all.
    correction : int or float, default 0.0
        Subtracted from ``N`` in the divisor (``N - correction <= 0`` gives inf or nan).
    keepdims : bool, default False
        Keep the reduced axes with size 1.

    Returns
    -------
    Tensor
        Real floating (the real dtype of complex ``x``), the remaining axes.

    Raises
    ------
    AxisError
        If an axis is out of range.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex (see
    :func:`tenferro.{name}`).

    Examples
    --------
    >>> xp = tf.array_api
    >>> x = xp.asarray([[1.0, 2.0], [3.0, 4.0]])
    >>> xp.{name}(x, axis=0, correction=1)
    {example}
    """


def std(x: Tensor, /, *, axis: int | tuple[int, ...] | None = None,
        correction: Scalar = 0.0, keepdims: bool = False) -> Tensor:
    return _ops.std(x, axis=_axis(axis), ddof=correction, keepdims=keepdims)


def var(x: Tensor, /, *, axis: int | tuple[int, ...] | None = None,
        correction: Scalar = 0.0, keepdims: bool = False) -> Tensor:
    return _ops.var(x, axis=_axis(axis), ddof=correction, keepdims=keepdims)


std.__doc__ = _SPREAD.format(what="Standard deviation", name="std",
                             formula="sqrt(sum(|x - mean|**2) / (N - correction))",
                             example="tensor([1.41421356, 1.41421356])")
var.__doc__ = _SPREAD.format(what="Variance", name="var",
                             formula="sum(|x - mean|**2) / (N - correction)",
                             example="tensor([2., 2.])")


def _axis(axis: Any) -> Any:
    return tuple(axis) if isinstance(axis, list) else axis


def _cumulative(name: str, op: Callable[..., Tensor], fill: int, what: str,
                example: str) -> _Cumulative:
    def cumulative(x: Tensor, /, *, axis: int | None = None, dtype: DTypeLike = None,
                   include_initial: bool = False) -> Tensor:
        if axis is None:
            if x.ndim > 1:
                raise ValueError("tenferro.array_api.%s: axis is required for a %d-d array"
                                 % (name, x.ndim))
            axis = 0
        if x.ndim == 0:
            raise ValueError("tenferro.array_api.%s: needs at least one dimension" % name)
        out = op(x, axis=axis, dtype=dtype)
        if include_initial:
            shape = list(out.shape)
            shape[axis] = 1
            out = _ops.concat([_ops.full(tuple(shape), fill, dtype=out.dtype,
                                         device=out.device), out], axis=axis)
        return out
    cumulative.__name__ = cumulative.__qualname__ = name
    cumulative.__doc__ = _CUMULATIVE.format(name=name, np_name=op.__name__, fill=fill,
                                            what=what, example=example)
    return cumulative


_CUMULATIVE = """Cumulative {what} along ``axis`` (the standard's ``{name}``).

    As :func:`tenferro.{np_name}`, with the standard's signature: ``axis`` may be
    omitted only for a 1-D ``x`` (NumPy flattens), and ``include_initial=True``
    starts each line with the empty {what}, {fill}.

    Parameters
    ----------
    x : Tensor
        At least 1-D.
    axis : int, optional
        The axis accumulated along; required when ``x`` has more than one.
    dtype : dtype, optional
        Accumulate and return in this dtype (default: NumPy's, bool and small
        integers widening to int64).
    include_initial : bool, default False
        Prepend the empty {what}: the result is one longer along ``axis``.

    Returns
    -------
    Tensor
        ``x``'s shape (one longer along ``axis`` with ``include_initial``).

    Raises
    ------
    ValueError
        If ``x`` is 0-d, or ``axis`` is omitted for a tensor of more than one axis.

    Notes
    -----
    Differentiable: yes, forward and reverse, real and complex (see
    :func:`tenferro.{np_name}`).

    Examples
    --------
    >>> xp = tf.array_api
    >>> xp.{name}(xp.asarray([1, 2, 3]), include_initial=True)
    {example}
    """
cumulative_sum = _cumulative("cumulative_sum", _ops.cumsum, 0, "sum",
                             "tensor([0, 1, 3, 6])")
cumulative_prod = _cumulative("cumulative_prod", _ops.cumprod, 1, "product",
                              "tensor([1, 1, 2, 6])")
