"""Text helpers shared by the docstring templates (the elementwise, reduction,
scipy.special, fft and nn families): wrapping a paragraph, a numpydoc entry list, a
function's own short docstring as one paragraph."""


def fill(text, indent=""):
    """``text`` wrapped to 88 columns (after ``indent``), words split at spaces only
    (textwrap's regular expressions cost import time: hundreds of paragraphs)."""
    lines, line = [], ""
    for w in text.split():
        if line and len(indent) + len(line) + 1 + len(w) > 88:
            lines.append(indent + line)
            line = w
        else:
            line = line + " " + w if line else w
    lines.append(indent + line)
    return "\n".join(lines)


def entries(pairs):
    """A numpydoc entry list (Raises, Warns) from ``(name, text)`` pairs."""
    return "\n".join("%s\n%s" % (name, fill(text, "    ")) for name, text in pairs)


def paragraph(fn):
    """``fn``'s own docstring (written beside its code) as one paragraph."""
    return " ".join((fn.__doc__ or "").split())
