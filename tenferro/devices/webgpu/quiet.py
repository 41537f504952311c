"""Quiet device discovery: the known noise of opening a WebGPU adapter is dropped.

Requesting an adapter prints lines that are no error of the user's program:

* ``Forcing backend: Vulkan (6)``: ``wgpu``'s logger (a warning), whenever the user
  has set ``WGPU_BACKEND_TYPE`` (so they know; ``tf.show_config()`` shows the backend);
* ``error: XDG_RUNTIME_DIR is invalid or not set in the environment.``: libwayland,
  written to the process's file descriptor 2 when a Vulkan layer (Mesa's device-select
  layer) looks for a Wayland display on a machine without a desktop session.

:func:`quiet_discovery` drops exactly these while the adapter and device are opened,
and nothing else: for that time file descriptor 2 is a pipe whose lines a thread
writes on to the real stderr as they arrive (a driver's real error, a Rust panic,
another thread's message), leaving out only the lines above; every other record of
``wgpu``'s logger passes.  ``TENFERRO_WEBGPU_VERBOSE=1`` turns the filtering off.
"""
import contextlib
import logging
import os
import sys
import threading

# lines written to file descriptor 2 that are dropped (compared after stripping)
NOISE_LINES = (b"error: XDG_RUNTIME_DIR is invalid or not set in the environment.",)
# wgpu logger messages that are dropped (their beginning)
NOISE_RECORDS = ("Forcing backend:",)


class _DropNoise(logging.Filter):
    """Drops the ``wgpu`` logger's records listed in :data:`NOISE_RECORDS`."""

    def filter(self, record):
        return not str(record.msg).startswith(NOISE_RECORDS)


# fd 2 is one per process: blocks of threads discovering at once are run one after the
# other (overlapping, each would restore what the other had redirected and leave fd 2
# a pipe for good); a thread may nest them
_fd2_lock = threading.RLock()


def _new_lock():
    """A fresh lock in a forked child (another thread of the parent may hold it)."""
    global _fd2_lock
    _fd2_lock = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock)


def _pump(pipe, dest):
    """Copy the lines read from ``pipe`` to file descriptor ``dest`` as they come,
    except the noise, until every writer has closed it.  It drains the pipe to the end
    even when ``dest`` fails (a closed stderr), so no writer blocks on a full pipe."""
    with os.fdopen(pipe, "rb", buffering=0) as f:
        for line in f:
            if line.strip() not in NOISE_LINES:
                try:
                    os.write(dest, line)
                except OSError:
                    pass


@contextlib.contextmanager
def _quiet_fd2():
    """File descriptor 2 goes through a pipe for the block: its lines are written on
    as they arrive, the noise left out (so a crash inside loses no earlier line)."""
    with _fd2_lock:
        with _redirected_fd2():
            yield


@contextlib.contextmanager
def _redirected_fd2():
    """:func:`_quiet_fd2` without its lock.  Whatever fails on the way (no usable fd 2,
    no file descriptors or thread left, a failing ``sys.stderr``), the block still runs
    (unfiltered where the pipe could not be set up) and fd 2 ends as it began."""
    try:
        _flush_stderr()
        saved = os.dup(2)
    except OSError:                                  # no usable fd 2: nothing to filter
        yield
        return
    try:
        r, w = os.pipe()
    except OSError:                                  # out of file descriptors
        os.close(saved)
        yield
        return
    pump = threading.Thread(target=_pump, args=(r, saved), name="tenferro-quiet-stderr",
                            daemon=True)
    try:
        pump.start()        # before fd 2 is the pipe: never a pipe that nobody reads
    except RuntimeError:                             # no thread left
        for fd in (r, w, saved):
            os.close(fd)
        yield
        return
    os.dup2(w, 2)
    os.close(w)
    try:
        yield
    finally:
        _flush_stderr()
        os.dup2(saved, 2)        # closes the pipe's last writer: the pump sees its end
        pump.join(timeout=5)
        if not pump.is_alive():  # (else a child process holds the pipe: leave it be)
            os.close(saved)


def _flush_stderr():
    """Flush ``sys.stderr`` (its text goes to fd 2 before fd 2 changes), whatever
    object it is; its failure is not discovery's."""
    try:
        sys.stderr.flush()
    except Exception:
        pass


@contextlib.contextmanager
def quiet_discovery(log):
    """The block (opening a WebGPU adapter and device) without its known noise;
    ``log``: wgpu's logger (``wgpu.logger``)."""
    if os.environ.get("TENFERRO_WEBGPU_VERBOSE", "") not in ("", "0"):
        yield
        return
    drop = _DropNoise()
    log.addFilter(drop)
    try:
        with _quiet_fd2():
            yield
    finally:
        log.removeFilter(drop)
