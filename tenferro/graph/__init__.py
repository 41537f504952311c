"""The graph compiler: trace a function into a graph, rewrite it, run it as a program.

Below autodiff in the layer order (docs/design.md): this package knows nothing about
derivatives; :mod:`tenferro.autograd` attaches ``Graph.grad``/``vjp``/``jvp`` from
above and differentiates through compiled programs by running their graphs.

* :mod:`.trace`: :func:`make_graph` (a function on symbolic inputs -> a
  :class:`~tenferro._ir.Graph`), :class:`TensorSpec`;
* :mod:`.passes`: the compiler passes, a registry extensions add to with
  :func:`register_pass` (``PASSES``: the default ones' names, in run order);
* :mod:`.rewrite`: :func:`rewrite_graph` (the helper a pass is written with) and the
  table of rewrite rules by primitive that the ``simplify`` pass applies
  (:func:`register_rewrite`); :mod:`.simplify`: the built-in rules;
* :mod:`.fusion`: the elementwise-fusion pass (the groups drivers run as one kernel);
* :mod:`.program`: :class:`Program` (the executor) and :func:`compile`;
* :mod:`.jit`: :func:`jit` (trace and compile on first call, cached per signature).
"""
from .._ir import ConcretizationError, Graph, Node, Var  # noqa: F401
from .trace import TensorSpec, make_graph  # noqa: F401
from . import passes as _passes
from .passes import (lookup_passes, register_pass, registered_passes,  # noqa: F401
                     unregister_pass)
from .rewrite import (RewriteContext, Splice, register_rewrite,  # noqa: F401
                      rewrite_graph, rewrite_rules, unregister_rewrite)
from .program import MemoryPlan, Program, compile  # noqa: F401
from .jit import jit  # noqa: F401

__all__ = ["Graph", "Node", "Var", "TensorSpec", "ConcretizationError", "make_graph",
           "PASSES", "register_pass", "unregister_pass", "registered_passes",
           "lookup_passes", "register_rewrite", "unregister_rewrite", "rewrite_rules",
           "rewrite_graph", "Splice", "RewriteContext", "Program", "MemoryPlan", "compile",
           "jit"]


def __getattr__(name):
    # PASSES is the registry's current tuple (a registration rebuilds it), read at each
    # use rather than copied here at import
    if name == "PASSES":
        return _passes.PASSES
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
