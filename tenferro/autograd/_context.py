"""AD rule sets (tenferro-rs's ``AdContext``): JVP/VJP rules that override the
registry's for some primitives, in force inside a ``with`` block or passed explicitly
to the graph transforms (``graph.grad(ctx=...)``).

The registry's rules (tenferro's own and the extensions', e.g. linalg) are the
default.  A context maps primitives to replacement rules, with the signatures of
:func:`tenferro.autograd.extend.def_jvp_rule` / ``def_vjp_rule``; a rule it lacks is
looked up in its ``parent``, then in the contexts it is nested in, then in the
registry.  Overriding a rule of a non-differentiable, piecewise-constant primitive
(``floor``, ``sign``: e.g. a straight-through gradient) makes it differentiable; its
other mode keeps the registry's zero derivative.

Where it applies: the eager tape, the functional transforms and the graph transforms.
The rules are fixed when an operation is recorded: ``y = f(x)`` inside the block and
``y.backward()`` after it uses the block's rules, as does a ``vjp_fn`` returned inside
it; ``jit`` keys its cache on the contexts in force.

Every rule lookup goes through :func:`tenferro._primitive.with_rules`: with no
context in force it returns the primitive itself (one global read), so contexts cost
nothing when unused; the eager tape's recorder is swapped only while one is entered.
"""
from .. import _primitive
from .._primitive import Primitive, registry
from . import extend

__all__ = ["AdContext"]

_MODES = ("jvp", "vjp")


class AdContext:
    """A set of JVP/VJP rules overriding the registry's for some primitives.

    As tenferro-rs's ``AdContext``.
    Use it as a context manager (``with ctx: ...``; nestable, restored on exceptions),
    where it applies to the eager tape, the functional transforms and the graph
    transforms, or pass it to ``Graph.grad``/``vjp``/``jvp`` (``ctx=``), where it
    alone (with its parents) overrides the registry, whatever context is entered
    around the call.  A rule it lacks is looked up in ``parent``, then in the contexts
    it is nested in, then in the registry.  The rules are fixed when an operation is
    recorded.  Overriding a rule of a piecewise-constant primitive (``floor``,
    ``sign``) makes it differentiable: e.g. a straight-through estimator.

    Parameters
    ----------
    rules : dict, optional
        Maps a primitive (or its registered name) to ``{"jvp": fn, "vjp": fn}`` (either
        key may be left out); the rules have the signatures of
        :func:`tenferro.autograd.extend.def_jvp_rule` and ``def_vjp_rule``.
    parent : AdContext, optional
        A context whose rules apply where this one has none.

    Raises
    ------
    TypeError
        If ``rules`` is not a dict, a rule is not callable, or ``parent`` is not an
        AdContext.
    ValueError
        If a primitive's rules are not a dict with keys ``"jvp"`` and/or ``"vjp"``.
    KeyError
        If a primitive name is not registered.

    See Also
    --------
    tenferro.autograd.extend.def_vjp_rule

    Examples
    --------
    >>> ste = tf.AdContext({"sign": {"vjp": lambda ct, primals, out, params, needs: (ct,)}})
    >>> ste
    AdContext(sign: ['vjp'])
    >>> x = tf.asarray([-2.0, 3.0])
    >>> with ste:                            # straight-through: d sign(x)/dx := 1
    ...     tf.grad(lambda v: tf.sign(v).sum())(x)
    tensor([1., 1.])
    >>> tf.grad(lambda v: tf.sign(v).sum())(x)
    tensor([0., 0.])
    """

    def __init__(self, rules=None, parent=None):
        if parent is not None and not isinstance(parent, AdContext):
            raise TypeError("tenferro.AdContext: parent must be an AdContext or None, got %s"
                            % type(parent).__name__)
        self.parent = parent
        self._rules = {}    # Primitive -> {"jvp": fn, "vjp": fn}
        self._version = 0   # bumped by every definition (jit's cache key)
        self._saved = []    # the states to restore, one per (re-)entry
        if rules is None:
            return
        if not isinstance(rules, dict):
            raise TypeError("tenferro.AdContext: rules must be a dict {primitive: {'jvp': "
                            "fn, 'vjp': fn}}, got %s" % type(rules).__name__)
        for prim, fns in rules.items():
            if not isinstance(fns, dict) or not fns or set(fns) - set(_MODES):
                raise ValueError("tenferro.AdContext: the rules of %s must be a dict with "
                                 "keys 'jvp' and/or 'vjp', got %r" % (_name(prim), fns))
            for mode, fn in fns.items():
                self._define(mode, prim, fn)

    # -- defining rules ----------------------------------------------------------------
    def def_jvp(self, prim, fn):
        """Override ``prim``'s JVP rule, ``fn(tangents, primals, out, params)``."""
        return self._define("jvp", prim, fn)

    def def_vjp(self, prim, fn):
        """Override ``prim``'s VJP rule, ``fn(ct, primals, out, params, needs)``."""
        return self._define("vjp", prim, fn)

    def defjvp(self, prim, *fns):
        """Per-argument JVP rules, as :func:`tenferro.autograd.extend.defjvp`."""
        prim = _primitive_of(prim)
        return self.def_jvp(prim, extend._per_argument_jvp(prim, fns))

    def defvjp(self, prim, *fns):
        """Per-argument VJP rules, as :func:`tenferro.autograd.extend.defvjp`."""
        prim = _primitive_of(prim)
        return self.def_vjp(prim, extend._per_argument_vjp(prim, fns))

    def _define(self, mode, prim, fn):
        prim = _primitive_of(prim)
        if not callable(fn):
            raise TypeError("tenferro.AdContext: the %s rule of %s must be callable, got %s"
                            % (mode.upper(), prim.name, type(fn).__name__))
        self._rules.setdefault(prim, {})[mode] = fn
        self._version += 1
        return fn

    def rules(self, prim):
        """The overrides this context (with its parents) holds for ``prim``: a dict
        ``{"jvp": fn, "vjp": fn}`` with only the modes it overrides."""
        prim = _primitive_of(prim)
        found = {}
        for c in self._chain():
            for mode, fn in c._rules.get(prim, {}).items():
                found.setdefault(mode, fn)
        return found

    def _chain(self):
        c, chain = self, []
        while c is not None:
            chain.append(c)
            c = c.parent
        return chain

    # -- being in force ----------------------------------------------------------------
    def __enter__(self):
        self._saved.append(_primitive.state.context)
        _activate(_InForce(self._chain() + list(_chains(_primitive.state.context))))
        return self

    def __exit__(self, *exc):
        _activate(self._saved.pop())

    def explicitly(self):
        """A context manager putting this context alone (with its parents) in force,
        ignoring any entered around it: what ``Graph.grad(ctx=...)`` uses."""
        return _Explicit(self)

    def __repr__(self):
        return "AdContext(%s%s)" % (
            ", ".join("%s: %s" % (p.name, sorted(r)) for p, r in self._rules.items()),
            ", parent=..." if self.parent is not None else "")


class _Explicit:
    __slots__ = ("ctx", "saved")

    def __init__(self, ctx):
        self.ctx = ctx

    def __enter__(self):
        self.saved = _primitive.state.context
        _activate(_InForce(self.ctx._chain()))
        return self.ctx

    def __exit__(self, *exc):
        _activate(self.saved)


def _chains(state):
    return state.chain if state is not None else ()


class _InForce:
    """The contexts in force, innermost first; resolves a primitive's rules."""
    __slots__ = ("chain",)

    def __init__(self, chain):
        self.chain = tuple(chain)

    @property
    def key(self):
        """What a traced program's rules depend on (jit's cache key)."""
        return tuple((c, c._version) for c in self.chain)

    def resolve(self, prim):
        jvp = vjp = None
        for c in self.chain:
            r = c._rules.get(prim)
            if r is not None:
                jvp = jvp or r.get("jvp")
                vjp = vjp or r.get("vjp")
        if jvp is None and vjp is None:
            return prim
        return _overridden(prim, jvp, vjp)


def _overridden(prim, jvp, vjp):
    """A copy of ``prim`` (unregistered; same name and implementation) with the given
    rules in place of the registry's."""
    p = Primitive.__new__(Primitive)
    for s in Primitive.__slots__:
        setattr(p, s, getattr(prim, s))
    if not prim.differentiable:   # an override makes it differentiable; the other
        p.differentiable = True   # mode keeps the zero derivative (or the missing rule)
        p.zero_derivative = False
        if prim.zero_derivative:
            p.jvp, p.vjp = _zero_rules(prim)
    p.jvp = jvp or p.jvp
    p.vjp = vjp or p.vjp
    return p


def _zero_rules(prim):
    """The registry's behaviour of a piecewise-constant primitive, as rules: zero
    derivatives of real inputs, the registry's error for complex ones."""
    from .._ops import zeros_like
    from ._engine import check_zero_derivative

    def jvp(tangents, primals, out, params):
        check_zero_derivative(prim, primals)

    def vjp(ct, primals, out, params, needs):
        check_zero_derivative(prim, primals)
        return tuple(zeros_like(p) if n else None for p, n in zip(primals, needs))
    vjp.uses_out = False
    return jvp, vjp


def _activate(state):
    """Put ``state`` (an :class:`_InForce` or None) in force in this thread (the eager
    tape's recorder and every transform read it through ``with_rules``)."""
    _primitive.state.context = state


def _primitive_of(prim):
    if isinstance(prim, str):
        p = registry.get(prim)
        if p is None:
            raise KeyError("tenferro.AdContext: no primitive named %r is registered" % prim)
        return p
    if not isinstance(prim, Primitive):
        raise TypeError("tenferro.AdContext: rules are keyed by a Primitive or its name, "
                        "got %s" % type(prim).__name__)
    return prim


def _name(prim):
    return getattr(prim, "name", repr(prim))
