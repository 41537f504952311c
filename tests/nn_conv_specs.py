"""Gradcheck specs of tenferro.nn's convolutions and poolings (appended to
tests/autodiff_specs.py's SPECS, so tests/test_autograd_rules.py checks them forward,
reverse and on the eager tape, to order 2, tests/test_vmap_rules.py batches them, and
the registry walks see ``nn.conv`` covered); tests/test_nn_conv.py checks values and
gradients against PyTorch in many more cases."""
import tenferro.nn as tnn

from autodiff_specs import BOTH, REAL, Arg, spec

spec("nn.conv2d", lambda x, w, b: tnn.conv2d(x, w, b, stride=(2, 1), padding=(1, 0),
                                             dilation=(1, 2), groups=2),
     (Arg((2, 4, 5, 6)), Arg((4, 2, 2, 2)), Arg((4,))), BOTH, prims=("nn.conv",))
spec("nn.conv1d (same, depthwise)", lambda x, w: tnn.conv1d(x, w, padding="same", groups=3),
     (Arg((1, 3, 5)), Arg((6, 1, 2))), BOTH, prims=("nn.conv",))
spec("nn.avg_pool2d", lambda x: tnn.avg_pool2d(x, 3, 2, 1, ceil_mode=True,
                                               count_include_pad=False),
     (Arg((1, 2, 5, 4)),), BOTH, prims=("nn.conv",))
# distinct values (a tie's derivative is one-sided): the derivative is a gather
spec("nn.max_pool2d", lambda x: tnn.max_pool2d(x, (2, 3), stride=(1, 2), padding=1),
     (Arg((2, 1, 4, 5)),), REAL, prims=("nn.max_pool_argmax",))
