"""Saving and loading tensors in NumPy's ``.npy`` and ``.npz`` formats.

``tenferro.save`` writes one tensor as ``.npy`` or a dict of tensors as an ``.npz`` archive
(NumPy's ``savez``/``savez_compressed`` layout), so ``np.load`` reads the files and
``tenferro.load`` reads NumPy's.  Nothing is pickled in either direction: files are
read with ``allow_pickle=False``.  A top-level convenience (layer L7 of
docs/design.md); see docs/tensors.md, "Saving and loading".
"""
from __future__ import annotations

import contextlib
import os
import zipfile
from collections.abc import Iterator, Mapping
from typing import IO, Any, Literal, Union

import numpy as np

from . import _dtypes
from ._ops import asarray
from ._tensor import Tensor

PathOrFile = Union[str, "os.PathLike[str]", IO[bytes]]
MmapMode = Literal["r", "r+", "c"]

_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")   # a zip's first member, or an empty zip
_MMAP_MODES = ("r", "r+", "c")
_SUPPORTED = ", ".join(d.name for d in _dtypes.DTYPES)


def save(file: PathOrFile, obj: Any, *, compressed: bool = False) -> None:
    """Save a tensor as ``.npy``, or a dict of tensors as an ``.npz`` archive.

    ``file`` is a path (``str`` or path-like; ``.npy``/``.npz`` is appended when missing,
    as ``np.save``/``np.savez`` do) or a binary file object.  ``obj`` is a tensor (or
    anything :func:`tenferro.asarray` takes), written with ``np.save``'s format, or a
    dict mapping names (``str``) to tensors, written as ``np.savez`` does (a zip of one
    ``name.npy`` per entry; deflated when ``compressed=True``, as
    ``np.savez_compressed``).  The values are saved, in their dtype and layout: a tensor
    on another device is copied to the host first (the one transfer, explicit here), and
    ``requires_grad``, ``.grad`` and the autodiff graph are not saved.  A tensor being
    traced has no value to save (``ConcretizationError``).  Nothing is pickled: the
    files are NumPy's, readable by ``np.load``.

    Parameters
    ----------
    file : str, path-like or binary file object
        Where to write.
    obj : Tensor or array_like or dict of str to Tensor
        One tensor (``.npy``) or named tensors (``.npz``).
    compressed : bool, default False
        Deflate the ``.npz`` archive's members (a dict only).

    Returns
    -------
    None

    Raises
    ------
    ValueError
        If ``compressed`` is given for a single tensor, or the path's extension names
        the other format.
    TypeError
        If a name of a dict is not a string.
    ConcretizationError
        If a tensor is being traced.

    See Also
    --------
    load, numpy.save, numpy.savez

    Notes
    -----
    Differentiable: no: values are saved without their autodiff state.

    Examples
    --------
    >>> import io
    >>> buf = io.BytesIO()
    >>> tf.save(buf, {"w": tf.ones((2, 2)), "b": tf.zeros(2)})
    >>> _ = buf.seek(0)
    >>> with tf.load(buf) as d:
    ...     sorted(d), d["b"]
    (['b', 'w'], tensor([0., 0.]))
    """
    if isinstance(obj, Mapping):
        _save_npz(file, obj, compressed)
        return
    if compressed:
        raise ValueError("tenferro.save: compressed=True applies to .npz archives (a dict of "
                         "tensors); a single tensor is saved as uncompressed .npy")
    path = _path(file, ".npy", ".npz", "a single tensor (use a dict for an .npz archive)")
    np.save(path if path is not None else file, _host(obj, "tenferro.save"),
            allow_pickle=False)


def _save_npz(file: PathOrFile, tensors: Mapping[Any, Any], compressed: bool) -> None:
    """``np.savez``'s layout, written here so that any name works (``np.savez(file,
    **arrays)`` cannot take the names ``file`` or ``allow_pickle``)."""
    arrays = {}
    for name, value in tensors.items():
        if not isinstance(name, str):
            raise TypeError("tenferro.save: the names of an .npz archive's tensors are "
                            "strings, got %r" % (name,))
        arrays[name] = _host(value, "tenferro.save[%r]" % name)
    path = _path(file, ".npz", ".npy", "a dict of tensors (saved as an .npz archive)")
    method = zipfile.ZIP_DEFLATED if compressed else zipfile.ZIP_STORED
    with zipfile.ZipFile(path if path is not None else file, mode="w",
                         compression=method, allowZip64=True) as zf:
        for name, arr in arrays.items():
            with zf.open(name + ".npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, arr, allow_pickle=False)


def _path(file: PathOrFile, suffix: str, other: str, what: str) -> str | None:
    """``file`` as a path ending in ``suffix``, or None for a file object."""
    if not isinstance(file, (str, os.PathLike)):
        return None
    path = os.fspath(file)
    if path.endswith(other):
        raise ValueError("tenferro.save: %r names a %s file, but the object is %s"
                         % (path, other, what))
    return path if path.endswith(suffix) else path + suffix


def _host(value: Any, what: str) -> np.ndarray:
    """The host values to write: a tensor's (copied from its device if it has one)."""
    t = value if isinstance(value, Tensor) else asarray(value)
    return t._host(what)


def load(file: PathOrFile, mmap_mode: MmapMode | None = None) -> Tensor | NpzTensors:
    """Load a tensor from an ``.npy`` file, or the tensors of an ``.npz`` archive.

    The format is read from the file's first bytes, whatever its name.  An ``.npy``
    file gives a CPU tensor of the dtype it holds; an ``.npz`` archive gives an
    :class:`NpzTensors` mapping (NumPy's ``NpzFile``, with tensors), which reads each
    entry when it is looked up and should be closed (``with tenferro.load(p) as d:``).

    ``mmap_mode`` (``.npy`` files named by a path only; NumPy's modes): the tensor
    lies over a memory map of the file instead of a copy in memory.  ``"r"``: read-only,
    so writes into the tensor (``t[i] = v``, ``t += 1``, ``copy_``) raise ValueError;
    ``"r+"``: writes go to the file; ``"c"``: copy-on-write, writes stay in memory.
    Results of ops are ordinary tensors in memory.  The map lives as long as a tensor or
    view over it does.

    Only tenferro's dtypes (bool, int32, int64, float32, float64, complex64,
    complex128; byte-swapped data is converted to native order, except under mmap)
    are loaded -- others raise, naming the dtype -- and nothing is unpickled: an
    object array raises ValueError.

    Parameters
    ----------
    file : str, path-like or binary file object
        What to read.
    mmap_mode : {None, "r", "r+", "c"}, optional
        Memory-map an ``.npy`` file named by a path instead of reading it.

    Returns
    -------
    Tensor or NpzTensors
        The tensor (on the CPU) of an ``.npy`` file, or the mapping of an ``.npz``
        archive's tensors.

    Raises
    ------
    ValueError
        If the file is neither ``.npy`` nor ``.npz``, holds a dtype tenferro does not
        have or objects, or ``mmap_mode`` is invalid or not applicable.
    OSError
        If the file cannot be read (``FileNotFoundError``, ...).

    See Also
    --------
    save, numpy.load

    Notes
    -----
    Differentiable: no: the loaded tensors are new leaves (call ``requires_grad_()``).

    Examples
    --------
    >>> import io
    >>> buf = io.BytesIO()
    >>> tf.save(buf, tf.arange(3.0))
    >>> _ = buf.seek(0)
    >>> tf.load(buf)
    tensor([0., 1., 2.])
    """
    if mmap_mode is not None and mmap_mode not in _MMAP_MODES:
        raise ValueError("tenferro.load: mmap_mode must be None or one of %s, got %r"
                         % (", ".join(map(repr, _MMAP_MODES)), mmap_mode))
    what = "tenferro.load(%s)" % (repr(os.fspath(file)) if isinstance(file, (str, os.PathLike))
                                  else type(file).__name__)
    kind = _format(file, what)
    if kind == "npz":
        if mmap_mode is not None:
            raise ValueError("%s: mmap_mode applies to .npy files; the members of an .npz "
                             "archive (a zip) cannot be memory-mapped" % what)
        return NpzTensors(_np_load(file, what, None), what)
    if mmap_mode is not None and not isinstance(file, (str, os.PathLike)):
        raise ValueError("%s: mmap_mode needs a path; an open file cannot be memory-mapped"
                         % what)
    return _tensor(_np_load(file, what, mmap_mode), what, mmap_mode)


def _format(file: PathOrFile, what: str) -> str:
    """"npy" or "npz", from the first bytes (a file object is put back where it was)."""
    if isinstance(file, (str, os.PathLike)):
        with open(file, "rb") as f:
            head = f.read(len(_NPY_MAGIC))
    else:
        head = file.read(len(_NPY_MAGIC))
        file.seek(-len(head), 1)
    if head.startswith(_NPY_MAGIC):
        return "npy"
    if head.startswith(_ZIP_MAGIC):
        return "npz"
    raise ValueError("%s: not a NumPy .npy file or .npz archive (the first bytes are %r); "
                     "tenferro.load reads only these formats, and never unpickles"
                     % (what, head))


def _np_load(file: PathOrFile, what: str, mmap_mode: MmapMode | None) -> Any:
    with _no_pickle(what):
        return np.load(file, mmap_mode=mmap_mode, allow_pickle=False)


@contextlib.contextmanager
def _no_pickle(what: str) -> Iterator[None]:
    """NumPy's refusal to unpickle (a ValueError naming ``allow_pickle``) as tenferro's
    error, naming ``what``."""
    try:
        yield
    except ValueError as e:
        if "allow_pickle" in str(e):
            raise ValueError("%s: the file holds an array of dtype object (pickled Python "
                             "objects); tenferro never unpickles and supports only %s"
                             % (what, _SUPPORTED)) from None
        raise


def _tensor(arr: np.ndarray, what: str, mmap_mode: str | None = None) -> Tensor:
    """A CPU tensor over the loaded array (zero-copy), its dtype checked."""
    native = arr.dtype.newbyteorder("=") if arr.dtype.byteorder not in "=|" else arr.dtype
    if native not in _dtypes.DTYPES:
        raise TypeError("%s: dtype %s is not a tenferro dtype; tenferro supports %s (convert "
                        "with NumPy first, e.g. np.load(...).astype(np.float32))"
                        % (what, arr.dtype, _SUPPORTED))
    if mmap_mode is not None:
        if native != arr.dtype:
            raise ValueError("%s: the file's data is byte-swapped (%s), which a tensor over a "
                             "memory map cannot hold; load it without mmap_mode to convert it"
                             % (what, arr.dtype.str))
        arr = arr.view(np.ndarray)   # still over the map (its base), without np.memmap's type
    return asarray(arr)


class NpzTensors(Mapping[str, Tensor]):
    """The tensors of an ``.npz`` archive, read when looked up (NumPy's ``NpzFile``,
    giving CPU tensors): ``d["w"]``, ``list(d)``, ``dict(d)`` to read them all.  Close
    it (``d.close()``, or use it in a ``with`` block) to close the file; NumPy's
    ``NpzFile`` underneath also closes when it is garbage-collected."""

    def __init__(self, npz: Any, what: str) -> None:
        self._npz = npz
        self._what = what

    def __getitem__(self, name: str) -> Tensor:
        where = "%s[%r]" % (self._what, name)
        with _no_pickle(where):
            arr = self._npz[name]
        return _tensor(arr, where)

    def __iter__(self) -> Iterator[str]:
        return iter(self._npz.files)

    def __contains__(self, name: object) -> bool:   # without reading the entry
        return name in self._npz.files

    def __len__(self) -> int:
        return len(self._npz.files)

    def close(self) -> None:
        self._npz.close()

    def __enter__(self) -> NpzTensors:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return "NpzTensors(%s, names=%s)" % (self._what, list(self._npz.files))
