"""The code on the guide pages runs and shows what the text says.

Each page's ```python blocks run in order in one namespace (a page reads as one
session).  A block whose first line is ``# raises <ExceptionName>`` must raise that
exception; the ```text block right after it, when there is one, quotes the start of the
message, which must still be what tenferro says (the troubleshooting page quotes real
messages).
"""
import os
import re

import numpy as np
import pytest

import tenferro as tf

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs")
PAGES = ["index.md", "for_numpy_users.md", "for_pytorch_users.md", "for_jax_users.md",
         "choosing_a_mode.md", "complex_gradients.md", "troubleshooting.md"]
BLOCK = re.compile(r"```(python|text)\n(.*?)```", re.S)
RAISES = re.compile(r"#\s*raises\s+([\w.]+)")


def _blocks(page):
    with open(os.path.join(DOCS, page)) as f:
        found = BLOCK.findall(f.read())
    for i, (lang, code) in enumerate(found):
        if lang != "python":
            continue
        quoted = found[i + 1][1] if i + 1 < len(found) and found[i + 1][0] == "text" else None
        yield code, quoted


@pytest.mark.parametrize("page", PAGES)
def test_page_code_runs(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)   # pages that save files write here
    ns = {"np": np, "tf": tf, "__name__": "__docs__"}
    ran = 0
    for code, quoted in _blocks(page):
        first = code.lstrip().splitlines()[0] if code.strip() else ""
        m = RAISES.match(first)
        if "webgpu" in code and "webgpu" not in tf.devices.available():
            if m is not None:
                continue   # an error only a WebGPU device can show
            code = re.sub(r'.*"webgpu".*\n', "", code)   # the device lines need the device
        if m is None:
            exec(compile(code, page, "exec"), ns)
        else:
            expected = eval(m.group(1), {"tf": tf})   # (eval adds the builtins)
            with pytest.raises(expected) as info:
                exec(compile(code, page, "exec"), ns)
            if quoted is not None:
                start = quoted.strip().splitlines()[0]
                message = "%s: %s" % (type(info.value).__name__, info.value)
                assert message.startswith(start), (
                    "%s quotes an error message tenferro no longer gives:\n  quoted: %s\n"
                    "  actual: %s" % (page, start, message))
        ran += 1
    assert ran, "%s has no python block" % page
