"""Profiling (tenferro-rs's ``TENFERRO_PROFILE_*``): per-primitive call counts, time
and bytes, per device.

``with tenferro.profile() as p: ...`` records every operation run inside the block
(``p.table()``, ``p.rows()``, ``str(p)``); ``TENFERRO_PROFILE=1`` in the environment
records from ``import tenferro`` on and prints the table to stderr at exit.

How it sees every op at no cost when off:

* every eager application of a primitive goes through ``_primitive.eager_apply``,
  which ``bind`` reads as a module global: while a profile is open that global is a
  timing wrapper, and otherwise the plain function (no test at all on the hot path);
* the eager fast paths (``_ops/_fastpath.pyx``, einsum's, jit's, linalg's and
  special's) all run only while ``_primitive._interpreters`` is empty: an open
  profile puts a marker there, so they step aside to their general paths, which
  ``bind``.  The check they already make is the only one, on or off;
* a compiled program's run (``jit``, ``Program``) is one row, ``jit:<name>``, through
  ``_primitive.program_hook``, which runs a copy of the program's generated code
  whose steps are timed (rows within the program's); in-place writes that are no
  primitive (``setitem``, ``out=``) come through ``_primitive.driver_call``.

Rows are top-level applications: an op run inside another profiled op (a primitive
implemented with others, a program's nodes) counts in its caller's time, not as a row
of its own.  Profiles are process-wide: ops of every thread are recorded, under one
lock, into every open profile (so nested profiles each see their part).
"""
from __future__ import annotations

import atexit
import os
import sys
import threading
import time
import weakref
from typing import Any

from . import _primitive, devices

__all__ = ["profile", "Profile"]

_lock = threading.Lock()
_open = []                   # the open profiles, outermost first
_MARK = object()             # the marker in _primitive._interpreters while any is open
_plain_apply = _primitive.eager_apply
_depth = threading.local()   # per thread: inside a recorded op (nested ops not rows)


class Profile:
    """What a profile recorded: calls, time and bytes per operation and device.

    Made by :func:`profile` and used as a context manager.  ``p.stats`` is
    ``{(op, device, within): [calls, seconds, bytes]}`` (``within``: None, or the
    program row a step of a compiled program belongs to); :meth:`rows`, :meth:`calls`
    and :meth:`table` (also ``print(p)``) read it.  ``p.wall_s`` is the wall time with
    the profile open.

    Parameters
    ----------
    sync : bool, default True
        After each op on a device that runs asynchronously (WebGPU, CUDA) wait for it,
        so an op's time is its submission and its execution; with False the time is
        the host's (submission only) and the device's work lands in whatever op next
        waits for it (a host read).  Opening a profile with ``sync`` first waits for the
        devices in use: work queued before the block is not counted in its first op.

    Raises
    ------
    RuntimeError
        If the profile is entered while already open.

    See Also
    --------
    profile

    Examples
    --------
    >>> x = tf.ones(1000)
    >>> with tf.Profile() as p:
    ...     y = tf.sin(x) * 2.0
    >>> sorted((r["op"], r["device"], r["calls"]) for r in p.rows())
    [('multiply', 'cpu', 1), ('sin', 'cpu', 1)]
    >>> p.calls("sin"), p.calls("multiply", "cpu")
    (1, 1)
    """

    def __init__(self, sync: bool = True):
        self.sync = bool(sync)
        self.stats: dict[tuple[str, str, str | None], list] = {}
        self.wall_s = 0.0
        self._t0 = None

    def __enter__(self) -> Profile:
        if self.sync:   # work queued before the block is not the first op's
            for dev in set(devices._devices.values()):
                if dev.type != "cpu":
                    dev.synchronize()
        self._t0 = time.perf_counter()
        _start(self)
        return self

    def __exit__(self, *exc) -> None:
        _stop(self)
        self.wall_s += time.perf_counter() - self._t0

    def rows(self) -> list[dict[str, Any]]:
        """One dict per (op, device): ``op``, ``device``, ``calls``, ``total_s``,
        ``mean_s``, ``bytes`` (inputs read plus outputs written; 0 for views) and
        ``within``: None for an operation, the program's row (``"jit:f"``) for one of
        its steps (``"<step index>:<primitive>"``, a fused group
        ``"<index>:fused[sin,mul,...]"``), whose time is part of the program's.
        Operations by total time, most first, each program followed by its steps in
        order."""
        with _lock:
            items = [(k, list(v)) for k, v in self.stats.items()]
        rows = [{"op": op, "device": dev, "calls": n, "total_s": s, "mean_s": s / n,
                 "bytes": b, "within": within} for (op, dev, within), (n, s, b) in items]
        top = sorted((r for r in rows if r["within"] is None),
                     key=lambda r: (-r["total_s"], r["op"], r["device"]))
        steps = sorted((r for r in rows if r["within"] is not None),
                       key=lambda r: (int(r["op"].partition(":")[0]), r["device"]))
        out = []
        for r in top:
            out.append(r)
            out.extend(x for x in steps if x["within"] == r["op"]
                       and x["device"] == r["device"])
        return out

    def calls(self, op: str, device: str | None = None, within: str | None = None) -> int:
        """How many times ``op`` ran (on ``device``, or on any; ``within`` a program's
        row: as one of its steps)."""
        return sum(r["calls"] for r in self.rows() if r["op"] == op and r["within"] == within
                   and (device is None or r["device"] == device))

    def table(self) -> str:
        """The rows as a text table (a program's steps indented under it), with totals
        (of the operations: the steps are part of their program's time)."""
        rows = self.rows()
        fmt = "%-32s %-9s %9s %12s %12s %10s"
        lines = [fmt % ("op", "device", "calls", "total ms", "mean us", "bytes")]
        for r in rows:
            name = r["op"] if r["within"] is None else "  " + r["op"]
            lines.append(fmt % (name[:32], r["device"], r["calls"],
                                "%.3f" % (r["total_s"] * 1e3), "%.2f" % (r["mean_s"] * 1e6),
                                _size(r["bytes"])))
        top = [r for r in rows if r["within"] is None]
        lines.append(fmt % ("total", "", sum(r["calls"] for r in top),
                            "%.3f" % (sum(r["total_s"] for r in top) * 1e3), "",
                            _size(sum(r["bytes"] for r in top))))
        lines.append("(wall time with the profile open: %.3f ms)" % (self.wall_s * 1e3))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        return "<tenferro.Profile: %d ops, %d rows>" % (
            sum(r["calls"] for r in self.rows() if r["within"] is None), len(self.stats))


def profile(sync: bool = True) -> Profile:
    """Record every operation run in a ``with`` block: ``with tenferro.profile() as p: ...``.

    Every eager op, compiled program (and its steps) and kernel call run in the block,
    in any thread, is counted with its time and the bytes it read and wrote.  Nestable:
    an op counts in every open profile.  Profiling changes no result; off, it costs
    nothing.

    Parameters
    ----------
    sync : bool, default True
        Wait for asynchronous devices after each op (see :class:`Profile`).

    Returns
    -------
    Profile
        The recorder, to use as a context manager; ``print(p)`` shows a table.

    Raises
    ------
    RuntimeError
        When the returned profile is entered while it is already open.

    See Also
    --------
    Profile

    Examples
    --------
    >>> x = tf.ones(1000)
    >>> with tf.profile() as p:
    ...     y = tf.sin(x)
    ...     z = tf.sin(y) * 2.0
    >>> p.calls("sin"), p.calls("multiply")
    (2, 1)
    >>> print(p)
    op device calls total ms mean us bytes
    ...
    total 3 ...
    (wall time with the profile open: ... ms)
    """
    return Profile(sync)


# -- the hooks -------------------------------------------------------------------------

def _start(p):
    with _lock:
        if p in _open:
            raise RuntimeError("tenferro.profile: this profile is already open")
        _open.append(p)
        if len(_open) == 1:
            _primitive._interpreters.append(_MARK)   # the fast paths step aside
            _primitive.eager_apply = _timed_apply
            _primitive.program_hook = _timed_program
            _primitive.driver_call = _timed_driver_call


def _stop(p):
    with _lock:
        _open.remove(p)
        if not _open:
            _primitive.eager_apply = _plain_apply
            _primitive.program_hook = None
            _primitive.driver_call = _primitive.plain_driver_call
            _primitive._interpreters.remove(_MARK)


def _size(n):
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return ("%d %s" if unit == "B" else "%.1f %s") % (n, unit)
        n /= 1000.0


def _nbytes(d):
    n = getattr(d, "nbytes", None)
    if n is None:
        n = d.dtype.itemsize
        for s in d.shape:
            n *= s
    return int(n)


def _timed(name, dev, fn, args, in_datas, out_datas_of):
    """Run ``fn(*args)`` and record it as ``name`` on ``dev`` (a top-level op only)."""
    depth = getattr(_depth, "n", 0)
    if depth:
        return fn(*args)
    _depth.n = 1
    try:
        t0 = time.perf_counter()
        out = fn(*args)
        sync = dev is not None and dev.type != "cpu" and any(p.sync for p in _open)
        if sync:
            dev.driver.synchronize(dev)
        dt = time.perf_counter() - t0
    finally:
        _depth.n = 0
    nbytes = sum(_nbytes(d) for d in in_datas) + sum(_nbytes(d) for d in out_datas_of(out))
    _add((name, str(dev) if dev is not None else "-", None), dt, nbytes)
    return out


def _add(key, dt, nbytes):
    """Count one call of ``key`` (op, device, within) in every open profile."""
    with _lock:
        for p in _open:
            s = p.stats.get(key)
            if s is None:
                p.stats[key] = [1, dt, nbytes]
            else:
                s[0] += 1
                s[1] += dt
                s[2] += nbytes


def _outs(out):
    """The device arrays of an application's result (a Tensor, or a tuple or list of
    them, as multiple-result primitives and device-independent implementations give)."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [o._data for o in outs if getattr(o, "_data", None) is not None]


def _timed_apply(prim, args, params):
    """``eager_apply`` timed: one row per primitive; views read and write nothing."""
    dev = args[0]._device if args else None
    run = lambda: _plain_apply(prim, args, params)   # noqa: E731
    if dev is not None and prim.name in getattr(dev.driver, "view_ops", ()):
        return _timed(prim.name, dev, run, (), (), lambda out: ())
    return _timed(prim.name, dev, run, (), [a._data for a in args], _outs)


def _timed_program(prog, run, datas, dev):
    """A compiled program's run: one row ``jit:<graph name>``, run by a version of its
    code whose steps are timed too (made once per program and device)."""
    if getattr(_depth, "n", 0):   # inside another recorded op: part of its time
        return run(*datas)
    row = "jit:" + prog.graph.name
    per = _step_runners.get(prog)
    if per is None:
        per = _step_runners[prog] = {}
    timed = per.get(dev)
    if timed is None:
        index = {id(n): i for i, n in enumerate(prog.graph.nodes)}
        timed = per[dev] = prog._runner(dev, wrap=lambda node, fn: _timed_step(
            row, "%d:%s" % (index[id(node)], _step_name(node)), fn, dev))
    return _timed(row, dev, timed, datas, datas, lambda out: [o._data for o in out])


_step_runners = weakref.WeakKeyDictionary()   # Program -> {device: its timed runner}


def _step_name(node):
    g = node.params.get("graph") if node.prim.name == "fused_elementwise" else None
    if g is None:
        return node.prim.name
    return "fused[%s]" % ",".join(n.prim.name for n in g.nodes)


def _arrays(xs):
    """The device arrays among a step's arguments or results (Tensors' data)."""
    if not isinstance(xs, (tuple, list)):
        xs = (xs,)
    return [getattr(x, "_data", x) for x in xs if hasattr(x, "dtype")]


def _timed_step(row, step, fn, dev):
    """``fn`` (a program step's function) recording each call as ``step`` within
    ``row``: its time and the bytes of its array arguments and results."""
    key = (step, str(dev), row)

    def timed(*args, **kwargs):
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        if dev.type != "cpu" and any(p.sync for p in _open):
            dev.driver.synchronize(dev)
        dt = time.perf_counter() - t0
        _add(key, dt, sum(_nbytes(d) for d in _arrays(args) + _arrays(out)))
        return out

    return timed


def _timed_driver_call(name, dev, fn, datas, kwargs):
    """A driver function called outside ``bind``: ``assign(dst, src)``, ``put(x,
    positions, values)``, an op with ``out=`` (or computing in another dtype before
    its ``assign``).  Bytes: what it reads (the operands besides the destination) and
    what it writes (``dst``, ``values``, ``out`` or the result)."""
    if name == "assign" or name == "put":
        reads, written = datas[1:], datas[0] if name == "assign" else datas[-1]
    else:
        reads, written = datas, kwargs.get("out")
    return _timed(name, dev, lambda: fn(*datas, **kwargs), (), reads,
                  lambda r: (r if written is None else written,))


# -- TENFERRO_PROFILE=1: from import to exit ----------------------------------------------

def _at_exit(p):
    p.__exit__(None, None, None)
    print("=== tenferro profile (TENFERRO_PROFILE=1) ===\n" + p.table(), file=sys.stderr)


if os.environ.get("TENFERRO_PROFILE", "") not in ("", "0"):
    _env_profile = Profile().__enter__()
    atexit.register(_at_exit, _env_profile)
