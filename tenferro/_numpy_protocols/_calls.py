"""How a NumPy function's arguments reach its tenferro twin.

A twin takes NumPy's arguments under NumPy's names, except the leading array
parameters, which may be named differently (``np.sum(a, ...)``, ``tenferro.sum(x,
...)``) and are matched by position.  A :class:`Call` is built once per (NumPy function,
twin) pair from the two signatures.  A call whose positional arguments line up and
whose keywords the twin takes goes straight through; any other call is bound to NumPy's
signature and re-spelled for the twin: arguments the twin lacks are dropped when they
hold NumPy's default, an ``out=`` tensor is filled from the twin's result, and anything
else raises :class:`Unsupported`, which sends the call to the NumPy fallback.
"""
import inspect

import numpy as np

from .. import _ops
from .._tensor import Tensor

_POS = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
_VAR_POS, _VAR_KW = inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD
_EMPTY = inspect.Parameter.empty


class Unsupported(Exception):
    """A call the twin cannot answer as NumPy would (its argument, in words)."""


def _params(fn):
    """(signature, names taken as keywords, accepts any keyword) of ``fn``; a wrapper
    (``functools.wraps``) adds its own keywords (``out=``) to the wrapped signature."""
    sig = inspect.signature(fn)
    names = {n for n, p in sig.parameters.items()
             if p.kind not in (_VAR_POS, _VAR_KW, inspect.Parameter.POSITIONAL_ONLY)}
    any_kw = any(p.kind is _VAR_KW for p in sig.parameters.values())
    if hasattr(fn, "__wrapped__"):
        outer = inspect.signature(fn, follow_wrapped=False).parameters
        names |= {n for n, p in outer.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    return sig, names, any_kw


def _is_default(value, default):
    if value is default or value is np._NoValue:
        return True
    return (default is not _EMPTY and type(value) is type(default)
            and type(value) in (bool, int, float, str) and value == default)


class Call:
    """The argument mapping from NumPy function ``np_fn`` to its twin ``fn``."""

    def __init__(self, np_fn, fn, label):
        self.fn, self.label = fn, label
        self.sig = inspect.signature(np_fn)
        nps = self.sig.parameters
        tsig, self.accepts, self.any_kw = _params(fn)
        tnames = {n for n, p in tsig.parameters.items() if p.kind not in (_VAR_POS, _VAR_KW)}
        tpos = [p for p in tsig.parameters.values() if p.kind in _POS]
        npos = [p for p in nps.values() if p.kind in _POS]
        self.rename = {}   # NumPy's name -> the twin's (None: the twin lacks it)
        for i, p in enumerate(nps.values()):
            if p.kind in (_VAR_POS, _VAR_KW):
                continue
            if p.name in tnames:
                self.rename[p.name] = p.name
            elif p.kind in _POS and i < len(tpos) and tpos[i].name not in nps:
                self.rename[p.name] = tpos[i].name
            else:
                self.rename[p.name] = None
        # leading positional arguments passed as they are
        self.prefix = 0
        for a, b in zip(npos, tpos):
            if self.rename[a.name] != b.name:
                break
            self.prefix += 1
        if any(p.kind is _VAR_POS for p in tsig.parameters.values()):
            # the twin takes *args: NumPy's positional arguments pass as they are
            self.prefix = 1 << 30 if any(p.kind is _VAR_POS for p in nps.values()) \
                else len(npos)
        self.direct = frozenset(n for n, t in self.rename.items()   # (out= is checked)
                                if t == n != "out" and (n in self.accepts or self.any_kw))
        self.tpos_only = [p.name for p in tpos if p.kind is inspect.Parameter.POSITIONAL_ONLY]
        # NumPy's defaults for the twin's required arguments (take_along_axis's axis=-1)
        self.required = {p.name: p for p in nps.values()
                         if p.default is not _EMPTY and self.rename.get(p.name)
                         and tsig.parameters[self.rename[p.name]].default is _EMPTY}

    def __call__(self, args, kwargs):
        if len(args) <= self.prefix and not self.required and (
                not kwargs or kwargs.keys() <= self.direct):
            return self.fn(*args, **kwargs)
        bound = self.sig.bind(*args, **kwargs)
        pos, kw, out = [], {}, None
        for name, value in bound.arguments.items():
            p = self.sig.parameters[name]
            if p.kind is _VAR_POS:
                pos.extend(value)
                continue
            items = value.items() if p.kind is _VAR_KW else [(name, value)]
            for n, v in items:
                target = self.rename.get(n, n if p.kind is _VAR_KW else None)
                if target is not None and (target in self.accepts or self.any_kw
                                           or target in self.tpos_only):
                    kw[target] = v
                elif n == "out" and isinstance(v, Tensor):
                    out = v
                elif not _is_default(v, p.default if p.kind is not _VAR_KW else _EMPTY):
                    raise Unsupported("takes no argument %r" % n)
        if kw.get("out") is not None and not isinstance(kw["out"], Tensor):
            raise Unsupported("writes no out= other than a tensor")   # (an ndarray: NumPy's)
        for name, p in self.required.items():
            kw.setdefault(self.rename[name], p.default)
        lead = [kw.pop(n) for n in self.tpos_only if n in kw]
        r = self.fn(*lead, *pos, **kw)
        if out is not None:
            return _ops.store_out(self.label, r, out)
        return r
