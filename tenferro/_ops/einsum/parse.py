"""Einsum's grammar: NumPy's subscripts (``'ij,jk->ik'``, ``...``) or the interleaved
form (operands each followed by its sublist of integer labels) to label lists, and the
size of every label.

A label is an int (a letter's character code, or the interleaved form's integer) or
``('...', p)`` for dimension ``p`` covered by the ellipsis."""
import collections
import string

import numpy as np

_ELL = "..."


def _fail(msg, *args):
    raise ValueError("tenferro.einsum: " + (msg % args if args else msg))


def split_operands(args, op="einsum"):
    """(spec, operands): ``spec`` is the subscripts string or, for the interleaved form,
    a tuple (input sublists, output sublist or None).  No operand is a ValueError, as
    in NumPy."""
    if args and isinstance(args[0], str):
        spec, ops = args[0], list(args[1:])
    else:
        ops, subs = [], []
        rest = list(args)
        while len(rest) >= 2:
            ops.append(rest.pop(0))
            subs.append(tuple(rest.pop(0)))
        spec = (tuple(subs), tuple(rest.pop(0)) if rest else None)
    if not ops:
        raise ValueError("tenferro.%s: expected the subscripts and at least one operand "
                         "(or operands each followed by its sublist), got %d argument(s)"
                         % (op, len(args)))
    return spec, ops


def _term_labels(term, where):
    """Labels of one string term: ints (character codes) and one optional ``...``."""
    labels = []
    i = 0
    while i < len(term):
        c = term[i]
        if c == ".":
            if term[i:i + 3] != _ELL or _ELL in labels:
                _fail("invalid ellipsis in %s %r: '...' may appear once, as three dots",
                      where, term)
            labels.append(_ELL)
            i += 3
            continue
        if c not in string.ascii_letters:
            _fail("invalid subscript %r in %s %r: labels are ASCII letters (or use the "
                  "interleaved form with integer labels)", c, where, term)
        labels.append(ord(c))
        i += 1
    return labels


def _sublist_labels(sub, where):
    labels = []
    for s in sub:
        if s is Ellipsis:
            if _ELL in labels:
                _fail("%s %r has more than one Ellipsis", where, sub)
            labels.append(_ELL)
        elif isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s >= 0:
            labels.append(int(s))
        else:
            _fail("invalid label %r in %s %r: interleaved labels are non-negative integers "
                  "or Ellipsis", s, where, sub)
    return labels


def parse_subscripts(spec, shapes):
    """(input label lists, output label list) with every ``...`` expanded."""
    if isinstance(spec, str):
        s = spec.replace(" ", "")
        if s.count("->") > 1:
            _fail("subscripts %r contain more than one '->'", spec)
        lhs, arrow, rhs = s.partition("->")
        if "-" in lhs or ">" in lhs or "-" in rhs or ">" in rhs:
            _fail("invalid '->' in subscripts %r", spec)
        terms = lhs.split(",")
        if len(terms) != len(shapes):
            _fail("subscripts %r have %d input term(s) but %d operand(s) were given",
                  spec, len(terms), len(shapes))
        ins = [_term_labels(t, "input term") for t in terms]
        out = _term_labels(rhs, "output") if arrow else None
        shown = terms
    else:
        subs, out_sub = spec
        ins = [_sublist_labels(t, "input sublist") for t in subs]
        out = _sublist_labels(out_sub, "output sublist") if out_sub is not None else None
        shown = [str(list(t)) for t in subs]
    # expand the ellipses (right-aligned, broadcast across operands)
    ell_dims = []
    for k, (labels, shape, t) in enumerate(zip(ins, shapes, shown)):
        named = len(labels) - (_ELL in labels)
        if _ELL in labels:
            if named > len(shape):
                _fail("term %r of operand %d has %d labels but the operand has only %d "
                      "dimension(s) (shape %s)", t, k, named, len(shape), shape)
            ell_dims.append(len(shape) - named)
        elif named != len(shape):
            _fail("term %r of operand %d has %d label(s) but the operand has %d "
                  "dimension(s) (shape %s)", t, k, named, len(shape), shape)
        else:
            ell_dims.append(0)
    n_ell = max(ell_dims, default=0)
    ell_labels = [(_ELL, p) for p in range(n_ell)]
    expanded = []
    for labels, nd in zip(ins, ell_dims):
        if _ELL in labels:
            i = labels.index(_ELL)
            labels = labels[:i] + ell_labels[n_ell - nd:] + labels[i + 1:]
        expanded.append(labels)
    if out is None:  # implicit output: '...' first, then labels seen once, sorted
        counts = collections.Counter(l for labels in expanded for l in labels
                                     if not isinstance(l, tuple))
        out = ell_labels + sorted(l for l, c in counts.items() if c == 1)
    else:
        if _ELL in out:
            i = out.index(_ELL)
            out = out[:i] + ell_labels + out[i + 1:]
        elif any(ell_dims):
            _fail("the operands have dimensions covered by '...' but the output %r has no "
                  "'...' to broadcast them to", spec if isinstance(spec, str) else out)
        seen = {l for labels in expanded for l in labels}
        for l in out:
            if l not in seen:
                _fail("output label %s does not appear in any input term", _name(l))
    return expanded, list(out)


def _name(label):
    if isinstance(label, tuple):
        return "'...'(dimension %d)" % label[1]
    return repr(chr(label)) if 65 <= label <= 122 and chr(label).isalpha() else str(label)


def label_sizes(ins, shapes):
    """Size per label (size-1 axes broadcast against others, as NumPy)."""
    size = {}
    for k, (labels, shape) in enumerate(zip(ins, shapes)):
        own = {}
        for l, n in zip(labels, shape):
            if own.setdefault(l, n) != n:  # a diagonal: no broadcasting (NumPy)
                _fail("dimensions in operand %d for collapsing label %s don't match "
                      "(%d != %d)", k, _name(l), own[l], n)
            m = size.get(l)
            if m is None or m == 1:
                size[l] = n
            elif n != m and n != 1:
                _fail("size mismatch for label %s: %d in operand %d but %d in an earlier "
                      "operand", _name(l), n, k, m)
    return size
