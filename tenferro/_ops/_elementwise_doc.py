"""Docstrings of the elementwise functions: one template, one row of data per op.

:mod:`tenferro._ops.elementwise` generates a function per row of the catalog's
``UNARY`` and ``BINARY`` tables (:mod:`tenferro._catalog`); :func:`docstring` writes
each one's numpydoc docstring from the row below with the same name.  What the
template can work out itself it does: the dtype table comes from the op's type rule
(the catalog's ufunc, through ``resolve``), the ``Differentiable:`` line from the
catalog's ``differentiable`` flag plus the derivative and the rule's source given here
(the source is quoted from the comment above the rule in
``tenferro/autograd/_rules/elementwise.py``; tests/test_docstrings_ops.py checks that
it is still there).  Each example's output was checked against NumPy.
"""
from .. import _dtypes
from ._docfmt import entries, fill
from ._reduction_doc import TAIL

# -- per-op data ----------------------------------------------------------------------
# name: (summary, detail or "", derivative f'(x) or the reason of "no" as reST,
#        rule source as quoted in the rules file (None when not differentiable),
#        example input(s), expected output)
_PT = "PyTorch derivatives.yaml (%s)"
_PIECEWISE = ("piecewise constant: its derivative is zero almost everywhere, and "
              "gradients through it are zero (as PyTorch's)")
_BOOL = "boolean output"
_INT = "integer or boolean output"

UNARY_DOC = {
    "negative": ("Numerical negative, :math:`-x`.",
                 "Bool tensors are refused, as by NumPy (use :func:`logical_not`). ",
                 "-1", _PT % "neg", "[1.0, -2.0, 0.5]", "tensor([-1. ,  2. , -0.5])"),
    "positive": ("Numerical positive, :math:`+x` (a copy of ``x``).", "",
                 "1", _PT % "positive: an alias; the identity", "[1.0, -2.0]",
                 "tensor([ 1., -2.])"),
    "abs": ("Absolute value :math:`|x|` (the modulus for complex input).",
            "Complex input gives the real modulus :math:`\\sqrt{a^2 + b^2}` of "
            ":math:`a + ib`. ",
            ":math:`\\operatorname{sign}(x)` for real :math:`x` (0 at 0); for complex "
            ":math:`z` the gradient is ``grad * z / |z|`` (PyTorch's ``sgn``)",
            _PT % "abs", "[-1.5, 0.0, 2.0]", "tensor([1.5, 0. , 2. ])"),
    "sign": ("Sign: -1, 0 or +1 (NaN for NaN; :math:`z / |z|` for complex, as NumPy 2).",
             "", _PIECEWISE, None, "[-2.0, 0.0, 3.0]", "tensor([-1.,  0.,  1.])"),
    "exp": ("Exponential, :math:`e^x`.", "", ":math:`e^x`", _PT % "exp",
            "[0.0, 1.0, -1.0]", "tensor([1.        , 2.71828183, 0.36787944])"),
    "expm1": ("Exponential minus one, :math:`e^x - 1`, accurate for small :math:`x`.", "",
              ":math:`e^x`", _PT % "expm1", "[0.0, 1e-10, 1.0]",
              "tensor([0.00000000e+00, 1.00000000e-10, 1.71828183e+00])"),
    "exp2": ("Base-2 exponential, :math:`2^x`.", "", ":math:`2^x \\ln 2`", _PT % "exp2",
             "[0.0, 1.0, -1.0, 10.0]", "tensor([1.000e+00, 2.000e+00, 5.000e-01, 1.024e+03])"),
    "log": ("Natural logarithm, :math:`\\ln x`.",
            "``log(0)`` is ``-inf`` and a negative real gives NaN; complex input takes "
            "the principal branch. ", ":math:`1 / x`", _PT % "log", "[1.0, np.e, 0.0]",
            "tensor([  0.,   1., -inf])"),
    "log1p": ("Logarithm of one plus the input, :math:`\\ln(1 + x)`, accurate for small "
              ":math:`x`.", "", ":math:`1 / (1 + x)`", _PT % "log1p", "[0.0, 1e-10, -1.0]",
              "tensor([0.e+00, 1.e-10,   -inf])"),
    "log2": ("Base-2 logarithm, :math:`\\log_2 x`.", "", ":math:`1 / (x \\ln 2)`",
             _PT % "log2", "[1.0, 8.0, 0.5]", "tensor([ 0.,  3., -1.])"),
    "log10": ("Base-10 logarithm, :math:`\\log_{10} x`.", "", ":math:`1 / (x \\ln 10)`",
              _PT % "log10", "[1.0, 1000.0, 0.01]", "tensor([ 0.,  3., -2.])"),
    "sqrt": ("Square root, :math:`\\sqrt{x}`.",
             "A negative real gives NaN; complex input takes the principal branch. ",
             ":math:`1 / (2 \\sqrt{x})`", _PT % "sqrt", "[4.0, 2.0, 0.0]",
             "tensor([2.        , 1.41421356, 0.        ])"),
    "rsqrt": ("Reciprocal square root, :math:`1 / \\sqrt{x}` (PyTorch's ``rsqrt``; NumPy "
              "has none).", "", ":math:`-\\tfrac12 x^{-3/2}`", _PT % "rsqrt",
              "[4.0, 0.25, 0.0]", "tensor([0.5, 2. , inf])"),
    "square": ("Square, :math:`x^2`.", "", ":math:`2x`", _PT % "square -> pow(self, 2)",
               "[-3.0, 0.5]", "tensor([9.  , 0.25])"),
    "reciprocal": ("Reciprocal, :math:`1 / x`.",
                   "Integer input stays integer, as in NumPy (``1 // x``, so 0 for "
                   ":math:`|x| > 1`). ", ":math:`-1 / x^2`", _PT % "reciprocal",
                   "[2.0, -0.5, 0.0]", "tensor([ 0.5, -2. ,  inf])"),
    "sin": ("Sine, :math:`\\sin x` (radians).", "", ":math:`\\cos x`", _PT % "sin",
            "[0.0, np.pi / 2]", "tensor([0., 1.])"),
    "cos": ("Cosine, :math:`\\cos x` (radians).", "", ":math:`-\\sin x`", _PT % "cos",
            "[0.0, np.pi]", "tensor([ 1., -1.])"),
    "tan": ("Tangent, :math:`\\tan x` (radians).", "", ":math:`1 + \\tan^2 x`", _PT % "tan",
            "[0.0, np.pi / 4]", "tensor([0., 1.])"),
    "arcsin": ("Inverse sine, :math:`\\arcsin x`, in :math:`[-\\pi/2, \\pi/2]`.",
               "Real input outside :math:`[-1, 1]` gives NaN. ",
               ":math:`1 / \\sqrt{1 - x^2}`", _PT % "asin", "[0.0, 1.0]",
               "tensor([0.        , 1.57079633])"),
    "arccos": ("Inverse cosine, :math:`\\arccos x`, in :math:`[0, \\pi]`.",
               "Real input outside :math:`[-1, 1]` gives NaN. ",
               ":math:`-1 / \\sqrt{1 - x^2}`", _PT % "acos", "[1.0, -1.0]",
               "tensor([0.        , 3.14159265])"),
    "arctan": ("Inverse tangent, :math:`\\arctan x`, in :math:`(-\\pi/2, \\pi/2)`.", "",
               ":math:`1 / (1 + x^2)`", _PT % "atan", "[0.0, 1.0]",
               "tensor([0.        , 0.78539816])"),
    "sinh": ("Hyperbolic sine, :math:`\\sinh x`.", "", ":math:`\\cosh x`", _PT % "sinh",
             "[0.0, 1.0]", "tensor([0.        , 1.17520119])"),
    "cosh": ("Hyperbolic cosine, :math:`\\cosh x`.", "", ":math:`\\sinh x`", _PT % "cosh",
             "[0.0, 1.0]", "tensor([1.        , 1.54308063])"),
    "tanh": ("Hyperbolic tangent, :math:`\\tanh x`.", "", ":math:`1 - \\tanh^2 x`",
             _PT % "tanh", "[0.0, 1.0]", "tensor([0.        , 0.76159416])"),
    "arcsinh": ("Inverse hyperbolic sine, :math:`\\operatorname{arsinh} x`.", "",
                ":math:`1 / \\sqrt{x^2 + 1}`", _PT % "asinh", "[0.0, 1.0]",
                "tensor([0.        , 0.88137359])"),
    "arccosh": ("Inverse hyperbolic cosine, :math:`\\operatorname{arcosh} x`.",
                "Real input below 1 gives NaN. ",
                ":math:`1 / \\sqrt{x^2 - 1}` (for complex :math:`z`, "
                ":math:`1 / (\\sqrt{z + 1} \\sqrt{z - 1})`)",
                "PyTorch derivatives.yaml (acosh)", "[1.0, 2.0]",
                "tensor([0.       , 1.3169579])"),
    "arctanh": ("Inverse hyperbolic tangent, :math:`\\operatorname{artanh} x`.",
                "``arctanh(1)`` is ``inf``; real input outside :math:`[-1, 1]` gives NaN. ",
                ":math:`1 / (1 - x^2)`", _PT % "atanh", "[0.0, 0.5]",
                "tensor([0.        , 0.54930614])"),
    "sigmoid": ("Logistic sigmoid, :math:`1 / (1 + e^{-x})` (scipy.special.expit, "
                "torch.sigmoid; NumPy has none).", "",
                ":math:`\\sigma(x) (1 - \\sigma(x))`", _PT % "sigmoid",
                "[0.0, 2.0, -np.inf]", "tensor([0.5       , 0.88079708, 0.        ])"),
    "erf": ("Error function, :math:`\\tfrac{2}{\\sqrt\\pi} \\int_0^x e^{-t^2} dt` "
            "(scipy.special.erf; NumPy has none).",
            "Real input only: complex tensors are refused. ",
            ":math:`\\tfrac{2}{\\sqrt\\pi} e^{-x^2}`", _PT % "erf", "[0.0, 1.0, -np.inf]",
            "tensor([ 0.        ,  0.84270079, -1.        ])"),
    "floor": ("Floor, the largest integer :math:`\\le x`.",
              "Integer and bool input keep their dtype (NumPy 2). ", _PIECEWISE, None,
              "[-1.5, 0.5, 2.0]", "tensor([-2.,  0.,  2.])"),
    "ceil": ("Ceiling, the smallest integer :math:`\\ge x`.",
             "Integer and bool input keep their dtype (NumPy 2). ", _PIECEWISE, None,
             "[-1.5, 0.5, 2.0]", "tensor([-1.,  1.,  2.])"),
    "trunc": ("Truncation toward zero.",
              "Integer and bool input keep their dtype (NumPy 2). ", _PIECEWISE, None,
              "[-1.5, 0.5, 2.7]", "tensor([-1.,  0.,  2.])"),
    "round": ("Round to the nearest integer, halves to even (NumPy's ``rint``).",
              "Integer input gives float64, as ``numpy.rint``; :func:`round` keeps "
              "integers and takes ``decimals``. ", _PIECEWISE, None,
              "[0.5, 1.5, 2.5, -0.7]", "tensor([ 0.,  2.,  2., -1.])"),
    "conj": ("Complex conjugate, :math:`\\bar z` (real input unchanged).", "",
             "linear (the conjugate of the tangent and of the cotangent)",
             _PT % "conj_physical", "[1 + 2j, 3 - 1j]", "tensor([1.-2.j, 3.+1.j])"),
    "isnan": ("Whether each element is NaN (for complex: either part).", "", _BOOL, None,
              "[1.0, np.nan, np.inf]", "tensor([False,  True, False])"),
    "isinf": ("Whether each element is positive or negative infinity.", "", _BOOL, None,
              "[1.0, np.nan, -np.inf]", "tensor([False, False,  True])"),
    "isfinite": ("Whether each element is finite (neither infinite nor NaN).", "", _BOOL,
                 None, "[1.0, np.nan, -np.inf]", "tensor([ True, False, False])"),
    "logical_not": ("Logical NOT: True where ``x`` is zero (false).", "", _BOOL, None,
                    "[True, False, True]", "tensor([False,  True, False])"),
    "bitwise_invert": ("Bitwise NOT, ``~x`` (two's complement; logical NOT for bool).",
                       "Integer and bool input only. ", _INT, None, "[0, 5, -1]",
                       "tensor([-1, -6,  0])"),
}

_MAXMIN = ("the whole gradient to the operand returned, split 0.5/0.5 on ties (as JAX); "
           "rule after PyTorch derivatives.yaml (maximum, fmax)")
BINARY_DOC = {
    "add": ("Sum, :math:`x_1 + x_2` (the ``+`` operator).", "Bool + bool is logical OR. ",
            "1 to each operand", _PT % "add.Tensor", ("[1.0, 2.0]", "0.5"),
            "tensor([1.5, 2.5])"),
    "subtract": ("Difference, :math:`x_1 - x_2` (the ``-`` operator).",
                 "Bool tensors are refused, as by NumPy. ", ":math:`+1` and :math:`-1`",
                 _PT % "sub.Tensor", ("[1.0, 2.0]", "[0.5, 4.0]"), "tensor([ 0.5, -2. ])"),
    "multiply": ("Product, :math:`x_1 x_2` (the ``*`` operator).", "",
                 ":math:`x_2` and :math:`x_1`", _PT % "mul.Tensor",
                 ("[1.0, 2.0]", "[3.0, -0.5]"), "tensor([ 3., -1.])"),
    "divide": ("True division, :math:`x_1 / x_2` (the ``/`` operator).",
               "Integers divide to float64, as NumPy; division by zero gives inf or NaN. ",
               ":math:`1 / x_2` and :math:`-x_1 / x_2^2`", _PT % "div.Tensor",
               ("[1, 3]", "[2, 4]"), "tensor([0.5 , 0.75])"),
    "floor_divide": ("Floor division, :math:`\\lfloor x_1 / x_2 \\rfloor` (the ``//`` "
                     "operator).", "Integer division by zero gives 0, as NumPy. ",
                     _PIECEWISE, None, ("[7, -7]", "2"), "tensor([ 3, -4])"),
    "remainder": ("Remainder :math:`x_1 - \\lfloor x_1 / x_2 \\rfloor x_2`, with the sign "
                  "of ``x2`` (Python's ``%``).", "",
                  ":math:`1` and :math:`-\\lfloor x_1 / x_2 \\rfloor`",
                  _PT % "remainder.Tensor", ("[7, -7]", "3"), "tensor([1, 2])"),
    "power": ("Power, :math:`x_1^{x_2}` (the ``**`` operator).",
              "Integers to negative integer powers raise ValueError, as in NumPy. ",
              ":math:`x_2 x_1^{x_2 - 1}` and :math:`x_1^{x_2} \\ln x_1` (0 where "
              ":math:`x_2 = 0`, resp. :math:`x_1 = 0 \\le x_2`)", _PT % "pow.Tensor_Tensor",
              ("[2.0, 4.0]", "[3.0, 0.5]"), "tensor([8., 2.])"),
    "maximum": ("Elementwise maximum; a NaN in either operand propagates.",
                "Complex numbers compare lexicographically, as NumPy. ", _MAXMIN,
                "PyTorch derivatives.yaml (maximum, fmax)",
                ("[1.0, 5.0, np.nan]", "[3.0, 2.0, 0.0]"), "tensor([ 3.,  5., nan])"),
    "minimum": ("Elementwise minimum; a NaN in either operand propagates.",
                "Complex numbers compare lexicographically, as NumPy. ", _MAXMIN,
                "PyTorch derivatives.yaml (maximum, fmax)",
                ("[1.0, 5.0, np.nan]", "[3.0, 2.0, 0.0]"), "tensor([ 1.,  2., nan])"),
    "fmax": ("Elementwise maximum ignoring NaN (NaN only where both are NaN).", "",
             _MAXMIN, "PyTorch derivatives.yaml (maximum, fmax)",
             ("[1.0, 5.0, np.nan]", "[3.0, 2.0, 0.0]"), "tensor([3., 5., 0.])"),
    "fmin": ("Elementwise minimum ignoring NaN (NaN only where both are NaN).", "",
             _MAXMIN, "PyTorch derivatives.yaml (maximum, fmax)",
             ("[1.0, 5.0, np.nan]", "[3.0, 2.0, 0.0]"), "tensor([1., 2., 0.])"),
    "arctan2": ("Four-quadrant inverse tangent of :math:`x_1 / x_2`, the angle of the "
                "point :math:`(x_2, x_1)` in :math:`[-\\pi, \\pi]`.",
                "Real input only. ",
                ":math:`x_2 / (x_1^2 + x_2^2)` and :math:`-x_1 / (x_1^2 + x_2^2)`",
                "PyTorch FunctionsManual.cpp atan2_backward", ("[1.0, -1.0]", "[-1.0, -1.0]"),
                "tensor([ 2.35619449, -2.35619449])"),
    "hypot": ("Hypotenuse :math:`\\sqrt{x_1^2 + x_2^2}`, without overflow.",
              "Real input only. ", ":math:`x_1 / h` and :math:`x_2 / h`", _PT % "hypot",
              ("[3.0, 1e200]", "[4.0, 1e200]"), "tensor([5.00000000e+000, 1.41421356e+200])"),
    "copysign": ("The magnitude of ``x1`` with the sign of ``x2``.", "Real input only. ",
                 ":math:`\\operatorname{copysign}(x_1, x_2) / x_1` (0 at :math:`x_1 = 0`) "
                 "and 0", _PT % "copysign.Tensor", ("[1.0, -2.0]", "[-0.0, 1.0]"),
                 "tensor([-1.,  2.])"),
    "logaddexp": ("Logarithm of the sum of exponentials, :math:`\\ln(e^{x_1} + e^{x_2})`, "
                  "without overflow.", "Real input only. ",
                  ":math:`1 / (1 + e^{x_2 - x_1})` and :math:`1 / (1 + e^{x_1 - x_2})`",
                  _PT % "logaddexp", ("[0.0, 1000.0]", "[0.0, 1000.0]"),
                  "tensor([6.93147181e-01, 1.00069315e+03])"),
    "equal": ("Whether :math:`x_1 = x_2` (the ``==`` operator).", "", _BOOL, None,
              ("[1.0, 2.0, np.nan]", "[1.0, 3.0, np.nan]"), "tensor([ True, False, False])"),
    "not_equal": ("Whether :math:`x_1 \\ne x_2` (the ``!=`` operator).", "", _BOOL, None,
                  ("[1.0, 2.0, np.nan]", "[1.0, 3.0, np.nan]"), "tensor([False,  True,  True])"),
    "less": ("Whether :math:`x_1 < x_2` (the ``<`` operator).", "", _BOOL, None,
             ("[1, 2, 3]", "2"), "tensor([ True, False, False])"),
    "less_equal": ("Whether :math:`x_1 \\le x_2` (the ``<=`` operator).", "", _BOOL, None,
                   ("[1, 2, 3]", "2"), "tensor([ True,  True, False])"),
    "greater": ("Whether :math:`x_1 > x_2` (the ``>`` operator).", "", _BOOL, None,
                ("[1, 2, 3]", "2"), "tensor([False, False,  True])"),
    "greater_equal": ("Whether :math:`x_1 \\ge x_2` (the ``>=`` operator).", "", _BOOL, None,
                      ("[1, 2, 3]", "2"), "tensor([False,  True,  True])"),
    "logical_and": ("Logical AND of the truth values of ``x1`` and ``x2``.", "", _BOOL, None,
                    ("[True, True, False]", "[True, False, False]"),
                    "tensor([ True, False, False])"),
    "logical_or": ("Logical OR of the truth values of ``x1`` and ``x2``.", "", _BOOL, None,
                   ("[True, True, False]", "[True, False, False]"),
                   "tensor([ True,  True, False])"),
    "logical_xor": ("Logical exclusive OR of the truth values of ``x1`` and ``x2``.", "",
                    _BOOL, None, ("[True, True, False]", "[True, False, False]"),
                    "tensor([False,  True, False])"),
    "bitwise_and": ("Bitwise AND, ``x1 & x2``.", "Integer and bool input only. ", _INT, None,
                    ("[12, 10]", "6"), "tensor([4, 2])"),
    "bitwise_or": ("Bitwise OR, ``x1 | x2``.", "Integer and bool input only. ", _INT, None,
                   ("[12, 10]", "6"), "tensor([14, 14])"),
    "bitwise_xor": ("Bitwise exclusive OR, ``x1 ^ x2``.", "Integer and bool input only. ",
                    _INT, None, ("[12, 10]", "6"), "tensor([10, 12])"),
    "left_shift": ("Shift the bits of ``x1`` left by ``x2``, ``x1 << x2``.",
                   "Integer and bool input only. ", _INT, None, ("[1, 3]", "2"),
                   "tensor([ 4, 12])"),
    "right_shift": ("Shift the bits of ``x1`` right by ``x2``, ``x1 >> x2`` (arithmetic "
                    "for signed integers).", "Integer and bool input only. ", _INT, None,
                    ("[16, -16]", "2"), "tensor([ 4, -4])"),
}

#: Public names under which an op is exported besides (or instead of) its catalog name.
ALIASES = {"abs": ["absolute"], "conj": ["conjugate"], "divide": ["true_divide"],
           "power": ["pow"], "remainder": ["mod"], "arctan2": ["atan2"],
           "bitwise_invert": ["invert", "bitwise_not"], "left_shift": ["bitwise_left_shift"],
           "right_shift": ["bitwise_right_shift"]}
#: The name the example calls (``round`` is public as ``rint``: ``tenferro.round`` is
#: NumPy's ``round`` with ``decimals``).
PUBLIC = {"round": "rint"}
#: NumPy's counterpart where its name differs or NumPy has none (None).
_NUMPY = {"round": "rint", "rsqrt": None, "sigmoid": None, "erf": None}
_OTHER = {"sigmoid": "scipy.special.expit", "erf": "scipy.special.erf",
          "round": "round", "rsqrt": "sqrt", "divide": "floor_divide",
          "floor_divide": "divide, remainder", "remainder": "floor_divide",
          "maximum": "fmax", "minimum": "fmin", "fmax": "maximum, nanmax",
          "fmin": "minimum, nanmin", "logaddexp": "logsumexp", "isnan": "nan_to_num",
          "abs": "angle", "conj": "real, imag"}


# -- the template ---------------------------------------------------------------------

_TEMPLATE = """{summary}

{paragraph}

Parameters
----------
{params}
out : Tensor, optional
    A tensor of the result's shape to write into (NumPy's ``out=``; the result is cast
    to its dtype under the ``same_kind`` rule).  Not with autodiff or tracing.

Returns
-------
Tensor
    {what}; ``out`` itself when given.

Raises
------
{raises}

""" + TAIL

_UNARY_PARAMS = """x : Tensor or array_like
    The input; lists, scalars and ndarrays are converted as by :func:`asarray`."""
_BINARY_PARAMS = """x1, x2 : Tensor, array_like or scalar
    The operands, broadcast against each other.  Python scalars are weak, as in
    NumPy 2 (``x * 2.0`` keeps a float32 ``x`` float32)."""

_DTYPES = [_dtypes.bool_, _dtypes.int32, _dtypes.int64, _dtypes.float32, _dtypes.float64,
           _dtypes.complex64, _dtypes.complex128]
_KIND = {"b": "bool", "i": "integer", "f": "floating", "c": "complex"}
_NAME = {d: str(d) for d in _DTYPES}   # (str(dtype) is slow: 500 of them at import)


def _dtype_table(name, ufunc, n, resolve):
    """(``"int32 -> float64, ..."``, the refused dtype kinds) for ``name`` applied to
    ``n`` operands of one dtype, from the op's type rule."""
    groups, refused = {}, []
    for d in _DTYPES:
        try:
            out = resolve(name, ufunc, (d,) * n)[1]
        except TypeError:
            if _KIND[d.kind] not in refused:
                refused.append(_KIND[d.kind])
            continue
        key = "unchanged" if out == d else _NAME.get(out) or str(out)
        groups.setdefault(key, []).append(_NAME[d])
    parts = ["%s -> %s" % (", ".join(v), k) if k != "unchanged" else "%s unchanged"
             % ", ".join(v) for k, v in groups.items()]
    return "; ".join(parts), refused


def _differentiable(diff, deriv, src, complex_ok, binary):
    if not diff:
        return "no, %s." % deriv
    which = "real and complex" if complex_ok else "real"
    what = "partial derivatives in ``x1`` and ``x2``:" if binary else "derivative:"
    return ("yes, forward and reverse, %s, to any order (the rules are written with "
            "tenferro's ops); %s %s.  Rule: %s (tenferro/autograd/_rules/elementwise.py)."
            % (which, what, deriv, src))


def docstring(name, spec, resolve):
    """The docstring of the generated function ``name`` (catalog row ``spec``);
    ``resolve(name, ufunc, dtypes)`` is the op's dtype resolution."""
    binary = name in BINARY_DOC
    summary, detail, deriv, src, ex, out = (BINARY_DOC if binary else UNARY_DOC)[name]
    public = PUBLIC.get(name, name)
    table, refused = _dtype_table(name, spec.type_rule, 2 if binary else 1, resolve)
    npname = _NUMPY.get(name, name)
    follows = "Follows :func:`numpy.%s`" % npname if npname else "Elementwise"
    aliases = ALIASES.get(name)
    alias = (" Also available as %s (the same function)."
             % ", ".join("``tenferro.%s``" % a for a in aliases)) if aliases else ""
    see = ["numpy.%s" % npname] if npname else []
    see += [s.strip() for s in _OTHER.get(name, "").split(",") if s.strip()]
    raises = []
    if refused:
        raises.append(("TypeError", "If %s %s (not supported) or not numeric (strings, "
                       "objects), or ``out`` is not a tensor or cannot hold the result's "
                       "dtype." % ("an operand is" if binary else "``x`` is",
                                   " or ".join(refused))))
    else:
        raises.append(("TypeError", "If an input is not numeric (strings, objects), or "
                       "``out`` is not a tensor or cannot hold the result's dtype."))
    if binary:
        raises += [
            ("ValueError", "If the shapes do not broadcast, or ``out``'s shape is not the "
             "result's" + (", or for integers to negative integer powers (as NumPy)."
                           if name == "power" else ".")),
            ("DeviceMismatchError", "If the tensor operands are on different devices (a "
             "ValueError)."),
            ("OverflowError", "If a Python int does not fit an integer operand's dtype "
             "(NumPy 2's rule)."),
        ]
        example = ">>> tf.%s(tf.asarray(%s), %s)\n%s" % (public, ex[0], ex[1], out)
    else:
        raises.append(("ValueError", "If ``out``'s shape is not the result's."))
        example = ">>> x = tf.asarray(%s)\n>>> tf.%s(x)\n%s" % (ex, public, out)
    raises.append(("RuntimeError", "If ``out`` is given while an input requires grad or "
                   "under a transform."))
    paragraph = ("%s%s: the result has the %s and the dtype of NumPy 2's type rule on "
                 "tenferro's dtypes (%s).%s" % (
                     detail, follows, "broadcast shape of ``x1`` and ``x2``" if binary
                     else "shape of ``x``", table, alias))
    return _TEMPLATE.format(
        summary=summary, paragraph=fill(paragraph),
        params=_BINARY_PARAMS if binary else _UNARY_PARAMS,
        what="The elementwise result" + (" of the broadcast operands" if binary else ""),
        raises=entries(raises),
        diff=fill("Differentiable: " + _differentiable(
            spec.differentiable, deriv, src, "complex" not in refused, binary)),
        see="\n".join(see), example=example)
