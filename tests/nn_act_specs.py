"""Gradcheck specs of tenferro.nn's activations and normalizations (appended to
tests/autodiff_specs.py's SPECS, so tests/test_autograd_rules.py checks them forward,
reverse and on the eager tape, to order 2, and its registry walk sees the ``nn.*``
primitives covered).  Drawn away from the kinks (finite differences are not defined
there); tests/test_nn_act.py checks the kinks themselves against PyTorch."""
import tenferro.nn as tnn
from tenferro.nn import _norm_grad

from autodiff_specs import BOTH, COMPLEX, QUADRANTS, REAL, Arg, points, spec

_OFF_KINK = Arg((3, 4), away=0.1)

spec("nn.relu", tnn.relu, (_OFF_KINK,), REAL, prims=("nn.relu",))
spec("nn.leaky_relu", lambda x: tnn.leaky_relu(x, 0.2), (_OFF_KINK,), REAL,
     prims=("nn.leaky_relu",))
spec("nn.elu", lambda x: tnn.elu(x, 1.5), (_OFF_KINK,), REAL, prims=("nn.elu",))
# softplus across its threshold (beta * x = 2 * 10 = 20) as well as below it
spec("nn.softplus", lambda x: tnn.softplus(x, beta=2.0, threshold=20.0),
     (points(-3.0, -0.4, 0.0, 0.7, 4.0, 9.5, 10.5, 30.0),), REAL, prims=("nn.softplus",))
spec("nn.gelu", tnn.gelu, (Arg((3, 4), -4.0, 4.0),), REAL, prims=("nn.gelu",))
spec("nn.gelu_tanh", lambda x: tnn.gelu(x, approximate="tanh"), (Arg((3, 4), -4.0, 4.0),),
     REAL, prims=("nn.gelu",))
spec("nn.silu", tnn.silu, (Arg((3, 4), -4.0, 4.0),), BOTH, prims=("nn.silu",))
spec("nn.silu_quadrants", tnn.silu, (points(*QUADRANTS),), COMPLEX, prims=("nn.silu",))
spec("nn.softmax", lambda x: tnn.softmax(x, axis=0), (Arg((3, 4)),), REAL, prims=())
spec("nn.log_softmax", lambda x: tnn.log_softmax(x, axis=(0, 1)), (Arg((3, 4)),), REAL,
     prims=())
spec("nn.layer_norm", lambda x, w, b: tnn.layer_norm(x, (3, 4), w, b),
     (Arg((2, 3, 4)), Arg((3, 4)), Arg((3, 4))), REAL, prims=("nn.layer_norm",))
spec("nn.layer_norm_plain", lambda x: tnn.layer_norm(x, 4, eps=1e-3), (Arg((3, 4)),), REAL,
     prims=("nn.layer_norm",))
spec("nn.layer_norm_bias", lambda x, b: tnn.layer_norm(x, 4, None, b), (Arg((3, 4)), Arg((4,))),
     REAL, prims=("nn.layer_norm",))
spec("nn.rms_norm", lambda x, w: tnn.rms_norm(x, 4, w), (Arg((2, 3, 4)), Arg((4,))), REAL,
     prims=("nn.rms_norm",))
spec("nn.rms_norm_plain", lambda x: tnn.rms_norm(x, (3, 4), eps=1e-3), (Arg((2, 3, 4)),),
     REAL, prims=("nn.rms_norm",))
spec("nn.affine", tnn.affine, (Arg((2, 3)), Arg((3,)), Arg(())), BOTH, prims=())
# the backward primitives on their own (their derivatives: those of PyTorch's formula)
spec("nn.layer_norm_grad", lambda ct, x, w: _norm_grad.grad(False, ct, x, w, 1, 1e-5),
     (Arg((3, 4)), Arg((3, 4)), Arg((4,))), REAL, prims=("nn.layer_norm_grad",))
spec("nn.rms_norm_grad", lambda ct, x: _norm_grad.grad(True, ct, x, None, 2, 1e-3)[:2],
     (Arg((2, 3, 4)), Arg((2, 3, 4))), REAL, prims=("nn.rms_norm_grad",))
