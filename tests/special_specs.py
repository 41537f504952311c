"""Gradcheck specs of tenferro.special (appended to tests/autodiff_specs.py's SPECS, so
tests/test_autograd_rules.py checks them forward, reverse and on the eager tape, to
order 2, and its registry walk sees the special primitives covered)."""
import numpy as np

import tenferro.special as ts

from autodiff_specs import BOTH, COMPLEX, QUADRANTS, REAL, Arg, points, spec

_POS = Arg((3, 4), 0.3, 4.0)

for _name in ("gammaln", "digamma"):
    spec("special." + _name, getattr(ts, _name), (_POS,), REAL, prims=("special." + _name,))
    # left of 0, between the poles
    spec("special.%s_negative" % _name, getattr(ts, _name),
         (points(-0.5, -1.3, -2.6, -3.5),), REAL, prims=("special." + _name,))
for _n in (0, 1, 3):
    spec("special.polygamma_%d" % _n, lambda x, _n=_n: ts.polygamma(_n, x), (_POS,), REAL,
         prims=("special.polygamma",))
spec("special.betaln", ts.betaln, (Arg((3, 1), 0.3, 4.0), Arg((4,), 0.3, 4.0)), REAL,
     prims=("special.betaln",))
_A = np.array([[0.5], [1.0], [2.5]])
for _name in ("gammainc", "gammaincc"):
    spec("special." + _name, lambda x, _f=getattr(ts, _name): _f(_A, x),
         (Arg((3, 4), 0.2, 4.0),), REAL, prims=("special." + _name,))

spec("special.erf_complex", ts.erf, (points(*QUADRANTS),), COMPLEX, prims=("special.erf",))
spec("special.erf_real", ts.erf, (Arg((3, 4)),), REAL, prims=("erf",))
for _name in ("erfc", "erfcx"):
    spec("special." + _name, getattr(ts, _name), (Arg((3, 4)),), REAL,
         prims=("special." + _name,))
    spec("special.%s_quadrants" % _name, getattr(ts, _name), (points(*QUADRANTS),), COMPLEX,
         prims=("special." + _name,))
spec("special.erfinv", ts.erfinv, (Arg((3, 4), -0.95, 0.95),), REAL, prims=("special.erfinv",))

for _name in ("i0", "i1"):
    spec("special." + _name, getattr(ts, _name), (Arg((3, 4), -3.0, 3.0),), REAL,
         prims=("special." + _name,))
for _name in ("i0e", "i1e"):   # a kink at 0 (exp(-|x|)): drawn off it
    spec("special." + _name, getattr(ts, _name), (Arg((3, 4), -3.0, 3.0, away=0.2),), REAL,
         prims=("special." + _name,))
# i1'(0) = 1/2 (the limit of i0 - i1/x), i1''(0) = 0
spec("special.i1_at_0", ts.i1, (points(0.0),), REAL, prims=("special.i1",))
spec("special.i1e_at_0", ts.i1e, (points(0.0),), REAL, order=1, prims=("special.i1e",))

# xlogy's x-derivative log(y) holds at x = 0 too (the function is x log y there)
spec("special.xlogy", ts.xlogy, (Arg((3, 1)), Arg((4,), 0.2, 3.0)), REAL, prims=())
spec("special.xlogy_x0", ts.xlogy, (points(0.0, 0.0, 1.5), points(0.5, 2.0, 0.7)), REAL,
     prims=())
spec("special.xlogy_complex", ts.xlogy, (Arg((4,)), points(*QUADRANTS[:4])), COMPLEX, prims=())
spec("special.xlog1py", ts.xlog1py, (Arg((3, 4)), Arg((3, 4), -0.8, 3.0)), REAL, prims=())
spec("special.expit", ts.expit, (Arg((3, 4), -6.0, 6.0),), REAL, prims=())
spec("special.log_expit", ts.log_expit, (Arg((3, 4), -6.0, 6.0),), REAL, prims=())
spec("special.logit", ts.logit, (Arg((3, 4), 0.05, 0.95),), REAL, prims=())
spec("special.entr", ts.entr, (Arg((3, 4), 0.1, 3.0),), REAL, prims=("special.xlogx",))
spec("special.rel_entr", ts.rel_entr, (Arg((3, 1), 0.1, 3.0), Arg((4,), 0.1, 3.0)), REAL,
     prims=("special.rel_entr",))
spec("special.kl_div", ts.kl_div, (Arg((3, 4), 0.1, 3.0), Arg((3, 4), 0.1, 3.0)), REAL,
     prims=("special.rel_entr",))
spec("special.sinc", ts.sinc, (Arg((3, 4)),), BOTH, prims=())
spec("special.sinc_near_0", ts.sinc, (points(0.0, 0.01, -0.035, 0.045),), REAL, prims=())

spec("special.logsumexp", lambda a: ts.logsumexp(a, axis=-1), (Arg((3, 4)),), BOTH, prims=())
_B = np.array([1.0, -0.5, 2.0, 0.0])
spec("special.logsumexp_b_sign",
     lambda a, b: ts.logsumexp(a, axis=1, b=b, return_sign=True)[0],
     (Arg((3, 4)), Arg((4,), 0.5, 2.0)), REAL, prims=())
spec("special.logsumexp_b_const", lambda a: ts.logsumexp(a, b=_B, keepdims=True),
     (Arg((3, 4)),), REAL, prims=())
spec("special.softmax", lambda x: ts.softmax(x, axis=0), (Arg((3, 4)),), BOTH, prims=())
spec("special.log_softmax", lambda x: ts.log_softmax(x, axis=(0, 1)), (Arg((3, 4)),), BOTH,
     prims=())
