"""An explorer server for the tests of bad clients, in its own process (so
its memory can be measured): tiles are ``--tile-bytes`` bytes made at once
(``--product big``) or the real ones. Prints its URL once it listens::

    python -m tests.web.stub_server --product big --paced-bytes 16777216
"""

import argparse

from worldgen.web import create_app, tile_png
from worldgen.web._server import listen, make_server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--product", choices=["big", "real"], default="big")
    parser.add_argument("--tile-bytes", type=int, default=4 * 2**20)
    parser.add_argument("--paced-bytes", type=int, default=256 * 2**20)
    parser.add_argument("--send-timeout", type=float, default=20.0)
    args = parser.parse_args()

    def big(config, layer, z, x, y) -> bytes:
        return bytes([x % 251]) * args.tile_bytes  # a new object for every tile

    app = create_app(
        product=big if args.product == "big" else tile_png,
        cache_bytes=0,
        paced_bytes=args.paced_bytes,
        workers=2,
    )
    sock = listen("127.0.0.1", 0)
    print(f"http://127.0.0.1:{sock.getsockname()[1]}/", flush=True)
    make_server(app, send_timeout=args.send_timeout).run(sockets=[sock])


if __name__ == "__main__":
    main()
