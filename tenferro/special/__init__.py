"""scipy.special's functions that scientists differentiate, with scipy's names,
signatures, dtypes and edge values, and derivatives to any order.

An extension of tenferro like :mod:`tenferro.linalg`: it registers its primitives,
kernels and rules through the public :mod:`tenferro.autograd.extend` API.  Two kinds
of function (docs/special.md has the table):

* the transcendental ones (gammaln, digamma, polygamma, betaln, gammainc, gammaincc,
  erfc, erfcx, erfinv, complex erf, i0, i0e, i1, i1e) are primitives whose CPU kernel
  is scipy.special's own ufunc, so their accuracy is scipy's (real erfc: tenferro's
  own kernel); on another device they raise ``UnsupportedOperation`` (never a silent
  copy to the host);
* the others (expit, logit, log_expit, xlogy, xlog1py, entr, rel_entr, kl_div, sinc,
  logsumexp, softmax, log_softmax, real erf) are compositions of tenferro's ops and
  run on every device those ops run on; a plain eager call on the CPU of most of them
  runs tenferro's own one-pass SIMD kernel instead (``_fast``,
  tenferro/_kernels/_special.pyx).
"""
from ._bessel import i0, i0e, i1, i1e  # noqa: F401
from ._erf import erf, erfc, erfcx, erfinv  # noqa: F401
from ._gamma import (betaln, digamma, gammainc, gammaincc, gammaln, polygamma,  # noqa: F401
                     psi)
from ._logistic import (entr, expit, kl_div, log_expit, logit, rel_entr, sinc,  # noqa: F401
                        xlog1py, xlogy)
from ._logsumexp import log_softmax, logsumexp, softmax  # noqa: F401
from . import _batching  # noqa: F401  (vmap's rules of the primitives above)

__all__ = ["gammaln", "digamma", "psi", "polygamma", "betaln", "gammainc", "gammaincc",
           "erf", "erfc", "erfcx", "erfinv", "expit", "logit", "log_expit", "xlogy",
           "xlog1py", "entr", "rel_entr", "kl_div", "sinc", "logsumexp", "softmax",
           "log_softmax", "i0", "i0e", "i1", "i1e"]

from ._docs import document as _document  # noqa: E402
_document(globals())   # the numpydoc docstrings, one template filled per function
