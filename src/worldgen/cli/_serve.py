"""``worldgen serve``: the explorer."""

from __future__ import annotations

import pathlib
from typing import Annotated

from worldgen.cli._common import (
    Opt,
    PresetName,
    _err,
    _fail,
    _given,
    _out,
    app,
    leave_if_working,
)


@app.command("serve")
def serve_command(
    config: Annotated[
        pathlib.Path | None,
        Opt(help="TOML map config file; the page's options override it.", show_default="none"),
    ] = None,
    preset: Annotated[
        PresetName | None,
        Opt(help="Start from a preset.", show_default="continents; with --config, none"),
    ] = None,
    seed: Annotated[int | None, Opt(help="Any 64-bit integer.", show_default="0")] = None,
    port: Annotated[int, Opt(help="Port to listen on (0: a free one).")] = 0,
    host: Annotated[
        str,
        Opt(
            help="Address to listen on; another than loopback opens the explorer to that "
            "network, and pages must then be opened by this name (0.0.0.0 or ::, every "
            "address: by any address of this machine).",
        ),
    ] = "127.0.0.1",
    open_browser: Annotated[
        bool, Opt("--open", help="Open the page in a browser.", show_default="off")
    ] = False,
    timeout: Annotated[float, Opt(help="Seconds a tile request may wait (then 504).")] = 60.0,
) -> None:
    """Serve the explorer: a local page to pan, zoom and fly through the world."""
    import gc
    import signal
    import threading
    import webbrowser

    from uvicorn.server import HANDLED_SIGNALS

    from worldgen.config import load_map_toml
    from worldgen.web import create_app
    from worldgen.web._server import every_address, listen, make_server, page_url

    try:
        if not 0 <= port <= 65535:
            raise ValueError(f"--port must be from 0 to 65535, got {port}")
        if not host or any(c.isspace() or c in "/[]" for c in host):
            raise ValueError(
                f"--host must be an address or name such as 127.0.0.1 or ::1 (no brackets), "
                f"got {host!r}"
            )
        defaults = {"preset": preset.value if preset else None, "seed": seed}
        app_ = create_app(
            load_map_toml(config) if config is not None else {},
            {k: v for k, v in defaults.items() if v is not None},
            timeout=timeout,
            hosts=(host,),
        )
        try:
            sock = listen(host, port)
        except OSError as exc:
            raise OSError(
                f"host/port: cannot listen on {host}:{port} ({exc.strerror or exc})"
            ) from None
    except (ValueError, TypeError, OSError) as exc:
        raise _fail(
            exc, options=_given({"seed": seed, "timeout": timeout}), config=config
        ) from None
    server = make_server(app_)
    # From the moment the URL shows, Ctrl-C stops the server as it does once
    # it runs (uvicorn takes the signals only then: one between was an
    # "interrupted" exit, or a warning of a coroutine never awaited).
    taken = {sig: signal.signal(sig, server.handle_exit) for sig in HANDLED_SIGNALS}
    url = page_url(host, sock.getsockname()[1])
    also = "and at this machine's addresses on the network; " if every_address(host) else ""
    # The socket listens already: the URL works from the moment it is shown.
    _out.print(
        f"worldgen explorer at {url} ({also}Ctrl+C stops it)",
        markup=False,
        highlight=False,
    )
    if open_browser:

        def show() -> None:
            if not webbrowser.open(url):
                _err.print(f"no web browser found here: open {url} in one", highlight=False)

        threading.Thread(target=show, daemon=True).start()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass  # the server stopped on the first Ctrl-C
    finally:
        for sig, handler in taken.items():
            signal.signal(sig, handler)
        sock.close()
    _err.print("worldgen explorer stopped", highlight=False)
    # The interpreter's last garbage collections over numba's big heap take
    # about half a second; nothing there needs them, so the exit is at once.
    gc.freeze()
    leave_if_working(0)  # tiles still in the making are not waited for
