"""Windowed pictures: what the halo and tiling cost against one finite map.

For the default map config at ``--size`` (global normalisation), each round
times, in turn:

- finite: the pictures of the whole map from its layers' heights with the
  edges replicated (no halo: what a finite map alone needs);
- windowed: ``map_pictures`` of the whole map (heights remade with a
  one-cell halo, so the pictures are crops of any bigger map's);
- tiles: ``map_pictures`` of the same map as tiles of ``--tile`` made one
  by one (each from its layers, made beforehand).

The rounds are interleaved after a warm-up and the table gives per-round
ratios to "finite" (median, min, max) beside the median seconds, so a busy
machine shifts all three alike.

    python benchmarks/bench_pictures.py --rounds 7 --write benchmarks/RESULTS.md
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from _report import header, write_section
from worldgen.products import (
    MapConfig,
    apply_shade,
    colour_ramp,
    make_layers,
    map_pictures,
    normal_map,
    relief_shade,
)
from worldgen.world import NoiseMap, Window


def finite(config: MapConfig, layers) -> None:
    """map_pictures' work on the layers' heights, edges replicated."""
    heights = config.unit_elevation(layers.elevation)
    shade = relief_shade(config, heights, halo=0)
    stops = [(b.top, b.colour) for b in config.bands]
    apply_shade(colour_ramp(heights, stops), shade, strength=0.6)
    apply_shade(config.biomes.palette()[layers.biomes], shade, strength=0.35)
    normal_map(heights, strength=config.relief)


def tiles(config: MapConfig, tiled) -> None:
    for tile, layers in tiled:
        map_pictures(config, tile, layers=layers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--tile", type=int, default=256)
    parser.add_argument("--write", metavar="PATH")
    args = parser.parse_args()

    config = MapConfig(terrain=NoiseMap(width=args.size, height=args.size, normalize="global"))
    layers = make_layers(config)
    tiled = [(tile, make_layers(config, tile)) for tile in config.terrain.window.tiles(args.tile)]
    cases = {
        "finite (edges replicated)": lambda: finite(config, layers),
        "windowed (map_pictures, one-cell halo)": lambda: map_pictures(config, layers=layers),
        f"{len(tiled)} tiles of {args.tile}^2": lambda: tiles(config, tiled),
    }
    map_pictures(config, Window(0, 0, 64, 64))  # compile
    for call in cases.values():
        call()
    seconds: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.rounds):
        for name, call in cases.items():
            start = time.perf_counter()
            call()
            seconds[name].append(time.perf_counter() - start)

    base = np.array(seconds["finite (edges replicated)"])
    command = "python benchmarks/bench_pictures.py " + " ".join(sys.argv[1:])
    lines = [
        "## Windowed pictures (bench_pictures.py)",
        "",
        *header(command),
        f"Pictures (height, shaded colour, normal, shaded biomes) of the default map config "
        f"at {args.size}^2, global normalisation; {args.rounds} interleaved rounds after a "
        "warm-up. Ratios are per round against the finite map's pictures.",
        "",
        "| case | median s | min s | ratio median | ratio min | ratio max |",
        "|---|---|---|---|---|---|",
    ]
    for name, times in seconds.items():
        ratio = np.array(times) / base
        lines.append(
            f"| {name} | {statistics.median(times):.3f} | {min(times):.3f} | {np.median(ratio):.2f} | "
            f"{ratio.min():.2f} | {ratio.max():.2f} |"
        )
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section(args.write, "bench_pictures", text)


if __name__ == "__main__":
    main()
