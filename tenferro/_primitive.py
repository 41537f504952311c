"""The primitive registry: every operation defined once, with everything about it.

A :class:`Primitive` carries its name, its shape/dtype rule (``abstract_eval``), and
slots for its forward-mode (``jvp``) and reverse-mode (``vjp``) rules.  Device
implementations live in the drivers' ``implementations`` tables, keyed by the
primitive's name; :func:`bind` looks them up on the inputs' device.  Public ops are
thin wrappers over ``bind`` or compositions of other public ops.

Non-differentiable primitives are declared so (``differentiable=False`` plus the
reason); a differentiable primitive with a missing rule raises ``NotImplementedError``
naming the primitive and the mode when that rule is needed -- never a silent zero.
"""
from __future__ import annotations

import itertools
import threading
from typing import Any, Sequence

from ._errors import ConcretizationError, DeviceMismatchError
from ._ir import is_abstract
from ._tensor import Tensor, _wrap

registry = {}


class _ThreadState(threading.local):
    """The autodiff state of one thread (PyTorch's semantics: ``no_grad`` or a transform
    in one thread does not change what another thread records or differentiates)."""

    def __init__(self):
        self.enabled = True      # grad mode: eager ops on tensors that require grad record
        self.interpreters = []   # this thread's open transforms and tracers, innermost last
        self.context = None      # the AdContext rule sets in force (None: the registry's)
        self.lazy = None         # lazy mode (tenferro.lazy): records what no trace owns
        # a list while a checkpointed function runs its forward (under no_grad): the
        # tensors outside it that require grad and that its ops read (the tensors it
        # closes over), which autograd's recorder appends (autograd/_checkpoint.py)
        self.watch = None


state = _ThreadState()

# Every open interpreter (autodiff transform, tracer) of every thread.  Empty means
# plain eager execution everywhere: the ops' fast paths check only this.  When it is
# not, ``bind`` finds the owning trace through the arguments, never through this list,
# so another thread's transform costs this thread its fast paths but changes nothing.
# Code that asks "is *this* thread inside a transform" reads ``state.interpreters``.
_interpreters = []

# Trace levels: nested transforms of one thread get increasing levels (the innermost
# wins in bind); a counter shared by all threads keeps that true whatever other
# threads open and close meanwhile.
_levels = itertools.count()


def push_interpreter(trace):
    """Open ``trace`` in this thread (its level is set on creation, see ``_levels``)."""
    state.interpreters.append(trace)
    _interpreters.append(trace)


def pop_interpreter(trace):
    state.interpreters.remove(trace)
    _interpreters.remove(trace)


# -- interpreters: the bases of autodiff transforms and graph tracers ----------------------

class Trace:
    """An interpreter on this thread's stack (an autodiff transform's level, a graph
    tracer): ``bind`` hands it every primitive applied to one of its tracers.  Used as
    a context manager: open while its function runs, then closed (a tracer used after
    that is reported as leaked)."""
    __slots__ = ("level", "active", "kind")

    def __init__(self, kind):
        self.kind = kind
        self.level = next(_levels)
        self.active = True

    def __enter__(self):
        push_interpreter(self)
        return self

    def __exit__(self, *exc):
        self.active = False
        pop_interpreter(self)

    def split(self, args):
        """(the primals one level down, whether any argument is this level's tracer)."""
        mine = False
        primals = []
        for a in args:
            if a._trace is self:
                primals.append(a.primal)
                mine = True
            else:
                primals.append(a)
        return tuple(primals), mine

    def leaked(self, prim):
        raise RuntimeError(
            "tenferro.%s: got a tracer of a %s transform that has already returned (a value "
            "that depends on the inputs being differentiated escaped the function, e.g. "
            "through a global or a closure); return it from the function instead"
            % (prim.name, self.kind))


class Tracer(Tensor):
    """A value being differentiated (or batched) by a functional transform.

    What ``f`` receives inside ``tf.grad(f)``, ``tf.jvp``, ``tf.vmap``: it behaves as a
    Tensor whose data is its primal's (shape, dtype and device are the primal's), and
    every operation on it is seen by its transform.  Reading its values on the host
    (``float(x)``, ``.item()``, ``np.asarray(x)``, a NumPy function) would cut the
    derivative (a silent zero), so it raises ``ConcretizationError``; read
    ``stop_gradient(x)`` where a constant is meant.  Tracers are made by the
    transforms, not by users (the constructor is Tensor's).

    Parameters
    ----------
    data : array_like
        As :class:`~tenferro.Tensor` (unused by the transforms, which build tracers
        directly).
    dtype : dtype, optional
        As :class:`~tenferro.Tensor`.
    device : Device or str, optional
        As :class:`~tenferro.Tensor`.
    copy : bool, optional
        As :class:`~tenferro.Tensor`.
    requires_grad : bool, default False
        As :class:`~tenferro.Tensor`.

    Attributes
    ----------
    primal : Tensor
        The value it stands for (itself a tracer under nested transforms).

    Examples
    --------
    >>> seen = []
    >>> _ = tf.grad(lambda x: seen.append(type(x).__name__) or x * x)(tf.asarray(2.0))
    >>> seen
    ['VJPTracer']
    >>> tf.grad(lambda x: float(x) * x)(tf.asarray(2.0))
    Traceback (most recent call last):
    ...
    tenferro._errors.ConcretizationError: tenferro.grad/vjp (a reverse-mode transform): ...
    """

    __slots__ = ("_trace", "primal")

    def _init(self, trace, primal):
        self._trace = trace
        self.primal = primal
        self._data = primal._data
        self._device = primal._device
        self._ad = None

    def _host(self, what):
        concretization_error(what, self)

    def concrete_values(self):
        """Every value this tracer stands for, as a tensor with data, or None where they
        are not known: see :func:`concrete_values`.  None here (a transform's or a graph
        tracer's value is not to be read); a batch tracer (``vmap``) gives its batch."""
        return None

    def __repr__(self):
        return "%s(level=%d, primal=%r)" % (type(self).__name__, self._trace.level,
                                            self.primal)

    def __str__(self):
        return repr(self)


def concrete_values(t):
    """Every value tensor ``t`` stands for, as a tensor with data, for host checks that
    read values without computing with them (indexing's bounds check): ``t`` itself
    when it has data, a ``vmap`` tracer's whole batch (any shape: the checks reduce
    over all of it), or None where the values are not known (traced into a graph,
    differentiated by a transform: reading ``t`` on the host then raises its
    ``ConcretizationError``).  The ops (L3) ask this hook; the batching layer (L5)
    overrides :meth:`Tracer.concrete_values`."""
    if isinstance(t, Tracer):
        return t.concrete_values()
    return None if is_abstract(t) else t


def concretization_error(what, t):
    """Raise the error for a host read (``what``) of a value being traced into a graph
    or differentiated by a functional transform."""
    if is_abstract(t):   # traced into a graph: no value yet
        raise ConcretizationError(
            "tenferro.make_graph: %s needs the value of a traced tensor (shape %s, dtype %s), "
            "which is only known when the program runs; data-dependent Python control flow "
            "and host reads cannot be traced (compute with tensor ops, e.g. tenferro.where, "
            "or run eagerly)" % (what, t.shape, t.dtype))
    raise ConcretizationError(
        "tenferro.%s: %s reads the value of a tensor being differentiated (shape %s, dtype "
        "%s) on the host, which would cut its derivative (a silent zero gradient); compute "
        "with tenferro ops instead (they accept lists of tensors and NumPy-style calls), or "
        "read tenferro.stop_gradient(x) (or x.detach()) if the value is meant to be a "
        "constant" % (_TRANSFORMS.get(t._trace.kind, t._trace.kind), what, t.shape,
                      t.dtype))


_TRANSFORMS = {"vjp": "grad/vjp (a reverse-mode transform)",
               "jvp": "jvp (a forward-mode transform)"}


# -- primitives ----------------------------------------------------------------------------

class _InstanceDoc:
    """``__doc__`` of a class whose instances have their own: the class's docstring read
    on the class, the instance's ``_doc`` slot read on an instance."""

    def __init__(self, text):
        self.text = text

    def __get__(self, obj, cls=None):
        return self.text if obj is None else obj._doc

    def __set__(self, obj, value):
        obj._doc = value


class Primitive:
    __slots__ = ("name", "abstract_eval", "jvp", "vjp", "transpose", "differentiable",
                 "nondiff_reason", "multiple_results", "impl", "zero_derivative", "_doc")
    __doc__ = _InstanceDoc("""An operation known to every transform (``jax.core.Primitive``).

    Every tenferro operation binds a primitive: eagerly it runs the kernel registered
    for the inputs' device (:func:`~tenferro.autograd.extend.def_impl`); under a
    transform it is processed by the transform (the derivative rules, the batching
    rule, the shape rule for tracing).  Creating one registers it by name.  The
    instance's ``__doc__`` is its ``doc``.

    Parameters
    ----------
    name : str
        A name unique in the registry (it names the primitive in errors and graphs).
    abstract_eval : callable, optional
        The shape rule: ``abstract_eval(*(shape, dtype) pairs, **params)`` returns the
        output's ``(shape, dtype)`` (a tuple of them for multiple results); needed to
        trace the primitive into a graph.
    differentiable : bool, default True
        Whether it has derivatives (integer-valued and piecewise-constant ones do not).
    nondiff_reason : str, optional
        Why not, for the error a transform raises.
    multiple_results : bool, default False
        Whether it returns a tuple of tensors.
    doc : str, optional
        A one-line description.

    Raises
    ------
    ValueError
        If a primitive of that name is already registered.

    See Also
    --------
    bind, def_impl, defjvp, defvjp, def_batch_rule

    Examples
    --------
    >>> from tenferro.autograd import extend
    >>> softplus_p = extend.Primitive("softplus_demo", lambda x: x)  # shape, dtype kept
    >>> _ = extend.def_impl(softplus_p, "cpu", lambda x: np.logaddexp(0.0, x))
    >>> _ = extend.defjvp(softplus_p, lambda t, x: t * tf.sigmoid(x))
    >>> _ = extend.defvjp(softplus_p, lambda ct, x: ct * tf.sigmoid(x))
    >>> x = tf.asarray([0.0, 1.0])
    >>> tf.round(softplus_p.bind(x), 6)
    tensor([0.693147, 1.313262])
    >>> tf.grad(lambda v: softplus_p.bind(v).sum())(tf.asarray([0.0]))
    tensor([0.5])
    >>> del extend.registry["softplus_demo"]   # (unregister this example's primitive)
    """)

    def __init__(self, name, abstract_eval=None, *, differentiable=True,
                 nondiff_reason=None, multiple_results=False, doc=None):
        if name in registry:
            raise ValueError("tenferro: primitive %r is already registered" % name)
        self.name = name
        self.abstract_eval = abstract_eval
        self.jvp = None
        self.vjp = None
        self.transpose = None
        self.differentiable = differentiable
        self.nondiff_reason = nondiff_reason
        self.multiple_results = multiple_results
        # A device-independent eager implementation (taking and returning Tensors), for
        # the few primitives that are not one driver's business (e.g. device_put).
        self.impl = None
        # Float-valued but piecewise constant (floor, sign, ...): not differentiable, yet
        # the eager tape passes zero gradients through it as PyTorch does.
        self.zero_derivative = False
        self.__doc__ = doc
        registry[name] = self

    def __repr__(self):
        return "Primitive(%r)" % self.name

    def bind(self, *args, **params):
        """Apply the primitive to tensors ``args`` with parameters ``params`` (see
        :func:`bind`)."""
        return bind(self, args, params)

    def def_abstract_eval(self, fn):
        """Set the shape rule (usable as a decorator)."""
        self.abstract_eval = fn
        return fn

    def def_jvp(self, fn):
        """Set the full JVP rule (as :func:`~tenferro.autograd.extend.def_jvp_rule`)."""
        self.jvp = fn
        return fn

    def def_vjp(self, fn):
        """Set the full VJP rule (as :func:`~tenferro.autograd.extend.def_vjp_rule`)."""
        self.vjp = fn
        return fn

    def rule(self, mode):
        """The JVP (``mode='jvp'``) or VJP (``mode='vjp'``) rule, or a clear error."""
        if mode not in ("jvp", "vjp"):
            raise ValueError("Primitive.rule: mode must be 'jvp' or 'vjp', got %r" % (mode,))
        if not self.differentiable:
            raise TypeError("%s is not differentiable (%s)" % (self.name, self.nondiff_reason))
        fn = self.jvp if mode == "jvp" else self.vjp
        if fn is None:
            raise NotImplementedError(
                "%s: no %s rule is registered (%s mode)" %
                (self.name, mode.upper(), "forward" if mode == "jvp" else "reverse"))
        return fn


# Set by tenferro.autograd: records eager operations on tensors that require grad on the
# tape (it checks this thread's grad mode and AdContext itself: see ``state``).
recorder = None


# -- per-device implementations ----------------------------------------------------------
# device type -> {primitive name: implementation}.  Registration only records (it loads
# no driver and imports no device library); a driver adopts its type's dict when it
# loads (tenferro.devices.base.Driver), so later registrations reach it too.
_device_impls = {}


def device_implementations(device_type):
    """The dict of implementations registered for ``device_type`` (the one its driver
    uses)."""
    return _device_impls.setdefault(device_type, {})


def def_impl(prim, device_type, fn):
    """Register ``fn(*device_arrays, **params)`` as ``prim``'s implementation on devices
    of type ``device_type`` (JAX's ``register_lowering(..., platform=)``)."""
    device_implementations(device_type)[prim.name] = fn
    return fn


def with_rules(prim):
    """``prim`` carrying the derivative rules in force: itself, or (inside an
    ``AdContext`` overriding one of its rules) an unregistered copy with the overrides.
    Every consumer of rules (tapes, transforms) reads them from what this returns."""
    c = state.context
    return prim if c is None else c.resolve(prim)


def bind(prim: Primitive, args: Sequence[Any], params: dict[str, Any]) -> Any:
    """Apply ``prim`` to tensors ``args`` (``jax.core.Primitive.bind``).

    The highest-level active trace owning one of the arguments (autodiff levels,
    ``vmap``, a graph being traced) processes the application; with none, it runs
    eagerly on the arguments' device and, when an argument takes part in eager
    autodiff, is recorded on the tape.  ``prim.bind(*args, **params)`` is the same.

    Parameters
    ----------
    prim : Primitive
        The primitive.
    args : sequence of Tensor
        Its inputs, all on one device.
    params : dict
        Its static parameters (passed to the kernel and the rules as keywords).

    Returns
    -------
    Tensor or tuple of Tensor
        The result (a tuple for a multiple-results primitive).

    Raises
    ------
    DeviceMismatchError
        If the inputs are on different devices.
    NotImplementedError
        If no kernel is registered for the device (raised by the driver).

    Examples
    --------
    >>> from tenferro.autograd.extend import bind, registry
    >>> bind(registry["add"], (tf.ones(2), tf.ones(2)), {"out_dtype": np.dtype("float64")})
    tensor([2., 2.])
    """
    if _interpreters:
        top = None
        for a in args:
            t = a._trace
            if t is not None and (top is None or t.level > top.level):
                top = t
        if top is not None:
            if not top.active:
                top.leaked(prim)
            return top.process(prim, args, params)
        if state.lazy is not None:   # this thread is in lazy mode (tenferro.lazy)
            return state.lazy.process(prim, args, params)
    taped = False
    for a in args:
        if a._ad is not None:
            taped = True
        elif a._trace is not None:  # a tracer whose transform has returned
            a._trace.leaked(prim)
    out = eager_apply(prim, args, params)
    if taped and recorder is not None:
        return recorder(prim, args, params, out)
    return out


def eager_apply(prim, args, params):
    """Run ``prim`` on its inputs' device with the driver's implementation.  (``bind``
    reads this name as a global: ``tenferro.profile`` swaps in a timing wrapper while
    it records, so profiling off costs nothing here.)"""
    if prim.impl is not None:
        return prim.impl(*args, **params)
    dev = args[0]._device
    for a in args:
        if a._device is not dev:
            raise DeviceMismatchError(prim.name, [x._device for x in args])
    # Driver.lookup is the one lookup; this is its dict probe, inlined (the hot path)
    fn = dev.driver.implementations.get(prim.name)
    if fn is None:
        fn = dev.driver.lookup(prim.name, dev, args[0].dtype)
    out = fn(*[a._data for a in args], **params)
    if prim.multiple_results:
        return tuple(_wrap(o, dev) for o in out)
    return _wrap(out, dev)



# -- profiling hooks (tenferro/_profile.py sets them while a profile is open) -------------
# A compiled program's run: ``program_hook(program, run, device_arrays, device)`` runs
# ``run(*device_arrays)`` (None: the program calls ``run`` itself).
program_hook = None


def plain_driver_call(name, dev, fn, datas, kwargs):
    """``fn(*datas, **kwargs)``: a driver function the ops call outside ``bind``
    (setitem's ``assign``/``put``, an op's ``out=``), named ``name``."""
    return fn(*datas, **kwargs)


# what the ops call for those: plain_driver_call, or the profile's timing wrapper
driver_call = plain_driver_call
