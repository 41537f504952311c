"""The graph compiler: trace a function into a graph, rewrite it, run it as a program.

Below autodiff in the layer order (docs/design.md): this package knows nothing about
derivatives; :mod:`tenferro.autograd` attaches ``Graph.grad``/``vjp``/``jvp`` from
above and differentiates through compiled programs by running their graphs.

* :mod:`.trace`: :func:`make_graph` (a function on symbolic inputs -> a
  :class:`~tenferro._ir.Graph`), :class:`TensorSpec`;
* :mod:`.passes`: the compiler passes, a registry extensions add to with
  :func:`register_pass`;
* :mod:`.fusion`: the elementwise-fusion pass (the groups drivers run as one kernel);
* :mod:`.program`: :class:`Program` (the executor) and :func:`compile`;
* :mod:`.jit`: :func:`jit` (trace and compile on first call, cached per signature).
"""
from .._ir import ConcretizationError, Graph, Node, Var  # noqa: F401
from .trace import TensorSpec, make_graph  # noqa: F401
from .passes import PASSES  # noqa: F401
from .program import MemoryPlan, Program, compile  # noqa: F401
from .jit import jit  # noqa: F401

__all__ = ["Graph", "Node", "Var", "TensorSpec", "ConcretizationError", "make_graph",
           "PASSES", "Program", "MemoryPlan", "compile", "jit"]
