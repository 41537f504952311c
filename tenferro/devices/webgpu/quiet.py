"""Quiet device discovery: the known noise of opening a WebGPU adapter is dropped.

Requesting an adapter prints lines that are no error of the user's program:

* ``Forcing backend: Vulkan (6)``: ``wgpu``'s logger (a warning), whenever the user
  has set ``WGPU_BACKEND_TYPE`` (so they know; ``tf.show_config()`` shows the backend);
* ``error: XDG_RUNTIME_DIR is invalid or not set in the environment.``: libwayland,
  written to the process's file descriptor 2 when a Vulkan layer (Mesa's device-select
  layer) looks for a Wayland display on a machine without a desktop session.

:func:`quiet_discovery` drops exactly these while the adapter and device are opened,
and nothing else: file descriptor 2 is redirected to a temporary file for that time
and every other line written there (a driver's real error, a Rust panic, another
thread's message) is written back to it afterwards, in order; every other record of
``wgpu``'s logger passes.  ``TENFERRO_WEBGPU_VERBOSE=1`` turns the filtering off.
"""
import contextlib
import logging
import os
import sys
import tempfile

# lines written to file descriptor 2 that are dropped (compared after stripping)
NOISE_LINES = (b"error: XDG_RUNTIME_DIR is invalid or not set in the environment.",)
# wgpu logger messages that are dropped (their beginning)
NOISE_RECORDS = ("Forcing backend:",)


class _DropNoise(logging.Filter):
    """Drops the ``wgpu`` logger's records listed in :data:`NOISE_RECORDS`."""

    def filter(self, record):
        return not str(record.msg).startswith(NOISE_RECORDS)


def _filtered(data):
    """``data`` (bytes written to fd 2) without the lines in :data:`NOISE_LINES`."""
    lines = data.splitlines(keepends=True)
    return b"".join(line for line in lines if line.strip() not in NOISE_LINES)


@contextlib.contextmanager
def _quiet_fd2():
    """Redirect file descriptor 2 for the block; write back what is not noise."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, AttributeError, ValueError):   # no usable fd 2: nothing to filter
        yield
        return
    try:
        tmp = tempfile.TemporaryFile()
    except OSError:
        os.close(saved)
        yield
        return
    with tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            try:
                sys.stderr.flush()
            except (AttributeError, ValueError):
                pass
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            rest = _filtered(tmp.read())
            if rest:
                os.write(2, rest)


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
