"""In-place mutation tracking, so autodiff never uses silently modified saved tensors.

Every in-place write (setitem, ``out=``, ``op=``, ``copy_into``) bumps a global epoch and
remembers the epoch for the written buffer.  A recorded autodiff node keeps the epoch at
which it was made; when the epoch has moved by the time its rule runs, it checks its
saved tensors' buffers (PyTorch's version counters, paid only when mutation happens).
"""
import itertools
import weakref

epoch = 0
_epochs = itertools.count(1)   # next() is atomic: threads never share an epoch
# id(buffer) -> (weak reference to the buffer, epoch of its last write); the entry goes
# with the buffer (ndarrays are weakly referenceable but not hashable).
_mutated = {}
# Called with the device array about to be written, before the write (set by
# tenferro.lazy: pending lazy ops that read the buffer are computed first).
before_write = None


def _root(data):
    while True:
        b = getattr(data, "base", None)
        if b is None:
            return data
        data = b


def note_mutation(data):
    """Record an in-place write to the buffer behind device array ``data``."""
    global epoch
    if before_write is not None:
        before_write(data)
    epoch = next(_epochs)
    root = _root(data)
    key = id(root)
    entry = _mutated.get(key)
    if entry is not None and entry[0]() is root:
        _mutated[key] = (entry[0], epoch)
        return
    try:
        ref = weakref.ref(root, lambda r, key=key: _forget(key, r))
    except TypeError:  # a buffer type without weak references: nothing to compare later
        return
    _mutated[key] = (ref, epoch)


def _forget(key, ref):
    entry = _mutated.get(key)
    if entry is not None and entry[0] is ref:
        del _mutated[key]


def modified_since(data, e):
    """Whether the buffer behind ``data`` was written after epoch ``e``."""
    if epoch == e:
        return False
    root = _root(data)
    entry = _mutated.get(id(root))
    return entry is not None and entry[0]() is root and entry[1] > e
