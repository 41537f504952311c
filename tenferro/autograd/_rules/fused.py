"""Rules of ``fused_elementwise`` (tenferro._fused): a fused node differentiates as the
nodes it stands for (a compiled Program under a transform runs its unfused graph anyway;
these rules serve ``program.graph`` itself)."""
from ..._fused import fused_p
from ..._ops import zeros_like
from ..extend import def_jvp_rule, def_vjp_rule
from .._functional import jvp, vjp


def _fused_jvp(tangents, primals, out, params):
    # the chain rule through the sub-graph: its nodes' own JVP rules, in order
    tans = [t if t is not None else zeros_like(p) for t, p in zip(tangents, primals)]
    return tuple(jvp(lambda *xs: tuple(params["graph"](*xs)), tuple(primals), tuple(tans))[1])


def _fused_vjp(ct, primals, out, params, needs):
    # the chain rule through the sub-graph: its nodes' own VJP rules, in reverse order
    g = params["graph"]
    _, pullback = vjp(lambda *xs: tuple(g(*xs)), *primals)
    cts = tuple(c if c is not None else zeros_like(o) for c, o in zip(ct, out))
    grads = pullback(cts)
    return tuple(x if n else None for x, n in zip(grads, needs))


def_jvp_rule(fused_p, _fused_jvp)
def_vjp_rule(fused_p, _fused_vjp)
