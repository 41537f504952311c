"""The numpydoc docstrings of tenferro.fft's transforms: ONE template filled from a row
per function (its one-line summary, formula, family and example) and from what its
family shares (the dtypes, the parameters' meaning, what it raises, the derivative rule
and its source in ``_prims``).

The families are the four primitives: ``c2c`` (fft, ifft, fft2, ifft2, fftn, ifftn),
``r2c`` (rfft*, ihfft*), ``c2r`` (irfft*, hfft*) and ``r2r`` (dct, dst and inverses).
Each function's own docstring (written beside its code) becomes the first paragraph.
The example's value was checked against scipy.fft when the row was written, and the
example checks it again (``np.allclose(..., sfft.<name>(x))``) whenever doctests run.
"""
import inspect

from .._ops._docfmt import entries, paragraph

_TEMPLATE = """{summary}

{own}  Batched over the axes not transformed; float32 and complex64 stay in single
precision.  Runs scipy.fft's pocketfft kernels on the CPU.

Parameters
----------
{params}

Returns
-------
Tensor
    {returns}

Raises
------
{raises}

Notes
-----
{formula}

Differentiable: {diff}

See Also
--------
scipy.fft.{name}, numpy.fft

Examples
--------
>>> from scipy import fft as sfft
>>> x = np.array({x})
>>> {show}
{output}
>>> np.allclose(tf.fft.{name}(x), sfft.{name}(x))
True
"""

_X = {
    "c2c": "Tensor or array_like\n    The input, real or complex (ints and bools become "
           "float64; real input is transformed as complex).",
    "r2c": "Tensor or array_like\n    The input, real (ints and bools become float64).",
    "c2r": "Tensor or array_like\n    The non-negative-frequency half of a Hermitian-"
           "symmetric spectrum, complex (real input is taken as complex).",
    "r2r": "Tensor or array_like\n    The input, real (ints and bools become float64); a "
           "complex input is transformed in its real and imaginary parts.",
}
_N = {
    "c2r": "int, optional\n    The length of the real output; the input is cropped or "
           "zero-padded to ``n//2 + 1`` bins (default: ``2*(m - 1)`` for ``m`` input "
           "bins; pass ``2*m - 1`` for an odd length).",
    None: "int, optional\n    The length of the transformed axis: the input is cropped or "
          "zero-padded to it (default: the input's length).",
}
_S = {
    "c2r": "sequence of int, optional\n    The output lengths of the transformed axes; the "
           "last one as ``n`` of :func:`irfft` (default: the input's, the last "
           "``2*(m - 1)``).",
    None: "sequence of int, optional\n    The lengths of the transformed axes: the input is "
          "cropped or zero-padded to them (default: the input's).",
}
_COMMON = {
    "axis": "int, default -1\n    The axis to transform.",
    "norm": '{"backward", "ortho", "forward"}, optional\n    scipy\'s normalisation: None '
            'or "backward" divides the inverse transform by the number of points, "ortho" '
            'both by its square root, "forward" the forward transform.',
    "overwrite_x": "bool, default False\n    Accepted for scipy's signature and ignored: a "
                   "tensor the caller holds is never written.",
    "workers": "int, optional\n    Threads to use (negative: counted back from the CPU "
               "count, as scipy); default :func:`tenferro.get_num_threads`.",
    "plan": "None\n    Must be None (scipy.fft accepts no plan either).",
    "type": "{1, 2, 3, 4}, default 2\n    The transform's type (the inverse of type 2 is "
            "type 3 and conversely, as scipy).",
    "orthogonalize": 'bool, optional\n    Scale the boundary entries so that with '
                     '``norm="ortho"`` the transform is orthogonal (default: '
                     '``norm == "ortho"``).',
}
_RETURNS = {
    "c2c": "Complex (complex64 for float32 or complex64 input, else complex128), the "
           "transformed axes of lengths ``n`` or ``s``.",
    "r2c": "Complex (complex64 for float32 input), the last transformed axis of length "
           "``n//2 + 1`` (the non-negative frequencies).",
    "c2r": "Real (float32 for complex64 input), the last transformed axis of length ``n`` "
           "(or ``s[-1]``).",
    "r2r": "In the input's dtype (float64 for ints and bools), the transformed axes of "
           "lengths ``n`` or ``s``.",
}
_DIFF = {
    "c2c": "yes, forward and reverse, real and complex, to any order (the transform is "
           "linear): the JVP is the same transform of the tangent, the VJP the transform "
           "of the opposite sign with the adjoint normalisation (JAX's "
           "``_fft_transpose_rule``; PyTorch's ``_fft_c2c`` in derivatives.yaml).",
    "r2c": "yes, forward and reverse, to any order (linear): the VJP is the real-output "
           "transform of the cotangent with its interior bins halved (JAX's "
           "``_rfft_transpose``; PyTorch's ``fft_r2c_backward``).",
    "c2r": "yes, forward and reverse, to any order (linear): the VJP is the real-input "
           "transform of the cotangent with its interior bins doubled (JAX's "
           "``_irfft_transpose``; PyTorch's ``fft_c2r_backward``); the imaginary parts of "
           "the zero and Nyquist bins do not reach the output, so their gradient is 0.",
    "r2r": "yes, forward and reverse, to any order (linear): the VJP is the transposed "
           "transform, the DCT/DST of the transposed type with the boundary weights read "
           "off the sums that define each type (scipy.fft.dct's and dst's definitions; "
           "checked by gradcheck for every type, norm and orthogonalize in "
           "tests/test_fft_ad.py).",
}

_1D = "[1.0, 2.0, 0.0, -1.0]"
_2D = "[[1.0, 2.0], [0.0, -1.0]]"
_H1 = "[4.0, 1.0 - 1.0j, 2.0]"
_H2 = "[[4.0, 2.0], [0.0, 2.0]]"
_DFT = r":math:`y_k = \sum_{j=0}^{n-1} x_j e^{-2\pi i jk/n}`"
_IDFT = r":math:`x_j = \frac{1}{n} \sum_{k=0}^{n-1} y_k e^{2\pi i jk/n}`"
_DCT2 = r"type 2 (the default): :math:`y_k = 2 \sum_{j=0}^{n-1} x_j \cos(\pi k(2j+1)/2n)`"
_DST2 = r"type 2 (the default): :math:`y_k = 2 \sum_{j=0}^{n-1} x_j \sin(\pi (k+1)(2j+1)/2n)`"

# name: (family, summary, formula, x, printed value)
ROWS = {
    "fft": ("c2c", "The 1-D discrete Fourier transform.", _DFT + ".", _1D,
            "tensor([2.+0.j, 1.-3.j, 0.+0.j, 1.+3.j])"),
    "ifft": ("c2c", "The 1-D inverse discrete Fourier transform.", _IDFT + ".", _1D,
             "tensor([0.5 +0.j  , 0.25+0.75j, 0.  +0.j  , 0.25-0.75j])"),
    "fft2": ("c2c", "The 2-D discrete Fourier transform.",
             ":func:`fftn` over the last two axes.", _2D,
             "tensor([[ 2.+0.j,  0.+0.j], [ 4.+0.j, -2.+0.j]])"),
    "ifft2": ("c2c", "The 2-D inverse discrete Fourier transform.",
              ":func:`ifftn` over the last two axes.", _2D,
              "tensor([[ 0.5+0.j,  0. +0.j], [ 1. +0.j, -0.5+0.j]])"),
    "fftn": ("c2c", "The N-D discrete Fourier transform.",
             "The 1-D transform " + _DFT + " along each of ``axes`` in turn.", _2D,
             "tensor([[ 2.+0.j,  0.+0.j], [ 4.+0.j, -2.+0.j]])"),
    "ifftn": ("c2c", "The N-D inverse discrete Fourier transform.",
              "The 1-D inverse " + _IDFT + " along each of ``axes`` in turn.", _2D,
              "tensor([[ 0.5+0.j,  0. +0.j], [ 1. +0.j, -0.5+0.j]])"),
    "rfft": ("r2c", "The 1-D discrete Fourier transform of real input.",
             _DFT + " for :math:`k = 0, ..., n/2` (the others are the conjugates).", _1D,
             "tensor([2.+0.j, 1.-3.j, 0.+0.j])"),
    "irfft": ("c2r", "The inverse of :func:`rfft`.",
              "The real ``x`` whose :func:`rfft` is the input.", _H1,
              "tensor([2., 1., 1., 0.])"),
    "rfft2": ("r2c", "The 2-D discrete Fourier transform of real input.",
              ":func:`rfftn` over the last two axes.", _2D,
              "tensor([[ 2.+0.j,  0.+0.j], [ 4.+0.j, -2.+0.j]])"),
    "irfft2": ("c2r", "The inverse of :func:`rfft2`.",
               ":func:`irfftn` over the last two axes.", _H2,
               "tensor([[2., 0.], [1., 1.]])"),
    "rfftn": ("r2c", "The N-D discrete Fourier transform of real input.",
              ":func:`fftn` with the last of ``axes`` halved to its ``n//2 + 1`` "
              "non-negative frequencies.", _2D,
              "tensor([[ 2.+0.j,  0.+0.j], [ 4.+0.j, -2.+0.j]])"),
    "irfftn": ("c2r", "The inverse of :func:`rfftn`.",
               "The real array whose :func:`rfftn` is the input.", _H2,
               "tensor([[2., 0.], [1., 1.]])"),
    "hfft": ("c2r", "The discrete Fourier transform of a Hermitian-symmetric signal.",
             "The signal is given by its first half; the output is real: "
             "``hfft(x, n) = irfft(conj(x), n) * n``.", _H1,
             "tensor([8., 0., 4., 4.])"),
    "ihfft": ("r2c", "The inverse of :func:`hfft`.",
              "``ihfft(x) = conj(rfft(x)) / n``: the half spectrum of a real signal.", _1D,
              "tensor([0.5 +0.j  , 0.25+0.75j, 0.  +0.j  ])"),
    "hfft2": ("c2r", "The 2-D discrete Fourier transform of a Hermitian-symmetric signal.",
              ":func:`hfftn` over the last two axes.", _H2,
              "tensor([[8., 0.], [4., 4.]])"),
    "ihfft2": ("r2c", "The inverse of :func:`hfft2`.",
               ":func:`ihfftn` over the last two axes.", _2D,
               "tensor([[ 0.5+0.j,  0. +0.j], [ 1. +0.j, -0.5+0.j]])"),
    "hfftn": ("c2r", "The N-D discrete Fourier transform of a Hermitian-symmetric signal.",
              "The N-D form of :func:`hfft` (real output).", _H2,
              "tensor([[8., 0.], [4., 4.]])"),
    "ihfftn": ("r2c", "The inverse of :func:`hfftn`.",
               "The N-D form of :func:`ihfft`.", _2D,
               "tensor([[ 0.5+0.j,  0. +0.j], [ 1. +0.j, -0.5+0.j]])"),
    "dct": ("r2r", "The discrete cosine transform of type 1, 2, 3 or 4.",
            "Each type as scipy.fft.dct defines it; " + _DCT2 + ".", _1D,
            "tensor([ 4.    ,  5.2263, -2.8284, -2.1648])"),
    "idct": ("r2r", "The inverse discrete cosine transform.",
             "The DCT of the inverse type (3 for 2, 2 for 3), scaled so that "
             "``idct(dct(x)) == x``.", _1D,
             "tensor([ 0.4913,  0.5473, -0.2973, -0.2413])"),
    "dst": ("r2r", "The discrete sine transform of type 1, 2, 3 or 4.",
            "Each type as scipy.fft.dst defines it; " + _DST2 + ".", _1D,
            "tensor([ 3.6955,  5.6569, -1.5307,  0.    ])"),
    "idst": ("r2r", "The inverse discrete sine transform.",
             "The DST of the inverse type, scaled so that ``idst(dst(x)) == x``.", _1D,
             "tensor([ 0.3242,  0.7095, -0.2476, -0.1329])"),
    "dctn": ("r2r", "The N-D discrete cosine transform.",
             ":func:`dct` along each of ``axes`` in turn.", _2D,
             "tensor([[ 8.    ,  0.    ], [11.3137, -4.    ]])"),
    "idctn": ("r2r", "The N-D inverse discrete cosine transform.",
              ":func:`idct` along each of ``axes`` in turn.", _2D,
              "tensor([[ 0.1143,  0.0107], [ 0.3643, -0.2393]])"),
    "dstn": ("r2r", "The N-D discrete sine transform.",
             ":func:`dst` along each of ``axes`` in turn.", _2D,
             "tensor([[ 4.    ,  0.    ], [11.3137, -8.    ]])"),
    "idstn": ("r2r", "The N-D inverse discrete sine transform.",
              ":func:`idst` along each of ``axes`` in turn.", _2D,
              "tensor([[ 0.2393,  0.0107], [ 0.3643, -0.1143]])"),
}


def _params(fn, family):
    sig = inspect.signature(fn).parameters
    out = []
    for p, param in sig.items():
        if p == "x":
            text = _X[family]
        elif p in ("n", "s"):
            text = (_N if p == "n" else _S).get(family, (_N if p == "n" else _S)[None])
        elif p == "axes":
            default = param.default
            text = "int or sequence of int, default %r\n    The axes to transform%s." % (
                default, " (None: the last ``len(s)`` axes, or all)" if default is None
                else "")
        else:
            text = _COMMON[p]
        out.append("%s : %s" % (p, text))
    return "\n".join(out)


def _raises(fn, family):
    sig = inspect.signature(fn).parameters
    bad = ["``%s`` is below 1" % ("n" if "n" in sig else "an entry of ``s``"),
           "``norm`` is not one of the three", "``workers`` is 0"]
    if "axes" in sig:
        bad.append("``axes`` repeat or ``s`` and ``axes`` differ in length")
    if family == "r2r":
        bad.append("``type`` is not 1-4 or a type-1 DCT has fewer than 2 points")
    out = [("TypeError", "If %s is not an integer%s." % (
        "``n``" if "n" in sig else "``s``",
        ", ``workers`` is not an integer, or ``x`` is complex" if family == "r2c"
        else " or ``workers`` is not an integer")),
           ("ValueError", "If " + ", ".join(bad[:-1]) + " or " + bad[-1] + "."),
           ("AxisError", "If an axis is out of range for ``x``."),
           ("UnsupportedOperation", "If ``x`` is on a device other than the CPU "
                                    "(tenferro.fft's kernels are pocketfft's).")]
    if "plan" in sig:
        out.append(("NotImplementedError", "If ``plan`` is not None."))
    return entries(out)


def docstring(name, fn, row):
    """The numpydoc docstring of ``tenferro.fft.<name>`` from its row."""
    family, summary, formula, x, output = row
    show = "tf.round(tf.fft.%s(x), 4)" % name if family == "r2r" else "tf.fft.%s(x)" % name
    return _TEMPLATE.format(
        summary=summary, own=paragraph(fn),
        params=_params(fn, family), returns=_RETURNS[family],
        raises=_raises(fn, family), formula=formula, diff=_DIFF[family], name=name, x=x,
        show=show, output=output)


def document(namespace):
    """Give every transform of ``namespace`` (tenferro.fft's) its docstring (the helpers,
    fftfreq ... prev_fast_len, have their own, written beside their code)."""
    for name, row in ROWS.items():
        namespace[name].__doc__ = docstring(name, namespace[name], row)
