"""Docstrings of the reductions, scans, NaN-ignoring functions and quantiles.

These functions share their parameters (``axis``, ``dtype``, ``keepdims``, ``out``,
...), so one template writes all their numpydoc docstrings: :func:`document` builds
the Parameters section from the function's own signature and the glossary below
(a row may override an entry), and the other sections from the function's row.
Each example's output was checked against NumPy.
"""
import inspect

from ._docfmt import entries, fill

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
"""
#: The sections every generated docstring ends with (the elementwise ones' too).
TAIL = """Notes
-----
{diff}

See Also
--------
{see}

Examples
--------
{example}
"""
_TEMPLATE += TAIL

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
_OUT = [("TypeError", "If the input is not numeric (strings, objects), or ``out`` is not "
          "a tensor or cannot hold the result's dtype.")]
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

_SIDES = {"max": dict(f="max", adj="Largest", pl="maxima", op="maximum"),
          "min": dict(f="min", adj="Smallest", pl="minima", op="minimum")}


def both(name, row, examples):
    """The rows of a max/min pair (``name`` and ``row``'s texts with ``%(f)s``, ``%(adj)s``,
    ``%(pl)s``, ``%(op)s`` for max, maxima, maximum, ...), with their examples."""
    rows = {}
    for side, example in zip(("max", "min"), examples):
        w = _SIDES[side]
        rows[name % w] = dict({k: v % w if isinstance(v, str) else v for k, v in row.items()},
                              example=example)
    return rows


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

ROWS.update(both("%(f)s", dict(
    summary="%(adj)s element over ``axis`` (numpy.%(f)s, numpy.a%(f)s).",
    body="A NaN propagates (use :func:`nan%(f)s` to skip NaNs); complex numbers compare "
         "lexicographically, as NumPy.  Also available as ``tenferro.a%(f)s`` (the same "
         "function).  Unlike NumPy there is no ``initial`` or ``where``.",
    returns="Tensor\n    The %(pl)s, in ``x``'s dtype.",
    raises=_AXES + _NOID + _OUT, diff=_CHOOSER, see="numpy.%(f)s, nan%(f)s, arg%(f)s, %(op)s"),
    [">>> x = tf.asarray([[1.0, 5.0], [3.0, 2.0]])\n>>> tf.max(x)\ntensor(5.)\n"
     ">>> tf.max(x, axis=0)\ntensor([3., 5.])",
     ">>> x = tf.asarray([[1.0, 5.0], [3.0, 2.0]])\n>>> tf.min(x, axis=1)\ntensor([1., 2.])"]))
ROWS.update(both("arg%(f)s", dict(
    summary="Index of the first %(op)s along ``axis`` (numpy.arg%(f)s).",
    body="A NaN counts as the %(op)s, as in NumPy (use :func:`nanarg%(f)s` to skip NaNs).  "
         "With ``axis=None`` the index is into the flattened tensor.",
    params={"axis": _AXIS1}, returns="Tensor\n    int64 indices: ``x``'s shape without "
                                      "``axis``.",
    raises=_AXES + _EMPTY_ARG + _OUT, diff=_INT, see="numpy.arg%(f)s, %(f)s, nanarg%(f)s"),
    [">>> x = tf.asarray([[1.0, 5.0, 5.0], [3.0, 2.0, 0.0]])\n>>> tf.argmax(x)\ntensor(1)\n"
     ">>> tf.argmax(x, axis=1)\ntensor([1, 0])",
     ">>> tf.argmin(tf.asarray([[1.0, 5.0, 0.5], [3.0, 2.0, 2.0]]), axis=1)\n"
     "tensor([2, 1])"]))


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
        returns="%s\n%s" % (head, fill(text, "    ")), raises=entries(raises.items()),
        warns="\nWarns\n-----\n%s\n" % entries(warns.items()) if warns else "",
        diff=fill("Differentiable: " + row["diff"]),
        see=row["see"].replace(", ", "\n"), example=row["example"])
    return fn
