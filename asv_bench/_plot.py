"""The ``--plot FILE.png`` option of the comparison scripts (``compare*.py``).

Each script collects, per case, the best per-call time of every library it ran and hands
them to :func:`plot_ratios`, which draws one horizontal bar per case and peer: the peer's
time over the reference's (tenferro, or tenferro's compiled program in
``compare_traced.py``) on a log scale, with a line at 1 -- bars to the right of the line
are cases where tenferro is faster, the same convention as the tables' ratio columns.

matplotlib is an optional dependency: it is imported only when a plot is asked for, and
:func:`require_matplotlib` (called when the options are parsed, before any timing) stops
the script with an install hint if it is missing.
"""
import math

MISSING = ("--plot needs matplotlib, which is not installed: "
           "pip install matplotlib (or drop --plot)")


def require_matplotlib():
    """Import matplotlib with a file-only backend, or exit with :data:`MISSING`."""
    try:
        import matplotlib
    except ImportError:
        raise SystemExit(MISSING) from None
    matplotlib.use("Agg")
    return matplotlib


def ratios(rows, reference, peers):
    """``[(case, {peer: t_peer / t_reference})]`` for the cases and peers where both
    times exist (a peer that lacks the case, or a reference that lacks it, is left out).

    rows: ``[(case, {lib: seconds or None})]`` as the scripts collect them."""
    out = []
    for case, t in rows:
        ref = t.get(reference)
        if not ref:
            continue
        r = {p: t[p] / ref for p in peers if t.get(p)}
        if r:
            out.append((case, r))
    return out


def plot_if_asked(args, rows, reference, peers, title, names=None):
    """After a script's table: write the plot when ``--plot FILE`` was given."""
    if getattr(args, "plot", None):
        plot_ratios(rows, args.plot, reference, peers, title, names)
        print("<!-- plot: %s -->" % args.plot, flush=True)


def plot_ratios(rows, path, reference, peers, title, names=None):
    """Write a bar chart of ``t_peer / t_reference`` per case and peer to ``path``.

    names maps a library key to the label in the legend (default: the key)."""
    data = ratios(rows, reference, peers)
    if not data:
        raise ValueError("nothing to plot: no case has a time for %r and a peer" % reference)
    require_matplotlib()
    import matplotlib.pyplot as plt

    names = names or {}
    shown = [p for p in peers if any(p in r for _, r in data)]
    height = 0.8 / len(shown)
    fig, ax = plt.subplots(figsize=(9, 1.2 + 0.25 * len(data) * len(shown) + 0.2 * len(data)))
    for k, peer in enumerate(shown):
        ys = [i + (k - (len(shown) - 1) / 2) * height
              for i, (_, r) in enumerate(data) if peer in r]
        xs = [r[peer] for _, r in data if peer in r]
        # bars grow from the line at 1: right where tenferro is faster, left where slower
        ax.barh(ys, [x - 1 for x in xs], height=height, left=1, label=names.get(peer, peer))
        for y, x in zip(ys, xs):
            ax.annotate("%.2f" % x, (x, y), xytext=(3 if x >= 1 else -3, 0),
                        textcoords="offset points", va="center", fontsize=7,
                        ha="left" if x >= 1 else "right")
    lo = min(min(r.values()) for _, r in data)
    hi = max(max(r.values()) for _, r in data)
    ax.set_xscale("log")
    ax.set_xlim(10 ** math.floor(math.log10(min(lo, 1) / 1.5)),
                10 ** math.ceil(math.log10(max(hi, 1) * 1.5)))
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_yticks(range(len(data)))
    ax.set_yticklabels([case for case, _ in data], fontsize=8)
    ax.invert_yaxis()
    ref_name = names.get(reference, reference)
    ax.set_xlabel("time of the other library / time of %s  (> 1: %s is faster)"
                  % (ref_name, ref_name))
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
