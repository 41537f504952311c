"""tenferro: dense tensors for scientific Python.

NumPy-like tensors whose CPU kernels are typed Cython with OpenMP, whose GPU work
goes through pluggable device drivers, and whose autodiff reaches through einsum and
linear algebra.  The Python rendering of the Rust library tenferro-rs.
"""
__version__ = "0.1.0"

import os as _os

# tenferro's OpenMP kernels and scipy's OpenBLAS keep separate thread pools; threads of
# one pool that spin-wait after a call (libgomp's default: ~ms) steal the cores the other
# pool needs next (tanh(A @ B) took 3x longer on 2 cores).  A short spin keeps back-to-back
# kernels warm and lets BLAS have the cores.  Must be set before libgomp loads; the
# user's own OMP_WAIT_POLICY / GOMP_SPINCOUNT win.  See docs/performance.md.
if "OMP_WAIT_POLICY" not in _os.environ and "GOMP_SPINCOUNT" not in _os.environ:
    _os.environ["GOMP_SPINCOUNT"] = "20000"

from ._dtypes import (bool_, int32, int64, float32, float64, complex64, complex128,  # noqa
                      dtype, result_type, can_cast, finfo, iinfo)
from ._dtypes import bool_ as bool  # noqa: F401  (tenferro.bool, like torch.bool)
from ._errors import (TenferroError, UnsupportedOperation, DeviceMismatchError,  # noqa
                      LinAlgError)
from ._tensor import Tensor  # noqa: F401
from ._ops import *  # noqa: F401,F403
from ._ops import AxisError  # noqa: F401
from . import _threads
from ._threads import get_num_threads, set_num_threads, num_threads  # noqa: F401
from .devices import device, Device  # noqa: F401
from . import devices, random  # noqa: F401
from ._config import show_config  # noqa: F401
from . import autograd  # noqa: F401
from .autograd import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled,  # noqa: F401
                       value_and_grad, vjp, jvp, linearize, hvp, jacrev, jacfwd, hessian,
                       stop_gradient, checkpoint, checkpoint_sequential)
from .autograd import functional_grad as grad  # noqa: F401

if not _threads.have_openmp():
    import warnings as _w

    _w.warn("tenferro was built without OpenMP: CPU kernels run on one thread "
            "(see tenferro.show_config())", RuntimeWarning, stacklevel=2)

newaxis = None
pi = 3.141592653589793
e = 2.718281828459045
inf = float("inf")
nan = float("nan")
