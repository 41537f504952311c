"""Docstring rows of the NaN-ignoring functions and the quantiles.

The same template as the reductions' (:mod:`tenferro._ops._reduction_doc`, whose
glossary and common entries these rows use); importing this module adds the rows.
"""
from ._reduction_doc import (_AXES, _AXIS1, _INT, _METHOD, _NANS, _NOID, _OUT, _P, _Q,
                             _Q_RAISES, _SORTED, _WEIGHTS, ROWS, both)
from ._reduction_doc import document  # noqa: F401  (for nanfunctions and quantiles)

_NAN_BODY = ("Integer and bool input has no NaNs and gives the plain :func:`%s`'s result "
             "(and dtype).")
_NAN_LIN = "yes, as :func:`%s` (forward and reverse, to any order)." + _NANS
_ALLNAN_WARN = [("RuntimeWarning", "For an all-NaN slice, whose result is NaN, as NumPy.")]
ROWS.update({
    "nan_to_num": dict(
        summary="Replace NaN and infinities by finite numbers (numpy.nan_to_num).",
        body="NaN becomes ``nan``, +inf ``posinf`` and -inf ``neginf``, in the real and "
             "the imaginary parts alike.  Integer and bool tensors are returned as they "
             "are (copied unless ``copy=False``).",
        params={"copy": "bool, default True\n    Return a new tensor; ``False`` writes the "
                        "result into ``x`` when it is a Tensor (NumPy's in-place form, not "
                        "recorded for autodiff) and returns it.",
                "nan": "float, default 0.0\n    The value for NaN.",
                "posinf": "float or None, default None\n    The value for +inf; None: the "
                          "dtype's largest finite value.",
                "neginf": "float or None, default None\n    The value for -inf; None: the "
                          "dtype's most negative finite value."},
        returns="Tensor\n    ``x``'s shape and dtype (``x`` itself with ``copy=False``).",
        raises=[("RuntimeError", "With ``copy=False`` on a tensor autodiff follows (one "
                                 "that requires grad, outside ``no_grad``, or a value a "
                                 "transform differentiates): the write could not be "
                                 "differentiated.")],
        diff="yes (with ``copy=True``), forward and reverse, real and complex, to any "
             "order: the gradient passes the finite elements and is zero at the replaced "
             "ones.",
        see="numpy.nan_to_num, isnan, isfinite, where",
        example=">>> tf.nan_to_num(tf.asarray([np.nan, np.inf, 1.0]), nan=-1.0, posinf=9.0)"
                "\ntensor([-1.,  9.,  1.])"),
    "nansum": dict(
        summary="Sum over ``axis`` treating NaNs as zero (numpy.nansum).",
        body="An all-NaN or empty slice sums to 0.  " + _NAN_BODY % "sum",
        returns="Tensor\n    The sums, as :func:`sum`'s.", raises=_AXES + _OUT,
        diff=_NAN_LIN % "sum", see="numpy.nansum, sum, nanmean",
        example=">>> tf.nansum(tf.asarray([1.0, np.nan, 2.0]))\ntensor(3.)"),
    "nanprod": dict(
        summary="Product over ``axis`` treating NaNs as one (numpy.nanprod).",
        body=_NAN_BODY % "prod", returns="Tensor\n    The products, as :func:`prod`'s.",
        raises=_AXES + _OUT, diff=_NAN_LIN % "prod", see="numpy.nanprod, prod",
        example=">>> tf.nanprod(tf.asarray([2.0, np.nan, 3.0]))\ntensor(6.)"),
    "nancumsum": dict(
        summary="Cumulative sum along ``axis`` treating NaNs as zero (numpy.nancumsum).",
        body=_NAN_BODY % "cumsum", params={"axis": _AXIS1},
        returns="Tensor\n    ``a``'s shape (1-D for ``axis=None``).", raises=_AXES + _OUT,
        diff=_NAN_LIN % "cumsum", see="numpy.nancumsum, cumsum",
        example=">>> tf.nancumsum(tf.asarray([1.0, np.nan, 2.0]))\ntensor([1., 1., 3.])"),
    "nancumprod": dict(
        summary="Cumulative product along ``axis`` treating NaNs as one "
                "(numpy.nancumprod).",
        body=_NAN_BODY % "cumprod", params={"axis": _AXIS1},
        returns="Tensor\n    ``a``'s shape (1-D for ``axis=None``).", raises=_AXES + _OUT,
        diff=_NAN_LIN % "cumprod", see="numpy.nancumprod, cumprod",
        example=">>> tf.nancumprod(tf.asarray([2.0, np.nan, 3.0]))\ntensor([2., 2., 6.])"),
    "nanmean": dict(
        summary="Mean of the non-NaN elements over ``axis`` (numpy.nanmean).",
        body="An all-NaN (or empty) slice gives NaN and a RuntimeWarning \"Mean of empty "
             "slice\", as NumPy.  " + _NAN_BODY % "mean",
        params={"dtype": "dtype or None, default None\n    The dtype to compute in; for "
                         "floating input it must be floating."},
        returns="Tensor\n    The means.",
        raises=_AXES + [("TypeError", "If ``dtype`` is not floating for floating input, "
                                      "or ``out`` cannot hold the result.")] + _ALLNAN_WARN,
        diff=_NAN_LIN % "mean", see="numpy.nanmean, mean, nansum",
        example=">>> tf.nanmean(tf.asarray([[1.0, np.nan], [3.0, 4.0]]), axis=1)\n"
                "tensor([1. , 3.5])"),
    "nanvar": dict(
        summary="Variance of the non-NaN elements over ``axis`` (numpy.nanvar).",
        body=":math:`\\sum |x - \\bar x|^2 / (n - \\mathrm{ddof})` per slice with ``n`` its "
             "non-NaN count; where ``n - ddof <= 0`` (an all-NaN slice included) NaN and a "
             "RuntimeWarning \"Degrees of freedom <= 0 for slice.\", as NumPy.  "
             + _NAN_BODY % "var",
        params={"dtype": "dtype or None, default None\n    The dtype to compute in; for "
                         "floating input it must be floating."},
        returns="Tensor\n    The variances, real.",
        raises=_AXES + [("ValueError", "If both ``ddof`` and ``correction`` are given."),
                        ("TypeError", "If ``dtype`` is not floating for floating input.")],
        diff=_NAN_LIN % "var", see="numpy.nanvar, var, nanstd",
        example=">>> tf.nanvar(tf.asarray([1.0, np.nan, 3.0]))\ntensor(1.)"),
    "nanstd": dict(
        summary="Standard deviation of the non-NaN elements over ``axis`` "
                "(numpy.nanstd).",
        body="The square root of :func:`nanvar`, with its ``ddof``, dtypes and warnings.",
        params={"dtype": "dtype or None, default None\n    The dtype to compute in; for "
                         "floating input it must be floating."},
        returns="Tensor\n    The standard deviations, real.",
        raises=_AXES + [("ValueError", "If both ``ddof`` and ``correction`` are given."),
                        ("TypeError", "If ``dtype`` is not floating for floating input.")],
        diff=_NAN_LIN % "std" + "  As :func:`std`, the gradient is NaN where the "
             "deviation is 0.", see="numpy.nanstd, std, nanvar",
        example=">>> tf.nanstd(tf.asarray([1.0, np.nan, 3.0, 5.0]), ddof=1)\ntensor(2.)"),
})

ROWS.update(both("nan%(f)s", dict(
    summary="%(adj)s non-NaN element over ``axis`` (numpy.nan%(f)s).",
    body="An all-NaN slice gives NaN and a RuntimeWarning \"All-NaN slice encountered\", as "
         "NumPy.  " + _NAN_BODY % "%(f)s",
    returns="Tensor\n    The %(pl)s, in ``a``'s dtype.",
    raises=_AXES + _NOID + _OUT + _ALLNAN_WARN, diff=_NAN_LIN % "%(f)s",
    see="numpy.nan%(f)s, %(f)s, f%(f)s, nanarg%(f)s"),
    [">>> tf.nanmax(tf.asarray([[1.0, np.nan], [np.nan, 3.0]]), axis=1)\ntensor([1., 3.])",
     ">>> tf.nanmin(tf.asarray([1.0, np.nan, -2.0]))\ntensor(-2.)"]))
ROWS.update(both("nanarg%(f)s", dict(
    summary="Index of the %(op)s of the non-NaN elements along ``axis`` "
            "(numpy.nanarg%(f)s).",
    body="With ``axis=None`` the index is into the flattened tensor.",
    params={"axis": _AXIS1},
    returns="Tensor\n    int64 indices: ``a``'s shape without ``axis``.",
    raises=_AXES + [("ValueError", "If a slice is all NaN or empty, as NumPy.")] + _OUT,
    diff=_INT, see="numpy.nanarg%(f)s, arg%(f)s, nan%(f)s"),
    [">>> tf.nanargmax(tf.asarray([1.0, np.nan, 3.0]))\ntensor(2)",
     ">>> tf.nanargmin(tf.asarray([[np.nan, 2.0], [1.0, 0.5]]), axis=1)\ntensor([1, 1])"]))

_Q_BODY = ("The reduced axes are sorted (NaNs last) and each quantile is one order "
           "statistic or NumPy's linear interpolation between two, as ``method`` says; "
           "integer input gives float64 for the interpolating methods (its own dtype for "
           "``lower``/``higher``/``nearest``/``inverted_cdf``/``closest_observation``).  ")
_NANQ = ("Each slice counts only its non-NaN elements; an all-NaN slice gives NaN and a "
         "RuntimeWarning \"All-NaN slice encountered\".  ")
ROWS.update({
    "quantile": dict(
        summary="The ``q``-th quantiles over ``axis`` (numpy.quantile).",
        body=_Q_BODY + "A NaN in a slice gives NaN (see :func:`nanquantile`).",
        params={"q": _Q, "method": _METHOD, "weights": _WEIGHTS},
        returns="Tensor\n    ``q``'s shape followed by ``a``'s shape without the reduced "
                "axes.", raises=_AXES + _Q_RAISES, diff=_SORTED,
        see="numpy.quantile, percentile, nanquantile, median",
        example=">>> a = tf.asarray([1.0, 2.0, 3.0, 4.0])\n>>> tf.quantile(a, [0.25, 0.5])\n"
                "tensor([1.75, 2.5 ])\n>>> tf.quantile(a, 0.25, method=\"lower\")\n"
                "tensor(1.)"),
    "percentile": dict(
        summary="The ``q``-th percentiles over ``axis`` (numpy.percentile).",
        body=":func:`quantile` with ``q`` in percent.  " + _Q_BODY,
        params={"q": _P, "method": _METHOD, "weights": _WEIGHTS},
        returns="Tensor\n    ``q``'s shape followed by ``a``'s shape without the reduced "
                "axes.", raises=_AXES + _Q_RAISES, diff=_SORTED,
        see="numpy.percentile, quantile, nanpercentile",
        example=">>> tf.percentile(tf.asarray([1.0, 2.0, 3.0, 4.0]), [25, 50])\n"
                "tensor([1.75, 2.5 ])"),
    "nanquantile": dict(
        summary="The ``q``-th quantiles of the non-NaN elements over ``axis`` "
                "(numpy.nanquantile).", body=_NANQ + _Q_BODY,
        params={"q": _Q, "method": _METHOD, "weights": _WEIGHTS},
        returns="Tensor\n    ``q``'s shape followed by ``a``'s shape without the reduced "
                "axes.", raises=_AXES + _Q_RAISES + _ALLNAN_WARN, diff=_SORTED,
        see="numpy.nanquantile, quantile, nanmedian",
        example=">>> tf.nanquantile(tf.asarray([1.0, np.nan, 3.0, 5.0]), 0.5)\ntensor(3.)"),
    "nanpercentile": dict(
        summary="The ``q``-th percentiles of the non-NaN elements over ``axis`` "
                "(numpy.nanpercentile).",
        body=":func:`nanquantile` with ``q`` in percent.  " + _NANQ,
        params={"q": _P, "method": _METHOD, "weights": _WEIGHTS},
        returns="Tensor\n    ``q``'s shape followed by ``a``'s shape without the reduced "
                "axes.", raises=_AXES + _Q_RAISES + _ALLNAN_WARN, diff=_SORTED,
        see="numpy.nanpercentile, percentile, nanquantile",
        example=">>> tf.nanpercentile(tf.asarray([1.0, np.nan, 3.0, 5.0]), 50)\n"
                "tensor(3.)"),
    "median": dict(
        summary="Median over ``axis`` (numpy.median).",
        body="The middle value of each slice, or the mean of the two middle values for an "
             "even count; integer input gives float64.  A NaN in a slice gives NaN, an "
             "empty slice NaN and a RuntimeWarning \"Mean of empty slice\".  Complex input "
             "is ordered lexicographically, as NumPy.",
        returns="Tensor\n    ``a``'s shape without the reduced axes.",
        raises=_AXES + _Q_RAISES[2:], diff=_SORTED.replace("; none to ``q``", ""),
        see="numpy.median, quantile, nanmedian, mean",
        example=">>> tf.median(tf.asarray([[1.0, 3.0, 2.0], [4.0, 6.0, 5.0]]), axis=1)\n"
                "tensor([2., 5.])\n>>> tf.median(tf.asarray([1, 4, 2, 3]))\ntensor(2.5)"),
    "nanmedian": dict(
        summary="Median of the non-NaN elements over ``axis`` (numpy.nanmedian).",
        body=_NANQ + "Otherwise as :func:`median`.",
        returns="Tensor\n    ``a``'s shape without the reduced axes.",
        raises=_AXES + _Q_RAISES[2:] + _ALLNAN_WARN,
        diff=_SORTED.replace("; none to ``q``", ""),
        see="numpy.nanmedian, median, nanquantile",
        example=">>> tf.nanmedian(tf.asarray([1.0, np.nan, 2.0, 10.0]))\ntensor(2.)"),
})
