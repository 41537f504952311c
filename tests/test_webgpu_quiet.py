"""Quiet by default: opening the WebGPU adapter prints nothing (tenferro/devices/webgpu/quiet.py).

The subprocess tests run for real where a WebGPU adapter exists (in CI: lavapipe, whose
Vulkan layers print libwayland's ``XDG_RUNTIME_DIR`` error without a desktop session,
and ``WGPU_BACKEND_TYPE`` makes wgpu log "Forcing backend"); the filter's own tests
need no adapter.
"""
import logging
import os
import subprocess
import sys

import pytest

import tenferro as tf
from tenferro.devices.webgpu import quiet

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
XDG = b"error: XDG_RUNTIME_DIR is invalid or not set in the environment.\n"


LOG = logging.getLogger("tenferro.tests.quiet")   # stands for wgpu's logger


def test_noise_on_fd2_is_dropped_and_the_rest_written_back(capfd):
    with quiet.quiet_discovery(LOG):
        os.write(2, XDG + b"a real driver error\n" + XDG + b"partial line")
    err = capfd.readouterr().err
    assert err == "a real driver error\npartial line"


def test_forcing_backend_record_dropped_other_records_kept(caplog):
    with caplog.at_level(logging.WARNING, logger=LOG.name):
        with quiet.quiet_discovery(LOG):
            LOG.warning("Forcing backend: Vulkan (6)")
            LOG.warning("Invalid value for WGPU_BACKEND_TYPE: 'Vulkn'")
        LOG.warning("Forcing backend: after discovery")   # the filter is gone
    assert [r.getMessage() for r in caplog.records] == [
        "Invalid value for WGPU_BACKEND_TYPE: 'Vulkn'", "Forcing backend: after discovery"]


def test_verbose_switch_keeps_everything(capfd, monkeypatch):
    monkeypatch.setenv("TENFERRO_WEBGPU_VERBOSE", "1")
    with quiet.quiet_discovery(LOG):
        os.write(2, XDG)
    assert capfd.readouterr().err == XDG.decode()


def test_lines_pass_while_the_block_runs():
    # written on as they arrive: a process that dies inside discovery (a driver's
    # abort) still shows what it printed first
    code = ("import os, time, logging\n"
            "from tenferro.devices.webgpu.quiet import quiet_discovery\n"
            "with quiet_discovery(logging.getLogger('x')):\n"
            "    os.write(2, b'error: XDG_RUNTIME_DIR is invalid or not set in the "
            "environment.\\nthread panicked: real\\n')\n"
            "    time.sleep(1.0)\n"
            "    os._exit(3)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT), timeout=120)
    assert out.returncode == 3
    assert out.stderr == "thread panicked: real\n"


def _run(code):
    env = dict(os.environ, PYTHONPATH=ROOT, WGPU_BACKEND_TYPE="Vulkan")
    env.pop("XDG_RUNTIME_DIR", None)   # as on a server or in CI: what makes libwayland talk
    env.pop("TENFERRO_WEBGPU_VERBOSE", None)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=300)


@pytest.fixture(scope="module")
def adapter():
    if tf.devices.get_driver("webgpu").device_count() == 0:
        pytest.skip("no WebGPU device: %s"
                    % tf.devices.get_driver("webgpu").unavailable_reason())


@pytest.mark.parametrize("code", [
    "import tenferro as tf; print(tf.devices.available())",
    "import tenferro as tf; print(tf.asarray([1.0], dtype=tf.float32).to('webgpu'))",
])
def test_discovery_prints_nothing_to_stderr(adapter, code):
    out = _run(code)
    assert out.returncode == 0, out.stderr
    assert "webgpu" in out.stdout or "[1.]" in out.stdout, out.stdout
    assert out.stderr == "", "device discovery printed:\n" + out.stderr


def test_discovery_from_two_threads_restores_fd2_without_stalling():
    # two threads discovering at once (their blocks overlap, not nested): fd 2 must end
    # as it began, each thread's lines must pass, and nobody waits for a pipe that the
    # other thread still holds open
    import threading
    import time
    before = os.fstat(2)
    a_in = threading.Event()

    def first():
        with quiet.quiet_discovery(LOG):
            a_in.set()
            time.sleep(0.5)      # the second thread enters meanwhile (or waits)

    def second():
        a_in.wait(timeout=10)
        with quiet.quiet_discovery(LOG):
            time.sleep(1.0)      # and leaves after the first

    t0 = time.monotonic()
    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    took = time.monotonic() - t0
    after = os.fstat(2)
    assert (after.st_dev, after.st_ino) == (before.st_dev, before.st_ino)
    assert took < 4.0, took


def test_pump_survives_a_broken_stderr():
    # the real stderr gone (a closed pipe): the pump keeps draining, so a writer inside
    # the block never blocks on a full pipe
    code = ("import os, logging\n"
            "from tenferro.devices.webgpu.quiet import quiet_discovery\n"
            "with quiet_discovery(logging.getLogger('x')):\n"
            "    for _ in range(64):\n"
            "        os.write(2, b'x' * 4095 + b'\\n')\n"
            "print('done', flush=True)\n")
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT))
    p.stderr.close()
    try:
        out, _ = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise AssertionError("writing to stderr inside quiet_discovery hung")
    assert b"done" in out


def test_a_child_forked_during_discovery_can_discover():
    # a thread forks while another holds the discovery lock: the child gets a free lock
    import threading
    if not hasattr(os, "fork"):
        pytest.skip("no fork")
    inside, done = threading.Event(), threading.Event()

    def hold():
        with quiet.quiet_discovery(LOG):
            inside.set()
            done.wait(timeout=30)

    t = threading.Thread(target=hold)
    t.start()
    inside.wait(timeout=10)
    try:
        import warnings
        with warnings.catch_warnings():   # (3.12+: fork of a threaded process warns)
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:   # the child: a discovery must not wait for the parent's thread
            code = 1
            try:
                with quiet.quiet_discovery(LOG):
                    code = 0
            finally:
                os._exit(code)
        deadline = __import__("time").monotonic() + 20
        while True:
            got, status = os.waitpid(pid, os.WNOHANG)
            if got:
                break
            if __import__("time").monotonic() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                raise AssertionError("the forked child hung on the discovery lock")
            __import__("time").sleep(0.05)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        done.set()
        t.join(timeout=30)


def _fd2_identity():
    st = os.fstat(2)
    return st.st_dev, st.st_ino


def test_fd2_restored_when_the_stderr_object_fails_to_flush(monkeypatch):
    # sys.stderr replaced by an object whose flush fails at the block's end (a broken
    # pipe): fd 2 is still restored and discovery does not fail on it
    class Failing:
        calls = 0

        def write(self, s):
            return len(s)

        def flush(self):
            Failing.calls += 1
            if Failing.calls > 1:
                raise BrokenPipeError("stderr is gone")

    before = _fd2_identity()
    monkeypatch.setattr(sys, "stderr", Failing())
    with quiet.quiet_discovery(LOG):
        pass
    monkeypatch.undo()
    assert _fd2_identity() == before


def test_fd2_untouched_when_the_pump_cannot_start(monkeypatch):
    # no thread to drain the pipe (thread limit reached): the block runs unfiltered
    # rather than with fd 2 a pipe nobody reads (a hang once it fills)
    import threading

    def refuse(self):
        raise RuntimeError("can't start new thread")

    before = _fd2_identity()
    monkeypatch.setattr(threading.Thread, "start", refuse)
    ran = False
    with quiet.quiet_discovery(LOG):
        ran = True
        during = _fd2_identity()
    monkeypatch.undo()
    assert ran and during == before and _fd2_identity() == before
