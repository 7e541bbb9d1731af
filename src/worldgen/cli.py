"""The ``worldgen`` command line: thin translations into library calls.

Every command that writes files takes ``--out DIR`` and works with no other
option. Library errors (bad parameters) become one red line on stderr and
exit status 1.
"""

from __future__ import annotations

import enum
import pathlib
from typing import Annotated

import numpy as np
import typer
from rich.console import Console

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="worldgen: procedural worlds from a seed.",
)
_err = Console(stderr=True)
_out = Console()


class NoiseName(enum.StrEnum):
    perlin = "perlin"
    value = "value"
    simplex = "simplex"
    cellular = "cellular"


class Mode(enum.StrEnum):
    fbm = "fbm"
    billow = "billow"
    turbulence = "turbulence"
    ridged = "ridged"


@app.callback()
def _root() -> None:
    """worldgen: procedural worlds from a seed."""


@app.command("map")
def map_command(
    out: Annotated[pathlib.Path, typer.Option(help="Directory to write into.")] = pathlib.Path(
        "worldgen-out"
    ),
    seed: Annotated[int, typer.Option(help="Any 64-bit integer.")] = 0,
    width: Annotated[int, typer.Option(min=1, max=16384, help="Pixels across.")] = 512,
    height: Annotated[int, typer.Option(min=1, max=16384, help="Pixels down.")] = 512,
    scale: Annotated[
        float, typer.Option(help="Pixels per lattice cell of the first octave.")
    ] = 128.0,
    octaves: Annotated[int, typer.Option(help="Fractal octaves, 1-32.")] = 6,
    persistence: Annotated[float, typer.Option(help="Amplitude ratio between octaves.")] = 0.5,
    lacunarity: Annotated[float, typer.Option(help="Frequency ratio between octaves.")] = 2.0,
    noise: Annotated[NoiseName, typer.Option(help="Base noise.")] = NoiseName.perlin,
    mode: Annotated[Mode, typer.Option(help="Fractal mode.")] = Mode.fbm,
    bits: Annotated[int, typer.Option(help="PNG bit depth, 8 or 16.")] = 16,
) -> None:
    """Write a greyscale fractal noise map as a PNG (contrast stretched to the map)."""
    from worldgen.io import write_grey_png
    from worldgen.noise import Fractal, axis, by_name

    try:
        if not (np.isfinite(scale) and scale > 0):
            raise ValueError(f"scale must be a finite number > 0, got {scale!r}")
        fractal = Fractal(
            by_name(noise.value, seed=seed), octaves, persistence, lacunarity, mode.value
        )
        step = 1.0 / scale
        with _err.status("generating noise map"):
            values = fractal.grid(axis(0.0, width, step), axis(0.0, height, step))
        lo, hi = float(values.min()), float(values.max())
        stretched = (values - lo) / (hi - lo) if hi > lo else np.zeros_like(values)
        path = write_grey_png(out / "noise.png", stretched, bits=bits)
    except (ValueError, TypeError, OSError) as exc:
        _err.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(1) from None
    _out.print(f"wrote {path} ({width}x{height}, {bits}-bit greyscale PNG)", highlight=False)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
