"""The Array API functions whose signature or semantics differ from tenferro's NumPy ones.

Each wraps tenferro's op (so it stays differentiable and runs on every device);
functions tenferro does not have yet come from :func:`._host.pick`.  The annotations
are the standard's (its ``array`` is :class:`tenferro.Tensor`).  They are grouped as
the standard's chapters: ``_data_types``, ``_elementwise``, ``_statistics`` and
``_manipulation`` (creation, manipulation, ``vecdot``, sorting); this module gathers
them with the constants.
"""
import math

from ._data_types import *  # noqa: F401,F403
from ._elementwise import *  # noqa: F401,F403
from ._manipulation import *  # noqa: F401,F403
from ._statistics import *  # noqa: F401,F403

# (a literal list: type checkers read it to see what ``from ._functions import *`` gives)
__all__ = ["meshgrid", "astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type",
           "clip", "signbit", "floor_divide", "expm1", "tanh", "nextafter", "std", "var",
           "cumulative_sum", "cumulative_prod", "concat", "unstack", "vecdot",
           "take_along_axis", "diff", "argsort", "sort", "e", "pi", "inf", "nan", "newaxis"]

# the standard's constants
e, pi, inf, nan, newaxis = math.e, math.pi, math.inf, math.nan, None
