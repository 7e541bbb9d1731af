"""``worldgen config``: example config files."""

from __future__ import annotations

import enum
import sys
from typing import Annotated

import typer

from worldgen.cli._common import Opt, _fail, app


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

    try:
        typer.echo(example_text(example.value), nl=False)
        sys.stdout.flush()
    except BrokenPipeError:  # `| head`: click ends the run quietly
        raise
    except OSError as exc:  # a full disk under `> my_map.toml`
        why = exc.strerror or exc
        raise _fail(OSError(f"could not write the example config ({why})")) from None
