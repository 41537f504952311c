"""The numpydoc docstrings of tenferro.special's functions: ONE template filled from a
row per function (what it computes, its arguments, the source of its derivative, an
example input and its value; docs/special.md has the same table for reading).

Each function keeps the short docstring written beside its code (its edge values and
how it differs from scipy); :func:`document` puts that text into the template as the
extended description, so the two never drift apart.  The example's value was checked
against scipy.special when the row was written, and the example itself checks it again
(``np.allclose(..., special.<name>(...))``) every time the doctests run.
"""
import inspect

from .._ops._docfmt import entries, paragraph

_TEMPLATE = """{summary}

{own}

Parameters
----------
{params}

Returns
-------
{returns}

Raises
------
{raises}

Notes
-----
{formula}

Differentiable: {diff}

{kind}

See Also
--------
{see}

Examples
--------
>>> from scipy import special
>>> tf.special.{name}({call})
{output}
>>> np.allclose(tf.special.{name}({call}), {ref}({call}))
True
"""

_ARRAY = "Tensor or array_like"
_DTYPES = {"real": "real (float32 stays float32; ints and bools become float64, as scipy)",
           "complex": "real or complex (float32 and complex64 stay single; ints and bools "
                      "become float64, as scipy)"}
_KINDS = {
    "scipy": "Computed by scipy.special's own ufunc on the CPU (the values are scipy's, "
             "bit for bit); large inputs are split over ``tenferro.get_num_threads()`` "
             "threads.  On another device it raises rather than copy to the host.",
    "composed": "Written with tenferro's own operations, so it runs on every device they "
                "run on and compiled programs can fuse it; a plain eager call of real "
                "input on the CPU runs tenferro's one-pass SIMD kernel "
                "(tenferro/_kernels/_special.pyx) with the same formula.",
    "reduction": "Written with tenferro's own operations (a reduction), so it runs on "
                 "every device they run on and differentiates to any order.",
}

# The rows: summary, params (name -> description; default: the one argument with the
# row's domain), dtypes, kind, formula, diff (the derivative and its source), call
# (the example's arguments), output (its value, checked against scipy), and optional
# raises (extra ``(exception, when)`` pairs), ref (the scipy function) and returns.
ROWS = {
    "gammaln": dict(
        summary="Logarithm of the absolute value of the gamma function.",
        domain="real; +inf at the poles 0, -1, -2, ...", dtypes="real", kind="scipy",
        formula=r":math:`\ln|\Gamma(x)|`.",
        diff="yes, forward and reverse, to any order: the derivative is "
             ":func:`digamma` (DLMF 5.2.2).",
        call="[0.5, 1.0, 2.5]", output="tensor([0.57236494, 0.        , 0.28468287])"),
    "digamma": dict(
        summary="The digamma function, the logarithmic derivative of gamma.",
        domain="real or complex; poles at 0, -1, -2, ...", dtypes="complex", kind="scipy",
        formula=r":math:`\psi(z) = \Gamma'(z) / \Gamma(z)`.",
        diff="yes for real input, forward and reverse, to any order: the derivative is "
             "``polygamma(1, x)`` (DLMF 5.15.1).  Complex input has no derivative "
             "(scipy has no complex polygamma).",
        raises=[("NotImplementedError", "When differentiated at complex input.")],
        call="[0.5, 1.0, 2.5]", output="tensor([-1.96351003, -0.57721566,  0.70315664])"),
    "polygamma": dict(
        summary="The polygamma function, the n-th derivative of digamma.",
        params={"n": "int or array_like of int\n    The order(s), >= 0, broadcast against "
                     "``x`` (not differentiated).",
                "x": "%s\n    The argument, real." % _ARRAY},
        dtypes="real", kind="scipy",
        formula=r":math:`\psi^{(n)}(x) = d^n \psi(x) / dx^n`.  float32 ``x`` gives "
                "float32 (scipy's Python implementation returns float64).",
        diff="yes in ``x``, forward and reverse, to any order: the derivative is "
             "``polygamma(n + 1, x)`` (DLMF 5.15); not in ``n`` (an integer).",
        raises=[("ValueError", "If ``n`` is negative or not an integer (scipy returns "
                               "NaN).")],
        call="1, [0.5, 1.0, 2.5]", output="tensor([4.9348022 , 1.64493407, 0.49035776])"),
    "betaln": dict(
        summary="Logarithm of the absolute value of the beta function.",
        params={"a": "%s\n    First argument, real." % _ARRAY,
                "b": "%s\n    Second argument, real, broadcast against ``a``." % _ARRAY},
        dtypes="real", kind="scipy",
        formula=r":math:`\ln|B(a, b)| = \ln|\Gamma(a)\Gamma(b)/\Gamma(a+b)|`.",
        diff=r"yes in both arguments, forward and reverse, to any order: "
             r":math:`\psi(a) - \psi(a + b)` and :math:`\psi(b) - \psi(a + b)` "
             "(DLMF 5.12.1 with 5.2.2).",
        call="[1.0, 2.0], [3.0, 0.5]", output="tensor([-1.09861229,  0.28768207])"),
    "gammainc": dict(
        summary="The regularized lower incomplete gamma function.",
        params={"a": "%s\n    The shape, a > 0 (not differentiable)." % _ARRAY,
                "x": "%s\n    The upper limit, x >= 0, broadcast against ``a``." % _ARRAY},
        dtypes="real", kind="scipy",
        formula=r":math:`P(a, x) = \frac{1}{\Gamma(a)} \int_0^x t^{a-1} e^{-t} dt`; "
                "NaN outside the domain.",
        diff=r"yes in ``x``, forward and reverse, to any order: "
             r":math:`x^{a-1} e^{-x} / \Gamma(a)` (DLMF 8.2.1, 8.2.4; JAX's "
             "``igamma_gradx``); not in ``a``.",
        raises=[("NotImplementedError", "When differentiated with respect to ``a``.")],
        call="2.0, [0.5, 1.0, 4.0]", output="tensor([0.09020401, 0.26424112, 0.90842181])"),
    "gammaincc": dict(
        summary="The regularized upper incomplete gamma function.",
        params={"a": "%s\n    The shape, a > 0 (not differentiable)." % _ARRAY,
                "x": "%s\n    The lower limit, x >= 0, broadcast against ``a``." % _ARRAY},
        dtypes="real", kind="scipy",
        formula=r":math:`Q(a, x) = 1 - P(a, x)`; NaN outside the domain.",
        diff=r"yes in ``x``, forward and reverse, to any order: "
             r":math:`-x^{a-1} e^{-x} / \Gamma(a)` (DLMF 8.2.1, 8.2.4; JAX's "
             "``igamma_gradx``); not in ``a``.",
        raises=[("NotImplementedError", "When differentiated with respect to ``a``.")],
        call="2.0, [0.5, 1.0, 4.0]", output="tensor([0.90979599, 0.73575888, 0.09157819])"),
    "erf": dict(
        summary="The error function.",
        domain="real or complex", dtypes="complex", kind="composed",
        formula=r":math:`\mathrm{erf}(z) = \frac{2}{\sqrt\pi} \int_0^z e^{-t^2} dt`.  "
                "Real input is :func:`tenferro.erf` (every device); complex input runs "
                "scipy's kernel on the CPU.",
        diff=r"yes, forward and reverse, real and complex, to any order: "
             r":math:`\frac{2}{\sqrt\pi} e^{-z^2}` (DLMF 7.2.1).",
        call="[-1.0, 0.0, 0.5]", output="tensor([-0.84270079,  0.        ,  0.52049988])"),
    "erfc": dict(
        summary="The complementary error function.",
        domain="real or complex", dtypes="complex", kind="scipy",
        formula=r":math:`\mathrm{erfc}(z) = 1 - \mathrm{erf}(z)`, accurate where erf is "
                "close to 1.  Real input runs tenferro's kernel (C99 erfc, within 1 ulp), "
                "complex input scipy's.",
        diff=r"yes, forward and reverse, real and complex, to any order: "
             r":math:`-\frac{2}{\sqrt\pi} e^{-z^2}` (DLMF 7.2.2).",
        call="[-1.0, 0.0, 0.5]", output="tensor([1.84270079, 1.        , 0.47950012])"),
    "erfcx": dict(
        summary="The scaled complementary error function.",
        domain="real or complex", dtypes="complex", kind="scipy",
        formula=r":math:`\mathrm{erfcx}(z) = e^{z^2} \mathrm{erfc}(z)`.",
        diff=r"yes, forward and reverse, real and complex, to any order: "
             r":math:`2 z\,\mathrm{erfcx}(z) - 2/\sqrt\pi` (product rule on DLMF 7.2.2; "
             "PyTorch's ``special_erfcx``).",
        call="[0.0, 1.0, 10.0]", output="tensor([1.        , 0.42758358, 0.05614099])"),
    "erfinv": dict(
        summary="The inverse of the error function.",
        domain="real, in [-1, 1] (+-inf at +-1, NaN outside)", dtypes="real",
        kind="scipy", formula=r"The :math:`x` with :math:`\mathrm{erf}(x) = y`.",
        diff=r"yes, forward and reverse, to any order: "
             r":math:`\frac{\sqrt\pi}{2} e^{\mathrm{erfinv}(y)^2}`, inf at +-1 (inverse-"
             "function rule on DLMF 7.2.1; PyTorch's ``erfinv``).",
        call="[-0.5, 0.0, 0.9]", output="tensor([-0.47693628,  0.        ,  1.16308715])"),
    "expit": dict(
        summary="The logistic sigmoid.",
        domain="real", dtypes="real", kind="composed",
        formula=r":math:`1 / (1 + e^{-x})` (:func:`tenferro.sigmoid`).",
        diff="yes, forward and reverse, to any order: expit(x) (1 - expit(x)).",
        call="[-2.0, 0.0, 3.0]", output="tensor([0.11920292, 0.5       , 0.95257413])"),
    "logit": dict(
        summary="The logit function, the inverse of expit.",
        domain="real, in [0, 1]", dtypes="real", kind="composed",
        formula=r":math:`\ln(x / (1 - x))`; -inf at 0, inf at 1, NaN outside [0, 1].",
        diff=r"yes, forward and reverse, to any order: :math:`1 / (x (1 - x))`, inf at "
             "0 and 1 (elementary calculus).",
        call="[0.1, 0.5, 0.75]", output="tensor([-2.19722458,  0.        ,  1.09861229])"),
    "log_expit": dict(
        summary="The logarithm of the logistic sigmoid, accurate for large ``|x|``.",
        domain="real", dtypes="real", kind="composed",
        formula=r":math:`\ln \mathrm{expit}(x) = -\ln(1 + e^{-x})`, computed as "
                "``-logaddexp(0, -x)``.",
        diff="yes, forward and reverse, to any order: 1 - expit(x) (elementary "
             "calculus).",
        call="[-40.0, 0.0, 3.0]", output="tensor([-40.        ,  -0.69314718,  -0.04858735])"),
    "xlogy": dict(
        summary="``x * log(y)``, 0 where ``x == 0``.",
        params={"x": "%s\n    The factor, real or complex." % _ARRAY,
                "y": "%s\n    The argument of the logarithm, broadcast against ``x``."
                     % _ARRAY},
        dtypes="complex", kind="composed",
        formula=r":math:`x \ln y`, 0 where :math:`x = 0` for every ``y`` but NaN.",
        diff=r"yes in both arguments, forward and reverse, real and complex, to any "
             r"order: :math:`\ln y` and :math:`x / y` (JAX's rule; at x = y = 0 the "
             "x-derivative is 0, not -inf).",
        call="[0.0, 2.0, 3.0], [0.0, 0.5, 4.0]",
        output="tensor([ 0.        , -1.38629436,  4.15888308])"),
    "xlog1py": dict(
        summary="``x * log1p(y)``, 0 where ``x == 0``.",
        params={"x": "%s\n    The factor, real or complex." % _ARRAY,
                "y": "%s\n    The argument of log1p, broadcast against ``x``." % _ARRAY},
        dtypes="complex", kind="composed",
        formula=r":math:`x \ln(1 + y)`, 0 where :math:`x = 0` for every ``y`` but NaN.",
        diff=r"yes in both arguments, forward and reverse, real and complex, to any "
             r"order: :math:`\ln(1 + y)` and :math:`x / (1 + y)` (JAX's rule).",
        call="[0.0, 2.0, 3.0], [-1.0, 0.5, 1.0]",
        output="tensor([0.        , 0.81093022, 2.07944154])"),
    "entr": dict(
        summary="The elementwise entropy ``-x log x``.",
        domain="real", dtypes="real", kind="composed",
        formula=r":math:`-x \ln x` for x > 0, 0 at 0, -inf for x < 0.",
        diff=r"yes, forward and reverse, to any order: :math:`-(\ln x + 1)`, +inf at 0 "
             "(the one-sided limit), 0 for x < 0 (JAX's ``_xlogx_jvp``).",
        call="[0.0, 0.5, 2.0]", output="tensor([ 0.        ,  0.34657359, -1.38629436])"),
    "rel_entr": dict(
        summary="The elementwise relative entropy ``x log(x / y)``.",
        params={"x": "%s\n    First argument, real, >= 0." % _ARRAY,
                "y": "%s\n    Second argument, real, broadcast against ``x``." % _ARRAY},
        dtypes="real", kind="composed",
        formula=r":math:`x \ln(x / y)` for x, y > 0, 0 for x = 0 and y >= 0, inf "
                "elsewhere; summed it is the Kullback-Leibler divergence.",
        diff=r"yes in both arguments, forward and reverse, to any order: "
             r":math:`\ln(x/y) + 1` (-inf at x = 0) and :math:`-x/y`; 0 off the domain "
             "(elementary calculus, as JAX's).",
        call="[0.0, 0.5, 2.0], [1.0, 0.5, 1.0]",
        output="tensor([0.        , 0.        , 1.38629436])"),
    "kl_div": dict(
        summary="The elementwise Kullback-Leibler term ``x log(x / y) - x + y``.",
        params={"x": "%s\n    First argument, real, >= 0." % _ARRAY,
                "y": "%s\n    Second argument, real, broadcast against ``x``." % _ARRAY},
        dtypes="real", kind="composed",
        formula=r":math:`x \ln(x/y) - x + y` for x, y > 0, y for x = 0 and y >= 0, inf "
                "elsewhere.",
        diff=r"yes in both arguments, forward and reverse, to any order: "
             r":math:`\ln(x/y)` and :math:`1 - x/y` (through :func:`rel_entr`'s rule).",
        call="[0.0, 0.5, 2.0], [1.0, 0.5, 1.0]",
        output="tensor([1.        , 0.        , 0.38629436])"),
    "sinc": dict(
        summary="The normalized sinc function (numpy.sinc).",
        domain="real or complex", dtypes="complex", kind="composed",
        formula=r":math:`\sin(\pi x) / (\pi x)`, 1 at 0 (NumPy's normalized sinc, not "
                r":math:`\sin(x)/x`); a Taylor polynomial for :math:`|x| < 0.04`.",
        diff=r"yes, forward and reverse, real and complex, to any order, right at and "
             r"around 0 (the Taylor branch: sinc'(0) = 0, sinc''(0) = :math:`-\pi^2/3`).",
        ref="np.sinc", see="numpy.sinc",
        call="[0.0, 0.5, 1.5]", output="tensor([ 1.        ,  0.63661977, -0.21220659])"),
    "logsumexp": dict(
        summary="The logarithm of the sum of exponentials, computed stably.",
        params={"a": "%s\n    The terms, real or complex." % _ARRAY,
                "axis": "None, int or tuple of int, default None\n    The axes to reduce "
                        "(None: all).",
                "b": "Tensor or array_like, optional\n    Weights broadcast against ``a``; "
                     "may be negative; where 0 the term is left out even if ``a`` is inf "
                     "or NaN.",
                "keepdims": "bool, default False\n    Keep the reduced axes with length 1.",
                "return_sign": "bool, default False\n    Return ``(log|sum|, sign)`` so that "
                               "a negative weighted sum is representable."},
        dtypes="complex", kind="reduction",
        formula=r":math:`\ln \sum_i b_i e^{a_i}`, shifted by the (detached) maximum.  0-d "
                "input counts as 1-d; an empty reduction gives -inf (scipy raises).",
        returns="Tensor or tuple of Tensor\n    The reduced values (a float or complex "
                "dtype); with ``return_sign`` also the sign (the phase for complex input).",
        raises=[("AxisError", "If an axis is out of range.")],
        diff="yes in ``a`` and ``b``, forward and reverse, real and complex, to any "
             "order: the derivative in ``a`` is the (weighted) softmax; composed of "
             "tenferro's differentiable operations.",
        call="[1.0, 2.0, 3.0]", output="tensor(3.40760596)"),
    "softmax": dict(
        summary="The softmax function over an axis.",
        params={"x": "%s\n    The input, real or complex." % _ARRAY,
                "axis": "None, int or tuple of int, default None\n    The axes to "
                        "normalise over (None: all elements)."},
        dtypes="complex", kind="composed",
        formula=r":math:`e^{x_i} / \sum_j e^{x_j}`, shifted by the maximum.",
        raises=[("AxisError", "If an axis is out of range.")],
        diff="yes, forward and reverse, real and complex, to any order (composed of "
             "exp, sum and division).",
        call="[1.0, 2.0, 3.0]", output="tensor([0.09003057, 0.24472847, 0.66524096])"),
    "log_softmax": dict(
        summary="The logarithm of softmax over an axis.",
        params={"x": "%s\n    The input, real or complex." % _ARRAY,
                "axis": "None, int or tuple of int, default None\n    The axes to "
                        "normalise over (None: all elements)."},
        dtypes="complex", kind="composed",
        formula=r":math:`x_i - \ln \sum_j e^{x_j}`, as :math:`(x - m) - "
                r"\ln \sum e^{x - m}` with m the maximum.",
        raises=[("AxisError", "If an axis is out of range.")],
        diff="yes, forward and reverse, real and complex, to any order (composed of "
             "exp, sum and log).",
        call="[1.0, 2.0, 3.0]", output="tensor([-2.40760596, -1.40760596, -0.40760596])"),
    "i0": dict(
        summary="The modified Bessel function of the first kind of order 0.",
        domain="real", dtypes="real", kind="scipy", formula=r":math:`I_0(x)`.",
        diff=r"yes, forward and reverse, to any order: :math:`I_0' = I_1` (DLMF 10.29.3).",
        call="[0.0, 1.0, 5.0]", output="tensor([ 1.        ,  1.26606588, 27.23987182])"),
    "i0e": dict(
        summary="The exponentially scaled modified Bessel function of order 0.",
        domain="real", dtypes="real", kind="scipy", formula=r":math:`e^{-|x|} I_0(x)`.",
        diff="yes, forward and reverse, to any order: i1e(x) - sign(x) i0e(x) (product "
             "rule with DLMF 10.29.3; PyTorch's ``special_i0e``).",
        call="[0.0, 1.0, 5.0]", output="tensor([1.        , 0.46575961, 0.18354081])"),
    "i1": dict(
        summary="The modified Bessel function of the first kind of order 1.",
        domain="real", dtypes="real", kind="scipy", formula=r":math:`I_1(x)`.",
        diff=r"yes, forward and reverse, to any order: :math:`I_0 - I_1/x`, its power "
             "series below ``|x| = 1e-2`` (1/2 at 0) (DLMF 10.29.2, 10.25.2; PyTorch's "
             "``i1_backward``).",
        call="[0.0, 1.0, 5.0]", output="tensor([ 0.        ,  0.5651591 , 24.33564214])"),
    "i1e": dict(
        summary="The exponentially scaled modified Bessel function of order 1.",
        domain="real", dtypes="real", kind="scipy", formula=r":math:`e^{-|x|} I_1(x)`.",
        diff="yes, forward and reverse, to any order: i0e(x) - i1e(x) (sign(x) + 1/x), "
             "a power series near 0 (1/2 at 0) (PyTorch's ``i1e_backward``).",
        call="[0.0, 1.0, 5.0]", output="tensor([0.        , 0.20791042, 0.16397227])"),
}


def _params(fn, row):
    given = row.get("params", {})
    out = []
    for p in inspect.signature(fn).parameters:
        if p in given:
            out.append("%s : %s" % (p, given[p]))
        else:
            out.append("%s : %s\n    The argument: %s." % (p, _ARRAY, row["domain"]))
    return "\n".join(out)


def _raises(name, row):
    if "axis" in row.get("params", {}):
        what = "is not numeric (strings, objects)"
    else:
        what = "has no loop in ``%s`` (complex input where only real is accepted, " \
               "strings, objects)" % row.get("ref", "scipy.special." + name).replace(
                   "np.", "numpy.")
    pairs = [("TypeError", "If an argument's dtype %s; the message names "
                           "``tenferro.special.%s``." % (what, name))]
    if "params" in row and sum(1 for p in row["params"] if p not in ("axis", "b", "keepdims",
                                                                     "return_sign")) > 1:
        pairs.append(("ValueError", "If the arguments' shapes do not broadcast."))
    if row["kind"] == "scipy":
        pairs.append(("UnsupportedOperation", "On a device other than the CPU (scipy's "
                                              "kernel runs on host memory); move the data "
                                              "with ``x.to_device('cpu')``."))
    pairs += row.get("raises", [])
    return entries(pairs)


def docstring(name, fn, row):
    """The numpydoc docstring of ``tenferro.special.<name>`` from its row."""
    ref = row.get("ref", "special." + name)
    see = row.get("see", "scipy.special." + name)
    return _TEMPLATE.format(
        summary=row["summary"], own=paragraph(fn), params=_params(fn, row),
        returns=row.get("returns", "Tensor\n    The values, broadcast shape, in the "
                                   "arguments' dtype: " + _DTYPES[row["dtypes"]] + "."),
        raises=_raises(name, row), formula=row["formula"], diff=row["diff"],
        kind=_KINDS[row["kind"]], see=see, name=name, call=row["call"],
        output=row["output"], ref=ref)


def document(namespace):
    """Give every function of ``namespace`` (tenferro.special's) its docstring; a
    function without a row is an error (the API reference would lack it)."""
    for name in namespace["__all__"]:
        if name in ROWS:     # (psi is digamma itself: it has digamma's)
            namespace[name].__doc__ = docstring(name, namespace[name], ROWS[name])
