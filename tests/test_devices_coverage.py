"""The generated table of what each driver supports (tenferro._coverage)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tenferro as tf
import tenferro.devices
from tenferro._primitive import registry
from tenferro import _coverage
from tenferro.devices.base import Driver

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "devices.md")


class PartialDriver(Driver):
    """Declares add for float32/int32 only, sin for float32, nothing else."""

    name = "partialdev"
    dtypes = frozenset({np.dtype("float32"), np.dtype("int32")})
    implementations = {"add": None, "sin": None}

    def supports(self, op, dtype):
        return (op, np.dtype(dtype).name) in {("add", "float32"), ("add", "int32"),
                                              ("sin", "float32")}


@pytest.fixture
def partial():
    tenferro.devices._drivers["partialdev"] = PartialDriver()
    try:
        yield
    finally:
        tenferro.devices._drivers.pop("partialdev", None)


def _rows(table):
    rows = {}
    for line in table.splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[cells[0].strip("`")] = cells[1:]
    return rows


def test_table_rows_and_cpu_column():
    table = _coverage.coverage_table(["cpu"])
    assert table.splitlines()[0] == "| primitive | `cpu` |"
    rows = _rows(table)
    import tenferro.linalg  # noqa: F401  (its primitives are rows too)
    assert set(rows) == {n for n in registry if not n.startswith("_")}
    for name, (cell,) in rows.items():
        want = "any device" if registry[name].impl is not None else "all"
        assert cell == want, (name, cell)
    assert rows["device_put"] == ["any device"] and rows["matmul"] == ["all"]


def test_table_reflects_declared_coverage(partial):
    rows = _rows(_coverage.coverage_table(["cpu", "partialdev", "nosuchdriver"]))
    assert rows["add"] == ["all", "i32 f32"]
    assert rows["sin"] == ["all", "f32"]
    assert rows["matmul"] == ["all", "-"]
    assert rows["device_put"] == ["any device", "any device"]
    header = _coverage.coverage_table(["cpu", "partialdev", "nosuchdriver"]).splitlines()[0]
    assert header == "| primitive | `cpu` | `partialdev` |"  # absent drivers left out


def test_default_kinds_are_the_builtin_drivers():
    kinds = _coverage.builtin_kinds()
    assert kinds[0] == "cpu" and "base" not in kinds
    assert all(not k.startswith("_") for k in kinds)
    header = _coverage.coverage_table().splitlines()[0]
    assert header == "| primitive | " + " | ".join("`%s`" % k for k in kinds) + " |"


def _fresh_table():
    """The table as a fresh interpreter prints it (other tests register primitives and
    implementations of their own in this process)."""
    r = subprocess.run([sys.executable, "-m", "tenferro._coverage"], cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_fresh_table_is_the_table():
    assert _fresh_table() == _coverage.coverage_table()


def test_replace_section():
    text = "intro\n%s\nold table\n%s\noutro\n" % (_coverage.START, _coverage.END)
    new = _coverage.replace_section(text, "| t |\n")
    assert new == "intro\n%s\n| t |\n%s\noutro\n" % (_coverage.START, _coverage.END)
    assert _coverage.section(new) == "\n| t |\n"
    assert _coverage.replace_section(new, "| t |\n") == new  # idempotent
    for bad in ("no markers", _coverage.END + _coverage.START, _coverage.START + " only"):
        with pytest.raises(ValueError, match="expected the markers"):
            _coverage.replace_section(bad, "x")
        assert _coverage.section(bad) is None


def test_write_command(tmp_path):
    doc = tmp_path / "devices.md"
    doc.write_text("# Devices\n\n%s\nstale\n%s\n\nmore\n" % (_coverage.START, _coverage.END))
    cmd = [sys.executable, "-m", "tenferro._coverage", "--write", str(doc)]
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "updated" in r.stdout
    text = doc.read_text()
    assert text.startswith("# Devices\n\n") and text.endswith("\n\nmore\n")
    assert "stale" not in text
    assert _coverage.section(text) == "\n" + _fresh_table()
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode == 0 and "unchanged" in r.stdout
    doc.write_text("no markers here\n")
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode == 1 and "expected the markers" in r.stderr
    assert doc.read_text() == "no markers here\n"


def test_check_command(tmp_path):
    """``--check`` (run by .ci/run): 0 for the current table, 1 for a stale one or
    missing markers, naming the file and the fix."""
    cmd = [sys.executable, "-m", "tenferro._coverage", "--check"]
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run(cmd + [DOC], cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode == 0 and "current" in r.stdout, r.stderr
    doc = tmp_path / "devices.md"
    for text, msg in [("no markers\n", "expected the markers"),
                      ("%s\n| stale |\n%s\n" % (_coverage.START, _coverage.END),
                       "stale: run python -m tenferro._coverage --write")]:
        doc.write_text(text)
        r = subprocess.run(cmd + [str(doc)], cwd=ROOT, env=env, capture_output=True,
                           text=True)
        assert r.returncode == 1 and msg in r.stderr, (r.returncode, r.stderr)


def test_docs_table_is_current():
    """docs/devices.md carries the generated table; regenerate it with
    ``python -m tenferro._coverage --write docs/devices.md``."""
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    current = _coverage.section(text)
    assert current is not None, (
        "docs/devices.md has lost its %s ... %s markers: the device tests skip only what "
        "that table documents" % (_coverage.START, _coverage.END))
    assert current.strip() == _fresh_table().strip(), (
        "docs/devices.md's coverage table is stale: run python -m tenferro._coverage "
        "--write docs/devices.md")
