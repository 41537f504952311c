"""tenferro's compiled CPU kernels (Cython, nogil, OpenMP).

Only :mod:`tenferro.devices.cpu` imports from here.  See ``CONTRACT.md`` beside this
file for the calling convention every kernel module follows.
"""
