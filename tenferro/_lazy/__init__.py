"""Lazy mode with a registry of live lazy tensors (svod's tensor registry).

``with tenferro.lazy():`` makes an unchanged eager script record its operations; they
are computed through the compiler (folding, simplification, CSE, fusion, buffer reuse)
when a value is needed.  See docs/lazy.md.

* :mod:`._registry`: the lazy graph (LazyOp, LazyValue), the entries lazy tensors
  hold (TensorEntry: id, value, buffer written once) and the weak registry of live
  ones, with ``apply_map_to_tensors``;
* :mod:`._tensor`: LazyTensor (metadata from its entry, data computed on first read);
* :mod:`._mode`: ``lazy()`` and the recording (``bind`` hands it what no trace owns),
  ``realize``;
* :mod:`._realize`: scheduling, the compiled-program cache keyed on the graph's
  structure, the run.
"""
from ._mode import is_lazy, is_lazy_mode, lazy, realize, tensor_id  # noqa: F401
from ._registry import (TensorEntry, apply_map_to_tensors, gc_dead_refs,  # noqa: F401
                        get_tensor, live_tensors)
from ._realize import cache_clear, cache_info, last_program  # noqa: F401
from ._tensor import LazyTensor  # noqa: F401

__all__ = ["lazy", "realize", "tensor_id", "is_lazy", "is_lazy_mode", "get_tensor",
           "live_tensors", "gc_dead_refs", "apply_map_to_tensors", "cache_info",
           "cache_clear", "last_program", "TensorEntry", "LazyTensor"]
