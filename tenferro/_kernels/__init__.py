"""tenferro's compiled CPU kernels (Cython, nogil, OpenMP).

Only :mod:`tenferro.devices.cpu` imports from here, except ``_tape``: not a kernel but
the compiled core of the eager autodiff tape (nodes, recording, backward), imported by
:mod:`tenferro._tensor` and :mod:`tenferro.autograd._engine`.  See ``CONTRACT.md`` beside this
file for the calling convention every kernel module follows.
"""
