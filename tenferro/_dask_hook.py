"""Dask's lazy registration of tenferro's chunk type, without importing Dask.

Dask's dispatch tables (``dask.utils.Dispatch``) call a function registered with
``register_lazy("tenferro")`` the first time they meet a type from the top-level module
``tenferro``.  When tenferro is imported into a process that has already loaded Dask's
dispatch modules (a dask.distributed worker unpickling its first Tensor, a script that
imported dask first), this points those tables at tenferro/dask/_chunks.py, so Dask loads
tenferro's registrations (docs/distributed.md) on its first Tensor, without
``import tenferro.dask``.  Dask that is not loaded yet stays unloaded: the process then
registers on ``import tenferro.dask``.
"""
import importlib
import sys

# module -> its Dispatch tables that dispatch on a chunk or message type
_TABLES = {
    "dask.array.dispatch": ("concatenate_lookup", "take_lookup", "tensordot_lookup",
                            "einsum_lookup", "empty_lookup",
                            "percentile_lookup", "numel_lookup", "nannumel_lookup",
                            "to_numpy_dispatch"),
    "dask.sizeof": ("sizeof",),
    "distributed.protocol.serialize": ("dask_serialize", "dask_deserialize"),
}


def _load():
    importlib.import_module("tenferro.dask._chunks")


def install():
    """Register ``_load`` lazily with each of Dask's dispatch tables already imported."""
    for module, names in _TABLES.items():
        mod = sys.modules.get(module)
        for name in names if mod is not None else ():
            getattr(mod, name).register_lazy("tenferro", _load)


install()
