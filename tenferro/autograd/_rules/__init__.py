"""tenferro's JVP and VJP rules, registered with the public API of
:mod:`tenferro.autograd.extend` (importing this package registers them all)."""
from . import elementwise, structural  # noqa: F401
