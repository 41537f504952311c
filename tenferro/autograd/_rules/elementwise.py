"""JVP and VJP rules of the elementwise primitives (and of convert, copy, device_put).

Every rule is written with public tenferro ops, so derivatives of derivatives come from
differentiating these rules.  Conventions (see :mod:`tenferro.autograd.extend`):

* a holomorphic ``f`` has JVP ``t * f'(z)`` and VJP ``ct * conj(f'(z))``;
* binary primitives broadcast: a JVP contribution has the output's full shape, a VJP
  result the input's shape and dtype (:func:`unbroadcast_to`);
* ``out`` (the primitive's output) is reused where it saves work.

Sources: PyTorch ``tools/autograd/derivatives.yaml`` and ``FunctionsManual.cpp`` (the
complex convention and the conventions at kinks and ties), JAX ``lax.py``.
"""
import math

from ... import _ops
from ..._ops.conversion import convert_p, copy_p, device_put_p
from ..._ops.elementwise import PRIMS, where_p, clip_p
from ..extend import deflinear, defjvp, defvjp, def_jvp_rule, def_vjp_rule, zero_derivative
from ._util import conj, unbroadcast_to

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _full(t, out):
    """A JVP contribution ``t`` broadcast to the output's shape."""
    return t if t.shape == out.shape else _ops.broadcast_to(t, out.shape)


def _safe(d):
    """``d`` with its zeros replaced by ones (a denominator whose zeros are masked)."""
    return _ops.where(d == 0, 1.0, d)


# -- linear unary ---------------------------------------------------------------------

# PyTorch derivatives.yaml (neg): grad.neg()
deflinear(PRIMS["negative"], lambda ct, x: -ct)
# PyTorch derivatives.yaml (positive: an alias; the identity)
deflinear(PRIMS["positive"], lambda ct, x: ct)
# PyTorch derivatives.yaml (conj_physical): grad.conj_physical()
deflinear(PRIMS["conj"], lambda ct, x: conj(ct))
# PyTorch derivatives.yaml (real): at::real(grad) forward, grad cast to complex backward
deflinear(PRIMS["real"], lambda ct, x: _ops.astype(ct, x.dtype))
# PyTorch derivatives.yaml (imag): at::imag(grad) forward, 1j * grad backward
deflinear(PRIMS["imag"], lambda ct, x: _ops.astype(ct, x.dtype) * 1j)


# -- holomorphic unary: f'(x) from (x, out) -------------------------------------------

def _holomorphic(name, deriv):
    """JVP ``t * f'``, VJP ``ct * conj(f')`` with ``f' = deriv(x, out)``."""
    prim = PRIMS[name]
    defjvp(prim, lambda t, x, *, out: t * deriv(x, out))
    defvjp(prim, lambda ct, x, *, out: ct * conj(deriv(x, out)))


def _holomorphic_div(name, denom):
    """``f' = 1 / denom(x, out)``: JVP ``t / denom``, VJP ``ct / conj(denom)``."""
    prim = PRIMS[name]
    defjvp(prim, lambda t, x, *, out: t / denom(x, out))
    defvjp(prim, lambda ct, x, *, out: ct / conj(denom(x, out)))


# PyTorch derivatives.yaml (exp): grad * result.conj()
_holomorphic("exp", lambda x, out: out)
# PyTorch derivatives.yaml (expm1): grad * (result.conj() + 1)
_holomorphic("expm1", lambda x, out: out + 1.0)
# PyTorch derivatives.yaml (exp2): grad * (result.conj() * M_LN2)
_holomorphic("exp2", lambda x, out: out * _LN2)
# PyTorch derivatives.yaml (log): grad.div(self.conj())
_holomorphic_div("log", lambda x, out: x)
# PyTorch derivatives.yaml (log1p): log1p_backward, grad / (self + 1).conj()
_holomorphic_div("log1p", lambda x, out: x + 1.0)
# PyTorch derivatives.yaml (log2): grad / (self.conj() * M_LN2)
_holomorphic_div("log2", lambda x, out: x * _LN2)
# PyTorch derivatives.yaml (log10): grad / (self.conj() * M_LN10)
_holomorphic_div("log10", lambda x, out: x * _LN10)
# PyTorch derivatives.yaml (sqrt): grad / (2 * result.conj())
_holomorphic_div("sqrt", lambda x, out: out * 2.0)
# PyTorch derivatives.yaml (rsqrt): -0.5 * grad * result.pow(3).conj()
_holomorphic("rsqrt", lambda x, out: out * out * out * -0.5)
# PyTorch derivatives.yaml (square -> pow(self, 2)): grad * 2 * self.conj()
_holomorphic("square", lambda x, out: x * 2.0)
# PyTorch derivatives.yaml (reciprocal): -grad * (result * result).conj()
_holomorphic("reciprocal", lambda x, out: -(out * out))
# PyTorch derivatives.yaml (sin): grad * self.cos().conj()
_holomorphic("sin", lambda x, out: _ops.cos(x))
# PyTorch derivatives.yaml (cos): grad * -self.sin().conj()
_holomorphic("cos", lambda x, out: -_ops.sin(x))
# PyTorch derivatives.yaml (tan): grad * (1 + result.pow(2)).conj()
_holomorphic("tan", lambda x, out: 1.0 + out * out)
# PyTorch derivatives.yaml (asin): grad * (-self * self + 1).rsqrt().conj()
_holomorphic("arcsin", lambda x, out: _ops.rsqrt(1.0 - x * x))
# PyTorch derivatives.yaml (acos): grad * -((-self * self + 1).rsqrt()).conj()
_holomorphic("arccos", lambda x, out: -_ops.rsqrt(1.0 - x * x))
# PyTorch derivatives.yaml (atan): grad / (self * self + 1).conj()
_holomorphic_div("arctan", lambda x, out: 1.0 + x * x)
# PyTorch derivatives.yaml (sinh): grad * self.cosh().conj()
_holomorphic("sinh", lambda x, out: _ops.cosh(x))
# PyTorch derivatives.yaml (cosh): grad * self.sinh().conj()
_holomorphic("cosh", lambda x, out: _ops.sinh(x))
# PyTorch derivatives.yaml (tanh): tanh_backward, grad * (1 - result^2).conj()
_holomorphic("tanh", lambda x, out: 1.0 - out * out)
# PyTorch derivatives.yaml (asinh): grad * (self.pow(2) + 1).rsqrt().conj()
_holomorphic("arcsinh", lambda x, out: _ops.rsqrt(x * x + 1.0))
# PyTorch derivatives.yaml (acosh): rsqrt(x*x - 1) for real x, rsqrt(x+1)*rsqrt(x-1) for
# complex x (sqrt(a*b) != sqrt(a)*sqrt(b) off the positive reals)
_holomorphic("arccosh", lambda x, out: (_ops.rsqrt(x + 1.0) * _ops.rsqrt(x - 1.0)
                                        if x.dtype.kind == "c" else _ops.rsqrt(x * x - 1.0)))
# PyTorch derivatives.yaml (atanh): grad * 1 / (1 - self.pow(2)).conj()
_holomorphic_div("arctanh", lambda x, out: 1.0 - x * x)
# PyTorch derivatives.yaml (sigmoid): sigmoid_backward, grad * (result * (1 - result)).conj()
_holomorphic("sigmoid", lambda x, out: out * (1.0 - out))
# PyTorch derivatives.yaml (erf): 2.0 / sqrt(M_PI) * exp(-(self.pow(2))) * grad (real only)
_holomorphic("erf", lambda x, out: _ops.exp(-(x * x)) * _TWO_OVER_SQRT_PI)


# -- non-holomorphic unary ------------------------------------------------------------

def _sgn(z, a):
    """``z / |z|`` (0 at 0) for complex ``z`` with ``a = |z|``: PyTorch's sgn."""
    return z / _safe(a)


def _abs_jvp(t, x, *, out):
    if x.dtype.kind != "c":
        return t * _ops.sign(x)
    return _ops.real(_ops.conj(x) * t) / _safe(out)


def _abs_vjp(ct, x, *, out):
    if x.dtype.kind != "c":
        return ct * _ops.sign(x)
    return ct * _sgn(x, out)


# PyTorch derivatives.yaml (abs): grad * self.sgn(); jvp real(conj(sgn(z)) * t) (0 at 0)
defjvp(PRIMS["abs"], _abs_jvp)
defvjp(PRIMS["abs"], _abs_vjp)


def _abs2(z):
    a = _ops.abs(z)
    return a * a


def _angle_jvp(t, x, *, out):
    if x.dtype.kind != "c":
        return _ops.zeros_like(out)
    return _ops.imag(_ops.conj(x) * t) / _safe(_abs2(x))


def _angle_vjp(ct, x, *, out):
    if x.dtype.kind != "c":
        return _ops.zeros_like(x)
    return ct * (x * 1j) / _safe(_abs2(x))


# PyTorch FunctionsManual.cpp angle_backward: grad * i z / |z|^2 (0 at 0, zeros for real)
defjvp(PRIMS["angle"], _angle_jvp)
defvjp(PRIMS["angle"], _angle_vjp)


# -- piecewise constant: zero derivative (PyTorch: zeros_like(grad)) ------------------
for _name in ("sign", "floor", "ceil", "trunc", "round", "floor_divide"):
    zero_derivative(PRIMS[_name])


# -- binary ---------------------------------------------------------------------------

# PyTorch derivatives.yaml (add.Tensor): self_t + other_t; grad to both
defjvp(PRIMS["add"], lambda t, x, y, *, out: _full(t, out),
       lambda t, x, y, *, out: _full(t, out))
defvjp(PRIMS["add"], lambda ct, x, y: unbroadcast_to(ct, x),
       lambda ct, x, y: unbroadcast_to(ct, y))

# PyTorch derivatives.yaml (sub.Tensor): self_t - other_t; grad, -grad
defjvp(PRIMS["subtract"], lambda t, x, y, *, out: _full(t, out),
       lambda t, x, y, *, out: _full(-t, out))
defvjp(PRIMS["subtract"], lambda ct, x, y: unbroadcast_to(ct, x),
       lambda ct, x, y: unbroadcast_to(-ct, y))

# PyTorch derivatives.yaml (mul.Tensor): mul_tensor_backward, grad * other.conj()
defjvp(PRIMS["multiply"], lambda t, x, y: t * y, lambda t, x, y: x * t)
defvjp(PRIMS["multiply"], lambda ct, x, y: unbroadcast_to(ct * conj(y), x),
       lambda ct, x, y: unbroadcast_to(conj(x) * ct, y))

# PyTorch derivatives.yaml (div.Tensor): div_tensor_self/other_backward,
# grad / other.conj() and -grad * (self / other / other).conj() (= -grad * conj(out / other))
defjvp(PRIMS["divide"], lambda t, x, y: t / y,
       lambda t, x, y, *, out: -t * (out / y))
defvjp(PRIMS["divide"], lambda ct, x, y: unbroadcast_to(ct / conj(y), x),
       lambda ct, x, y, *, out: unbroadcast_to(-ct * conj(out / y), y))

# PyTorch derivatives.yaml (remainder.Tensor): grad; -grad * self.div(other, "floor")
defjvp(PRIMS["remainder"], lambda t, x, y, *, out: _full(t, out),
       lambda t, x, y: -t * _ops.floor_divide(x, y))
defvjp(PRIMS["remainder"], lambda ct, x, y: unbroadcast_to(ct, x),
       lambda ct, x, y: unbroadcast_to(-ct * _ops.floor_divide(x, y), y))


def _pow_dx(x, y):
    """d x**y / dx = y * x**(y - 1), 0 where y == 0 (PyTorch pow_backward_self)."""
    return _ops.where(y == 0, 0.0, y * _ops.power(x, y - 1.0))


def _pow_dy(x, y, out):
    """d x**y / dy = x**y log(x), 0 where x == 0 and y is real >= 0 (PyTorch
    pow_backward_exponent)."""
    if y.dtype.kind == "c":
        mask = _ops.logical_and(_ops.real(y) >= 0, _ops.imag(y) == 0)
    else:
        mask = y >= 0
    mask = _ops.logical_and(x == 0, mask)
    return _ops.where(mask, 0.0, out * _ops.log(_ops.where(mask, 1.0, x)))


# PyTorch derivatives.yaml (pow.Tensor_Tensor), FunctionsManual.cpp pow_backward_self /
# pow_backward_exponent
defjvp(PRIMS["power"], lambda t, x, y: t * _pow_dx(x, y),
       lambda t, x, y, *, out: t * _pow_dy(x, y, out))
defvjp(PRIMS["power"], lambda ct, x, y: unbroadcast_to(ct * conj(_pow_dx(x, y)), x),
       lambda ct, x, y, *, out: unbroadcast_to(ct * conj(_pow_dy(x, y, out)), y))


def _takes(x, y, beats, nan_wins):
    """Masks (output is x, output is y) of a binary max/min, NumPy's choice: ``beats``
    is ``greater`` (max) or ``less`` (min); ``nan_wins`` (maximum/minimum) returns a
    NaN operand, otherwise (fmax/fmin) the other one; of two NaNs the first.  Where
    neither mask holds the operands are equal (a tie)."""
    nx, ny = _ops.isnan(x), _ops.isnan(y)
    if not nan_wins:
        nx, ny = ny, nx          # fmax: x is returned where y is NaN, y where only x is
    takes_x = _ops.logical_or(nx, beats(x, y))
    takes_y = _ops.logical_and(_ops.logical_not(nx), _ops.logical_or(ny, beats(y, x)))
    return takes_x, takes_y


def _minmax(name, beats, nan_wins):
    """Rules of maximum/minimum/fmax/fmin: the whole ``g`` to the operand returned,
    split 0.5/0.5 on ties (as JAX; PyTorch derivatives.yaml (maximum, fmax) masks
    self < other and splits ties likewise, but sends a NaN's gradient to both)."""
    def share(g, x, y, k):
        t = _takes(x, y, beats, nan_wins)
        tie = _ops.logical_not(_ops.logical_or(*t))
        return _ops.where(t[k], g, _ops.where(tie, g * 0.5, 0.0))

    defjvp(PRIMS[name], lambda t, x, y: share(t, x, y, 0), lambda t, x, y: share(t, x, y, 1))
    defvjp(PRIMS[name], lambda ct, x, y: unbroadcast_to(share(ct, x, y, 0), x),
           lambda ct, x, y: unbroadcast_to(share(ct, x, y, 1), y))


_minmax("maximum", _ops.greater, True)
_minmax("minimum", _ops.less, True)
_minmax("fmax", _ops.greater, False)
_minmax("fmin", _ops.less, False)


def _atan2_den(x, y):
    return x * x + y * y


# PyTorch FunctionsManual.cpp atan2_backward: grad * other / (self^2 + other^2),
# grad * -self / (self^2 + other^2); JAX lax.py (atan2) alike
defjvp(PRIMS["arctan2"], lambda t, x, y: t * (y / _atan2_den(x, y)),
       lambda t, x, y: t * (-x / _atan2_den(x, y)))
defvjp(PRIMS["arctan2"], lambda ct, x, y: unbroadcast_to(ct * (y / _atan2_den(x, y)), x),
       lambda ct, x, y: unbroadcast_to(ct * (-x / _atan2_den(x, y)), y))

# PyTorch derivatives.yaml (hypot): grad * self / result, grad * other / result
defjvp(PRIMS["hypot"], lambda t, x, y, *, out: t * (x / out),
       lambda t, x, y, *, out: t * (y / out))
defvjp(PRIMS["hypot"], lambda ct, x, y, *, out: unbroadcast_to(ct * (x / out), x),
       lambda ct, x, y, *, out: unbroadcast_to(ct * (y / out), y))


def _copysign_ratio(x, out):
    """out / x, 0 where x == 0 (PyTorch copysign_tensor_self_backward)."""
    nz = x == 0
    return _ops.where(nz, 0.0, out / _ops.where(nz, 1.0, x))


# PyTorch derivatives.yaml (copysign.Tensor): copysign_tensor_self_backward; other: 0
defjvp(PRIMS["copysign"], lambda t, x, y, *, out: t * _copysign_ratio(x, out),
       lambda t, x, y: None)
defvjp(PRIMS["copysign"],
       lambda ct, x, y, *, out: unbroadcast_to(ct * _copysign_ratio(x, out), x),
       lambda ct, x, y: _ops.zeros_like(y))

# PyTorch derivatives.yaml (logaddexp): grad / (1 + exp(other - self)), and symmetric
defjvp(PRIMS["logaddexp"], lambda t, x, y: t / (1.0 + _ops.exp(y - x)),
       lambda t, x, y: t / (1.0 + _ops.exp(x - y)))
defvjp(PRIMS["logaddexp"],
       lambda ct, x, y: unbroadcast_to(ct / (1.0 + _ops.exp(y - x)), x),
       lambda ct, x, y: unbroadcast_to(ct / (1.0 + _ops.exp(x - y)), y))


# -- where, clip ----------------------------------------------------------------------

# PyTorch derivatives.yaml (where.self): where(condition, grad, 0), where(condition, 0, grad)
defjvp(where_p, None,
       lambda t, c, x, y, *, out: _full(_ops.where(c, t, 0.0), out),
       lambda t, c, x, y, *, out: _full(_ops.where(c, 0.0, t), out))
defvjp(where_p, None,
       lambda ct, c, x, y: unbroadcast_to(_ops.where(c, ct, 0.0), x),
       lambda ct, c, x, y: unbroadcast_to(_ops.where(c, 0.0, ct), y))


def _clip_masks(x, lo, hi):
    """Where the output is x, lo, hi (a partition; lo > hi gives hi, as NumPy and
    PyTorch)."""
    mx = _ops.logical_and(x >= lo, x <= hi)
    mlo = _ops.logical_and(x < lo, lo < hi)
    mhi = _ops.logical_or(x > hi, hi < lo)
    return mx, mlo, mhi


def _clip_jvp(k):
    def f(t, x, lo, hi, *, out):
        return _full(_ops.where(_clip_masks(x, lo, hi)[k], t, 0.0), out)
    return f


def _clip_vjp(k):
    def f(ct, x, lo, hi):
        return unbroadcast_to(_ops.where(_clip_masks(x, lo, hi)[k], ct, 0.0),
                              (x, lo, hi)[k])
    return f


# PyTorch derivatives.yaml (clamp.Tensor), FunctionsManual.cpp clamp_backward,
# clamp_backward_min_max, clamp_jvp
defjvp(clip_p, _clip_jvp(0), _clip_jvp(1), _clip_jvp(2))
defvjp(clip_p, _clip_vjp(0), _clip_vjp(1), _clip_vjp(2))


# -- convert, copy, device_put --------------------------------------------------------

def _convert_jvp(tangents, primals, out, params):
    t = tangents[0]
    if t is None or params["dtype"].kind not in "fc":
        return None  # no tangent for integer or boolean results
    return _ops.astype(t, params["dtype"])


def _convert_vjp(ct, primals, out, params, needs):
    x = primals[0]
    if not needs[0] or ct is None or x.dtype.kind not in "fc":
        return (None,)
    return (unbroadcast_to(ct, x),)  # cast back; real part for a real x


# PyTorch derivatives.yaml (_to_copy): _to_copy_backward, grad cast back to self's dtype
# (real part when self is real: handle_r_to_c)
def_jvp_rule(convert_p, _convert_jvp)
def_vjp_rule(convert_p, _convert_vjp)

# PyTorch derivatives.yaml (clone): grad
deflinear(copy_p, lambda ct, x: ct)
# PyTorch derivatives.yaml (_to_copy, device change): grad.to(self.device())
deflinear(device_put_p, lambda ct, x: _ops.to_device(ct, x.device))
