"""The numpydoc docstrings of tenferro.nn's two families, each ONE template filled from
a row per function: the elementwise activations (relu ... silu) and the convolutions
(conv1d, conv2d, conv3d).  Each function's own docstring (written beside its code: its
edge values and conventions) becomes the extended description.  The examples' values
were checked against torch.nn.functional when the rows were written.  The other
functions (pooling, normalization, softmax, affine) have their docstrings in place.
"""
from .._ops._docfmt import paragraph

_ACTIVATION = """{summary}

{own}  Elementwise, any shape; a plain eager call on the CPU runs one fused kernel, and
``jit`` fuses it with its neighbours.

Parameters
----------
input : Tensor or array_like
    The input, {dtypes}.
{params}
Returns
-------
Tensor
    ``input``'s shape and dtype ({promoted}).

Raises
------
TypeError
    If ``input`` is {refused} (torch.nn.functional refuses it too) or not numeric.
{raises}
Notes
-----
:math:`{formula}`.

Differentiable: yes, forward and reverse, {fields}, to any order: the rule is
PyTorch's ``{back}`` (derivatives.yaml), so the derivative at the kink is PyTorch's:
{kink}.

See Also
--------
torch.nn.functional.{name}, jax.nn.{jax}

Examples
--------
>>> x = tf.asarray([-2.0, -0.5, 0.0, 1.5])
>>> tf.round(tf.nn.{name}(x{kw}), 6)
{output}
"""

_REAL = dict(dtypes="real (ints and bools become float64)", promoted="ints and bools "
             "give float64", refused="complex", fields="real")
ACTIVATIONS = {
    "relu": dict(_REAL, summary="Rectified linear unit, ``max(x, 0)``.",
                 dtypes="real or integer (bools become float64)",
                 promoted="integers keep their dtype, bools give float64",
                 params="", raises="", formula=r"\max(x, 0)", back="threshold_backward",
                 kink="0 at x = 0", jax="relu", kw="",
                 output="tensor([0. , 0. , 0. , 1.5])"),
    "leaky_relu": dict(_REAL, summary="Leaky rectified linear unit.",
                       params="negative_slope : float, default 0.01\n    The slope for "
                              "x <= 0.\n", raises="",
                       formula=r"x \text{ for } x > 0, \; \text{negative\_slope} \cdot x "
                               r"\text{ otherwise}",
                       back="leaky_relu_backward", kink="``negative_slope`` at x = 0",
                       jax="leaky_relu", kw=", negative_slope=0.1",
                       output="tensor([-0.2 , -0.05,  0.  ,  1.5 ])"),
    "elu": dict(_REAL, summary="Exponential linear unit.",
                params="alpha : float, default 1.0\n    The scale of the negative branch.\n",
                raises="", formula=r"x \text{ for } x > 0, \; \alpha (e^x - 1) "
                                   r"\text{ otherwise}",
                back="elu_backward", kink="``alpha`` at x = 0", jax="elu", kw="",
                output="tensor([-0.864665, -0.393469,  0.      ,  1.5     ])"),
    "softplus": dict(_REAL, summary="Softplus, a smooth ``max(x, 0)``.",
                     params="beta : float, default 1.0\n    The sharpness (nonzero).\n"
                            "threshold : float, default 20.0\n    Above "
                            "``beta * x > threshold`` the result is x itself.\n",
                     raises="ValueError\n    If ``beta`` is 0.\n",
                     formula=r"\log(1 + e^{\beta x}) / \beta",
                     back="softplus_backward",
                     kink="sigmoid(beta x) up to the threshold, 1 above it", jax="softplus",
                     kw="", output="tensor([0.126928, 0.474077, 0.693147, 1.701413])"),
    "gelu": dict(_REAL, summary="Gaussian error linear unit.",
                 params='approximate : {"none", "tanh"}, default "none"\n    The exact form '
                        "(through erf) or the tanh approximation.\n",
                 raises='ValueError\n    If ``approximate`` is not "none" or "tanh".\n',
                 formula=r"x \Phi(x) = \frac{x}{2} (1 + \mathrm{erf}(x / \sqrt 2))",
                 back="gelu_backward", kink="smooth: ``Phi(x) + x phi(x)``", jax="gelu",
                 kw="", output="tensor([-0.0455  , -0.154269,  0.      ,  1.399789])"),
    "silu": dict(summary="Sigmoid linear unit (swish), ``x * sigmoid(x)``.",
                 dtypes="real or complex (ints and bools become float64)",
                 promoted="ints and bools give float64", refused="a string or object",
                 fields="real and complex", params="", raises="",
                 formula=r"x / (1 + e^{-x})", back="silu_backward",
                 kink="smooth: ``s (1 + x (1 - s))``, s = sigmoid(x)", jax="silu", kw="",
                 output="tensor([-0.238406, -0.18877 ,  0.      ,  1.226362])"),
}

_CONV = """The {n}-d convolution (cross-correlation) of torch.nn.functional.conv{n}d.

{own}

Parameters
----------
input : Tensor, shape (N, C, {spatial}) or (C, {spatial})
    The input, batched or not, float or complex.
weight : Tensor, shape (O, C / groups, {kernel})
    The filters, of ``input``'s dtype.
bias : Tensor, shape (O,), optional
    Added to each output channel.
stride : int or tuple of {n} int, default 1
    The step between windows, >= 1.
padding : int, tuple of {n} int, "valid" or "same", default 0
    Zeros added on both sides of each spatial axis; "same" keeps the input size
    (stride 1 only; an odd extra zero goes after, as PyTorch).
dilation : int or tuple of {n} int, default 1
    The spacing between kernel taps, >= 1.
groups : int, default 1
    Split the channels into independent convolutions (``groups == C``: depthwise).

Returns
-------
Tensor, shape (N, O, {out}) or (O, {out})
    In ``input``'s dtype.

Raises
------
TypeError
    If ``input`` and ``weight`` differ in dtype (nothing is promoted, as PyTorch),
    ``input`` is integer or bool, or ``stride``/``padding``/``dilation``/``groups`` are
    not ints.
ValueError
    If the shapes do not fit (``weight``'s rank, channels against ``groups``, a kernel
    larger than the padded input, ``bias``), an int argument is out of range, or
    ``padding`` is an unknown string or "same" with a stride.
UnsupportedOperation
    If an operand is on a device other than the CPU.

Notes
-----
Differentiable: yes in ``input``, ``weight`` and ``bias``, forward and reverse, real
and complex, to any order: the ``nn.conv`` primitive (JAX's ``conv_general_dilated``
in PyTorch's layout) whose VJPs are ``nn.conv`` again (JAX's
``_conv_general_dilated_transpose_lhs`` and ``_rhs``).

See Also
--------
torch.nn.functional.conv{n}d, jax.lax.conv_general_dilated, scipy.signal.correlate

Examples
--------
>>> x = np.arange({size}.0).reshape({xshape})
>>> w = np.{w}
>>> tf.nn.conv{n}d(x, w{kw})
{output}
"""

_AXES = {1: ("L", "K", "L_out"), 2: ("H, W", "kH, kW", "H_out, W_out"),
         3: ("D, H, W", "kD, kH, kW", "D_out, H_out, W_out")}
CONVS = {
    1: dict(size=5, xshape="1, 1, 5", w="array([[[1.0, 0.0, -1.0]]])", kw="",
            output="tensor([[[-2., -2., -2.]]])"),
    2: dict(size=16, xshape="1, 1, 4, 4", w="ones((1, 1, 2, 2))", kw=", stride=2",
            output="tensor([[[[10., 18.], [42., 50.]]]])"),
    3: dict(size=8, xshape="1, 1, 2, 2, 2", w="ones((1, 1, 2, 2, 2))", kw="",
            output="tensor([[[[[28.]]]]])"),
}


def _own(fn):
    """``fn``'s own docstring, its line breaks kept (the convolutions' has a list)."""
    return "\n".join(line.strip() for line in (fn.__doc__ or "").strip().split("\n"))


def document(namespace):
    """Give the activations and convolutions of ``namespace`` (tenferro.nn's) their
    docstrings."""
    for name, row in ACTIVATIONS.items():
        fn = namespace[name]
        fn.__doc__ = _ACTIVATION.format(name=name, own=paragraph(fn), **row)
    for n, row in CONVS.items():
        fn = namespace["conv%dd" % n]
        spatial, kernel, out = _AXES[n]
        fn.__doc__ = _CONV.format(n=n, own=_own(fn), spatial=spatial, kernel=kernel,
                                  out=out, **row)
