"""Batching (JAX's ``vmap``): map a function over an axis of its arguments by batching
each primitive it applies, not by a Python loop.

* :func:`vmap` (exported as ``tenferro.vmap``): ``in_axes``/``out_axes`` pytree
  prefixes, ``axis_size``, nestable, composing with the autodiff transforms, ``jit``
  and ``checkpoint`` in any order;
* the interpreter (:mod:`._core`): :class:`BatchTrace` and :class:`BatchTracer`, the
  rule registry, the loop fallback;
* the rules of the ops' primitives (:mod:`._rules_ops`, indexing and searching's in
  :mod:`._rules_index`) and of the call primitives
  (:mod:`._rules_calls`); extensions (:mod:`tenferro.linalg`, :mod:`tenferro.special`)
  register theirs with :func:`tenferro.autograd.extend.def_batch_rule`.

A layer-5 package beside :mod:`tenferro.autograd` (docs/design.md); see docs/vmap.md.
"""
from ._core import (BatchTrace, BatchTracer, batch_elementwise, def_batch_loop,  # noqa: F401
                    def_batch_rule, loop_only, materialize, rules)
from ._api import vmap  # noqa: F401
from . import _rules_ops, _rules_index  # noqa: F401  (register the ops' rules)
# _rules_calls (checkpoint's and check's rules) needs tenferro.autograd, whose extend
# imports this package: tenferro/__init__.py imports it once autograd is loaded.

__all__ = ["vmap", "def_batch_rule", "def_batch_loop", "batch_elementwise", "materialize"]
