"""Shared by the benchmark scripts: each owns one section of RESULTS.md."""

from __future__ import annotations

import datetime
import os
import pathlib
import platform

import numba
import numpy as np


def machine() -> str:
    """CPU model, core count and the versions that matter for speed."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (
        f"{model}, {os.cpu_count()} logical CPUs; Python {platform.python_version()}, "
        f"numpy {np.__version__}, numba {numba.__version__}, {platform.system()} {platform.release()}"
    )


def header(command: str) -> list[str]:
    return [
        f"Command: `{command}`  ",
        f"Date: {datetime.date.today().isoformat()}  ",
        f"Machine: {machine()}",
        "",
    ]


def write_section(path: str | os.PathLike, name: str, text: str) -> None:
    """Replace section ``name`` of the markdown file at ``path`` (between
    ``<!-- name -->`` and ``<!-- /name -->``), or append it; everything else
    in the file, hand-written notes included, is kept."""
    target = pathlib.Path(path)
    old = target.read_text() if target.exists() else "# Benchmark results\n"
    start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    block = f"{start}\n{text.rstrip()}\n{end}"
    if start in old and end in old:
        new = old[: old.index(start)] + block + old[old.index(end) + len(end) :]
    else:
        new = old.rstrip() + "\n\n" + block + "\n"
    target.write_text(new)
