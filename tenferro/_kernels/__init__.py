"""tenferro's compiled CPU kernels (Cython, nogil, OpenMP): compute only, importing nothing
from tenferro.

Only :mod:`tenferro.devices.cpu` and the ``cpu`` implementations extensions register
(:mod:`tenferro.linalg`) import from here.  See ``CONTRACT.md`` beside this file for the
calling convention every kernel module follows.
"""
