"""``worldgen serve``: the explorer."""

from __future__ import annotations

import pathlib
from typing import Annotated

from worldgen.cli._common import Opt, PresetName, _fail, _out, app


@app.command("serve")
def serve_command(
    config: Annotated[
        pathlib.Path | None,
        Opt(help="TOML map config file; the page's options override it.", show_default="none"),
    ] = None,
    preset: Annotated[
        PresetName | None, Opt(help="Start from a preset.", show_default="continents")
    ] = None,
    seed: Annotated[int | None, Opt(help="Any 64-bit integer.", show_default="0")] = None,
    port: Annotated[int, Opt(help="Port on 127.0.0.1 (0: a free one).")] = 0,
    open_browser: Annotated[bool, Opt("--open", help="Open the page in a browser.")] = False,
    timeout: Annotated[float, Opt(help="Seconds a tile request may wait (then 504).")] = 60.0,
) -> None:
    """Serve the explorer: a local page to pan, zoom and fly through the world."""
    import socket
    import threading
    import webbrowser

    import uvicorn

    from worldgen.config import load_toml
    from worldgen.web import create_app

    try:
        if not 0 <= port <= 65535:
            raise ValueError(f"port must be from 0 to 65535, got {port}")
        defaults = {"preset": preset.value if preset else None, "seed": seed}
        app_ = create_app(
            load_toml(config) if config is not None else {},
            {k: v for k, v in defaults.items() if v is not None},
            timeout=timeout,
        )
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
    except (ValueError, TypeError, OSError) as exc:
        raise _fail(exc) from None
    url = f"http://127.0.0.1:{sock.getsockname()[1]}/"
    _out.print(f"worldgen explorer at {url} (Ctrl+C stops it)", markup=False, highlight=False)
    if open_browser:
        threading.Timer(0.5, webbrowser.open, [url]).start()
    config_ = uvicorn.Config(app_, log_level="warning", lifespan="on", timeout_keep_alive=75)
    server = uvicorn.Server(config_)
    server.run(sockets=[sock])
