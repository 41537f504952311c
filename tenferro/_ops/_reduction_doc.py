"""Docstrings of the reductions, scans, NaN-ignoring functions and quantiles.

These functions share their parameters (``axis``, ``dtype``, ``keepdims``, ``out``,
...), so one template writes all their numpydoc docstrings: :func:`document` builds
the Parameters section from the function's own signature and the glossary below
(a row may override an entry), and the other sections from the function's row.
Each example's output was checked against NumPy.
"""
import inspect
import textwrap

_TEMPLATE = """{summary}

{body}

Parameters
----------
{params}

Returns
-------
{returns}

Raises
------
{raises}
{warns}
Notes
-----
Differentiable: {diff}

See Also
--------
{see}

Examples
--------
{example}
"""

_IN = "Tensor or array_like\n    The input; lists, scalars and ndarrays are converted."
GLOSSARY = {
    "x": _IN, "a": _IN,
    "axis": ("int, tuple of ints or None, default None\n    The axes to reduce (negative "
             "ones count from the end); None reduces all of them."),
    "dtype": ("dtype or None, default None\n    The dtype to accumulate in and return; "
              "None: the input's, with bool and int32 accumulated in int64 (NumPy's rule)."),
    "keepdims": ("bool, default False\n    Keep the reduced axes as axes of size one, so "
                 "that the result broadcasts against the input."),
    "out": ("Tensor or None, default None\n    A tensor of the result's shape to write the "
            "result into (cast under the ``same_kind`` rule); it is returned.  Not with "
            "autodiff."),
    "ddof": ("float, default 0\n    Delta degrees of freedom: the divisor is ``n - ddof`` "
             "(``ddof=1`` gives the unbiased sample variance)."),
    "correction": ("float or None, default None\n    The Array API's name for ``ddof`` "
                   "(give one or the other)."),
    "overwrite_input": ("bool, default False\n    Accepted for NumPy compatibility; the "
                        "input is never modified."),
}
_AXIS1 = ("int or None, default None\n    The axis to work along; None works on the "
          "flattened tensor.")
_MEAN_DTYPE = ("dtype or None, default None\n    The dtype to compute in and return; None: "
               "float64 for bool and integer input, the input's dtype otherwise.")
_VAR_DTYPE = ("dtype or None, default None\n    The dtype to compute in; None: float64 for "
              "bool and integer input, the input's dtype otherwise.")
_Q = ("float or sequence of floats\n    The probabilities, in [0, 1] (scalar or 1-D; "
      "its dimensions lead the result).")
_P = "float or sequence of floats\n    The percentages, in [0, 100] (scalar or 1-D)."
_METHOD = ('str, default "linear"\n    NumPy\'s estimation method: ``"linear"``, '
           '``"lower"``, ``"higher"``, ``"nearest"``, ``"midpoint"`` or one of the nine '
           'of Hyndman & Fan (``"inverted_cdf"``, ``"averaged_inverted_cdf"``, '
           '``"closest_observation"``, ``"interpolated_inverted_cdf"``, ``"hazen"``, '
           '``"weibull"``, ``"median_unbiased"``, ``"normal_unbiased"``).')
_WEIGHTS = ("Tensor, array_like or None, default None\n    Sample weights of ``a``'s "
            'shape or along ``axis``; only with ``method="inverted_cdf"``.')

# common Raises entries
_AXES = [("AxisError", "If an axis is out of bounds (an IndexError and a ValueError, as "
                       "NumPy's)."),
         ("ValueError", "If an axis is repeated, or ``out``'s shape is not the result's.")]
_OUT = [("TypeError", "If ``out`` is not a tensor or cannot hold the result's dtype.")]
_NOID = [("ValueError", "If a reduced axis has length zero (the reduction has no "
                        "identity), as NumPy.")]
_EMPTY_ARG = [("ValueError", "If the tensor (or a slice) is empty.")]
_Q_RAISES = [("ValueError", "If ``q`` is outside its range, ``method`` is unknown, or "
                            "``weights`` is given with another method."),
             ("TypeError", "If ``a`` is complex."),
             ("UnsupportedOperation", "If the device cannot sort (only the CPU and "
                                      "WebGPU have ``argsort``).")]

_LIN = "yes, forward and reverse, real and complex, to any order (linear).  Rule: %s."
_BOOL = "no, boolean output."
_INT = "no, integer output."
_CHOOSER = ("yes, forward and reverse, real, to any order: the gradient goes to the "
            "elements equal to the extremum, shared evenly between ties (to the NaNs when "
            "the result is NaN).  Rules: JAX lax.py _reduce_chooser_jvp_rule and PyTorch "
            "FunctionsManual.cpp scale_grad_by_count.")
_NANS = (" The gradient reaches the non-NaN elements and is zero at the NaNs (the NaNs are "
         "replaced with ``where`` before the plain reduction).")
_SORTED = ("yes in ``a``, forward and reverse, real, to any order: the result is a gather "
           "of one or two order statistics through ``argsort``'s permutation and NumPy's "
           "linear interpolation between them, so the gradient reaches exactly the "
           "elements selected (piecewise linear in ``a``; none to ``q``).")

ROWS = {
    "sum": dict(
        summary="Sum of the elements over ``axis`` (numpy.sum).",
        body="Floating sums are pairwise, as NumPy's.  Bool and int32 input sum in int64 "
             "(NumPy's rule); an empty sum is 0.",
        returns="Tensor\n    The sums: ``x``'s shape without the reduced axes (or with "
                "them as size one under ``keepdims``).",
        raises=_AXES + _OUT, diff=_LIN % "JAX lax.py _reduce_sum_transpose_rule",
        see="numpy.sum, nansum, mean, cumsum",
        example=">>> x = tf.asarray([[1, 2, 3], [4, 5, 6]])\n>>> tf.sum(x)\ntensor(21)\n"
                ">>> tf.sum(x, axis=0)\ntensor([5, 7, 9])"),
    "prod": dict(
        summary="Product of the elements over ``axis`` (numpy.prod).",
        body="Bool and int32 input multiply in int64 (NumPy's rule); an empty product is "
             "1.",
        returns="Tensor\n    The products: ``x``'s shape without the reduced axes.",
        raises=_AXES + _OUT,
        diff="yes, forward and reverse, real and complex, to any order, exact where the "
             "input has zeros (products of the other elements, by scans: no division).  "
             "Rule: PyTorch FunctionsManual.cpp prod_safe_zeros_backward.",
        see="numpy.prod, nanprod, cumprod",
        example=">>> tf.prod(tf.asarray([[1.0, 2.0], [3.0, 4.0]]), axis=1)\n"
                "tensor([ 2., 12.])"),
    "max": dict(
        summary="Largest element over ``axis`` (numpy.max, numpy.amax).",
        body="A NaN propagates (use :func:`nanmax` to skip NaNs); complex numbers compare "
             "lexicographically, as NumPy.  Also available as ``tenferro.amax`` (the same "
             "function).  Unlike NumPy there is no ``initial`` or ``where``.",
        returns="Tensor\n    The maxima, in ``x``'s dtype.",
        raises=_AXES + _NOID + _OUT, diff=_CHOOSER, see="numpy.max, nanmax, argmax, maximum",
        example=">>> x = tf.asarray([[1.0, 5.0], [3.0, 2.0]])\n>>> tf.max(x)\ntensor(5.)\n"
                ">>> tf.max(x, axis=0)\ntensor([3., 5.])"),
    "min": dict(
        summary="Smallest element over ``axis`` (numpy.min, numpy.amin).",
        body="A NaN propagates (use :func:`nanmin` to skip NaNs); complex numbers compare "
             "lexicographically, as NumPy.  Also available as ``tenferro.amin`` (the same "
             "function).  Unlike NumPy there is no ``initial`` or ``where``.",
        returns="Tensor\n    The minima, in ``x``'s dtype.",
        raises=_AXES + _NOID + _OUT, diff=_CHOOSER, see="numpy.min, nanmin, argmin, minimum",
        example=">>> x = tf.asarray([[1.0, 5.0], [3.0, 2.0]])\n>>> tf.min(x, axis=1)\n"
                "tensor([1., 2.])"),
    "any": dict(
        summary="Whether any element over ``axis`` is true (nonzero) (numpy.any).",
        body="NaN counts as true; an empty slice gives False.",
        returns="Tensor\n    A bool tensor.", raises=_AXES + _OUT, diff=_BOOL,
        see="numpy.any, all, count_nonzero",
        example=">>> tf.any(tf.asarray([[0, 0], [0, 3]]), axis=1)\ntensor([False,  True])"),
    "all": dict(
        summary="Whether every element over ``axis`` is true (nonzero) (numpy.all).",
        body="NaN counts as true; an empty slice gives True.",
        returns="Tensor\n    A bool tensor.", raises=_AXES + _OUT, diff=_BOOL,
        see="numpy.all, any",
        example=">>> tf.all(tf.asarray([[1, 2], [0, 3]]), axis=1)\ntensor([ True, False])"),
    "argmax": dict(
        summary="Index of the first maximum along ``axis`` (numpy.argmax).",
        body="A NaN counts as the maximum, as in NumPy (use :func:`nanargmax` to skip "
             "NaNs).  With ``axis=None`` the index is into the flattened tensor.",
        params={"axis": _AXIS1},
        returns="Tensor\n    int64 indices: ``x``'s shape without ``axis``.",
        raises=_AXES + _EMPTY_ARG + _OUT, diff=_INT, see="numpy.argmax, max, nanargmax",
        example=">>> x = tf.asarray([[1.0, 5.0, 5.0], [3.0, 2.0, 0.0]])\n>>> tf.argmax(x)\n"
                "tensor(1)\n>>> tf.argmax(x, axis=1)\ntensor([1, 0])"),
    "argmin": dict(
        summary="Index of the first minimum along ``axis`` (numpy.argmin).",
        body="A NaN counts as the minimum, as in NumPy (use :func:`nanargmin` to skip "
             "NaNs).  With ``axis=None`` the index is into the flattened tensor.",
        params={"axis": _AXIS1},
        returns="Tensor\n    int64 indices: ``x``'s shape without ``axis``.",
        raises=_AXES + _EMPTY_ARG + _OUT, diff=_INT, see="numpy.argmin, min, nanargmin",
        example=">>> tf.argmin(tf.asarray([[1.0, 5.0, 0.5], [3.0, 2.0, 2.0]]), axis=1)\n"
                "tensor([2, 1])"),
    "cumsum": dict(
        summary="Cumulative sum along ``axis`` (numpy.cumsum).",
        body="Element ``i`` is the sum of the elements up to and including ``i``.  Bool "
             "and int32 input accumulate in int64 (NumPy's rule).",
        params={"axis": _AXIS1},
        returns="Tensor\n    ``x``'s shape (1-D of ``x.size`` for ``axis=None``).",
        raises=_AXES + _OUT, diff=_LIN % "PyTorch FunctionsManual.cpp cumsum_backward",
        see="numpy.cumsum, sum, nancumsum",
        example=">>> tf.cumsum(tf.asarray([[1, 2], [3, 4]]))\ntensor([ 1,  3,  6, 10])\n"
                ">>> tf.cumsum(tf.asarray([[1, 2], [3, 4]]), axis=0)\n"
                "tensor([[1, 2],\n        [4, 6]])"),
    "cumprod": dict(
        summary="Cumulative product along ``axis`` (numpy.cumprod).",
        body="Element ``i`` is the product of the elements up to and including ``i``.  "
             "Bool and int32 input accumulate in int64 (NumPy's rule).",
        params={"axis": _AXIS1},
        returns="Tensor\n    ``x``'s shape (1-D of ``x.size`` for ``axis=None``).",
        raises=_AXES + _OUT,
        diff="yes, forward and reverse, real and complex, to any order, exact with zeros "
             "(a division-free scan).  Rules: PyTorch FunctionsManual.cpp cumprod_jvp and "
             "PyTorch cumprod_backward.",
        see="numpy.cumprod, prod, nancumprod",
        example=">>> tf.cumprod(tf.asarray([1.0, 2.0, 3.0, 0.5]))\n"
                "tensor([1., 2., 6., 3.])"),
    "mean": dict(
        summary="Arithmetic mean over ``axis`` (numpy.mean).",
        body="The sum divided by the count.  Bool and integer input is averaged in "
             "float64, as NumPy; an empty slice gives NaN.",
        params={"dtype": _MEAN_DTYPE},
        returns="Tensor\n    The means: ``x``'s shape without the reduced axes.",
        raises=_AXES + _OUT, diff=_LIN % "JAX lax.py _reduce_sum_transpose_rule",
        see="numpy.mean, average, nanmean, median",
        example=">>> tf.mean(tf.asarray([[1, 2], [3, 4]]), axis=0)\ntensor([2., 3.])"),
    "var": dict(
        summary="Variance over ``axis`` (numpy.var).",
        body=":math:`\\sum |x - \\bar x|^2 / (n - \\mathrm{ddof})`, computed in two passes "
             "as NumPy; complex input gives a real variance.  Bool and integer input is "
             "taken as float64.  Where ``n - ddof <= 0`` the result is inf or NaN, as "
             "NumPy's (without its warning).",
        params={"dtype": _VAR_DTYPE},
        returns="Tensor\n    The variances, real: ``x``'s shape without the reduced axes.",
        raises=_AXES + _OUT,
        diff="yes, forward and reverse, real and complex, to any order (composed of "
             "differentiable ops).",
        see="numpy.var, std, nanvar, cov",
        example=">>> x = tf.asarray([1.0, 2.0, 3.0, 4.0])\n>>> tf.var(x)\ntensor(1.25)\n"
                ">>> tf.var(x, ddof=1)\ntensor(1.66666667)"),
    "std": dict(
        summary="Standard deviation over ``axis`` (numpy.std).",
        body="The square root of :func:`var`, with the same ``ddof`` and dtypes.",
        params={"dtype": _VAR_DTYPE},
        returns="Tensor\n    The standard deviations, real.", raises=_AXES + _OUT,
        diff="yes, forward and reverse, real and complex, to any order (composed of "
             "differentiable ops); the gradient is NaN where the deviation is 0 (the "
             "square root's derivative there is infinite), as in PyTorch.",
        see="numpy.std, var, nanstd",
        example=">>> tf.std(tf.asarray([1.0, 2.0, 3.0, 4.0]), ddof=1)\ntensor(1.29099445)"),
}

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
                        "result into ``x`` when it is a Tensor (not one that requires grad) "
                        "and returns it.",
                "nan": "float, default 0.0\n    The value for NaN.",
                "posinf": "float or None, default None\n    The value for +inf; None: the "
                          "dtype's largest finite value.",
                "neginf": "float or None, default None\n    The value for -inf; None: the "
                          "dtype's most negative finite value."},
        returns="Tensor\n    ``x``'s shape and dtype (``x`` itself with ``copy=False``).",
        raises=[("RuntimeError", "With ``copy=False`` on a tensor that requires grad or "
                                 "cannot be written.")],
        diff="yes, forward and reverse, real and complex, to any order: the gradient "
             "passes the finite elements and is zero at the replaced ones.",
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
    "nanmax": dict(
        summary="Largest non-NaN element over ``axis`` (numpy.nanmax).",
        body="An all-NaN slice gives NaN and a RuntimeWarning \"All-NaN slice "
             "encountered\", as NumPy.  " + _NAN_BODY % "max",
        returns="Tensor\n    The maxima, in ``a``'s dtype.",
        raises=_AXES + _NOID + _OUT + _ALLNAN_WARN, diff=_NAN_LIN % "max",
        see="numpy.nanmax, max, fmax, nanargmax",
        example=">>> tf.nanmax(tf.asarray([[1.0, np.nan], [np.nan, 3.0]]), axis=1)\n"
                "tensor([1., 3.])"),
    "nanmin": dict(
        summary="Smallest non-NaN element over ``axis`` (numpy.nanmin).",
        body="An all-NaN slice gives NaN and a RuntimeWarning \"All-NaN slice "
             "encountered\", as NumPy.  " + _NAN_BODY % "min",
        returns="Tensor\n    The minima, in ``a``'s dtype.",
        raises=_AXES + _NOID + _OUT + _ALLNAN_WARN, diff=_NAN_LIN % "min",
        see="numpy.nanmin, min, fmin, nanargmin",
        example=">>> tf.nanmin(tf.asarray([1.0, np.nan, -2.0]))\ntensor(-2.)"),
    "nanargmax": dict(
        summary="Index of the largest non-NaN element along ``axis`` (numpy.nanargmax).",
        body="With ``axis=None`` the index is into the flattened tensor.",
        params={"axis": _AXIS1},
        returns="Tensor\n    int64 indices: ``a``'s shape without ``axis``.",
        raises=_AXES + [("ValueError", "If a slice is all NaN or empty, as NumPy.")] + _OUT,
        diff=_INT, see="numpy.nanargmax, argmax, nanmax",
        example=">>> tf.nanargmax(tf.asarray([1.0, np.nan, 3.0]))\ntensor(2)"),
    "nanargmin": dict(
        summary="Index of the smallest non-NaN element along ``axis`` (numpy.nanargmin).",
        body="With ``axis=None`` the index is into the flattened tensor.",
        params={"axis": _AXIS1},
        returns="Tensor\n    int64 indices: ``a``'s shape without ``axis``.",
        raises=_AXES + [("ValueError", "If a slice is all NaN or empty, as NumPy.")] + _OUT,
        diff=_INT, see="numpy.nanargmin, argmin, nanmin",
        example=">>> tf.nanargmin(tf.asarray([[np.nan, 2.0], [1.0, 0.5]]), axis=1)\n"
                "tensor([1, 1])"),
})

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


def document(fn, name=None):
    """Give ``fn`` the docstring of its row (``name``, default ``fn.__name__``): the
    Parameters from its signature and the glossary, the rest from the row."""
    row = ROWS[name or fn.__name__]
    params = []
    for p in inspect.signature(fn).parameters:
        head, text = (row.get("params", {}).get(p) or GLOSSARY[p]).split("\n", 1)
        params.append("%s : %s\n%s" % (p, head, fill(text, "    ")))
    raises, warns = {}, {}     # (entries naming one exception are merged)
    for exc, text in row["raises"]:
        d = warns if exc.endswith("Warning") else raises
        d[exc] = (d[exc] + "  " + text) if exc in d else text
    head, text = row["returns"].split("\n", 1)
    fn.__doc__ = _TEMPLATE.format(
        summary=row["summary"], body=fill(row["body"]), params="\n".join(params),
        returns="%s\n%s" % (head, fill(text, "    ")), raises=_entries(raises),
        warns="\nWarns\n-----\n%s\n" % _entries(warns) if warns else "",
        diff=fill("Differentiable: " + row["diff"])[len("Differentiable: "):],
        see=row["see"].replace(", ", "\n"), example=row["example"])
    return fn


def fill(text, indent=""):
    """``text`` wrapped to 88 columns (after ``indent``)."""
    return textwrap.fill(" ".join(text.split()), 88, initial_indent=indent,
                         subsequent_indent=indent, break_on_hyphens=False)


def _entries(d):
    return "\n".join("%s\n%s" % (k, fill(v, "    ")) for k, v in d.items())
