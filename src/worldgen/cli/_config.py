"""``worldgen config``: example config files."""

from __future__ import annotations

import enum
from typing import Annotated

import typer

from worldgen.cli._common import Opt, app


class ExampleName(enum.StrEnum):
    map = "map"
    world = "world"


@app.command("config")
def config_command(
    example: Annotated[
        ExampleName, Opt(help="Which example config to print: map or world.")
    ] = ExampleName.map,
) -> None:
    """Print an example TOML config, every key at its default, ready to edit:
    `worldgen config --example map > my_map.toml`."""
    from worldgen.config import example as example_text

    typer.echo(example_text(example.value), nl=False)
