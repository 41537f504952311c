"""The ``--plot`` helper of the comparison scripts (asv_bench/_plot.py): the ratios it
plots, its message when matplotlib is missing, and (where matplotlib is installed) the
PNG it writes."""
import os
import sys

import pytest

ASV = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "asv_bench")
if ASV not in sys.path:
    sys.path.insert(0, ASV)
import _plot  # noqa: E402

ROWS = [
    ("x + y", {"tenferro": 2e-3, "numpy": 4e-3, "torch": 1e-3}),
    ("no torch", {"tenferro": 1e-6, "numpy": 5e-7, "torch": None}),
    ("tenferro lacks it", {"tenferro": None, "numpy": 1e-3, "torch": 1e-3}),
]


def test_ratios_are_peer_over_reference_and_skip_missing_times():
    got = _plot.ratios(ROWS, "tenferro", ["numpy", "torch"])
    assert got == [("x + y", {"numpy": 2.0, "torch": 0.5}), ("no torch", {"numpy": 0.5})]


def test_missing_matplotlib_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ImportError
    with pytest.raises(SystemExit, match="pip install matplotlib"):
        _plot.require_matplotlib()


def test_no_plot_without_the_option(tmp_path, capsys):
    class Args:
        plot = None
    _plot.plot_if_asked(Args(), ROWS, "tenferro", ["numpy"], "t")
    assert capsys.readouterr().out == "" and not list(tmp_path.iterdir())


def _need_matplotlib():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        # not importorskip: matplotlib is optional (only --plot needs it), so its absence
        # is no failure under TENFERRO_REQUIRE_OPTIONAL
        pytest.skip("matplotlib is not installed (only the --plot option needs it)")


def test_plot_writes_a_png(tmp_path, capsys):
    _need_matplotlib()

    class Args:
        plot = str(tmp_path / "ratios.png")
    _plot.plot_if_asked(Args(), ROWS, "tenferro", ["numpy", "torch"], "test",
                        {"numpy": "NumPy", "torch": "PyTorch"})
    with open(Args.plot, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert "plot: " + Args.plot in capsys.readouterr().out


def test_plot_with_nothing_to_compare_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="nothing to plot"):
        _plot.plot_ratios(ROWS[2:], str(tmp_path / "x.png"), "tenferro", ["numpy"], "t")
