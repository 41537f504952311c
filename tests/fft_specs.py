"""Gradcheck specs of tenferro.fft's four primitives (appended to tests/autodiff_specs.py's
SPECS, so tests/test_autograd_rules.py checks them forward, reverse and on the eager
tape, to order 2, and its registry walk sees them covered); tests/test_fft_ad.py checks
every function, length, norm and axis choice."""
import tenferro.fft as tfft

from autodiff_specs import BOTH, REAL, Arg, spec

spec("fft.fftn", lambda x: tfft.fftn(x, s=(3, 5), norm="ortho"), (Arg((3, 4)),), BOTH,
     prims=("fft.c2c",))
spec("fft.rfft", lambda x: tfft.rfft(x, axis=0), (Arg((6, 2)),), REAL, prims=("fft.r2c",))
spec("fft.ihfft2", lambda x: tfft.ihfft2(x, norm="forward"), (Arg((3, 5)),), REAL,
     prims=("fft.r2c",))
spec("fft.irfft", lambda z: tfft.irfft(z, n=7), (Arg((2, 4)),), BOTH, prims=("fft.c2r",))
spec("fft.hfftn", lambda z: tfft.hfftn(z, s=(2, 6)), (Arg((2, 4)),), BOTH,
     prims=("fft.c2r",))
spec("fft.dct2", lambda x: tfft.dct(x, norm="ortho"), (Arg((2, 5)),), BOTH,
     prims=("fft.r2r",))
spec("fft.dstn1", lambda x: tfft.dstn(x, type=1, axes=(0, 1)), (Arg((3, 4)),), BOTH,
     prims=("fft.r2r",))
