"""Build glue: the explorer page's browser libraries, from npm into the package.

``package.json`` and ``package-lock.json`` pin MapLibre GL JS and three.js;
every build (``pip install .`` and ``pip install -e .`` alike) runs ``npm
ci`` when the copies in ``src/worldgen/web/static/vendor`` do not match the
lockfile, and copies the few files the page loads (with their licences).
Nothing is copied by hand and nothing is fetched at run time.
"""

import hashlib
import pathlib
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = pathlib.Path(__file__).resolve().parent
VENDOR = ROOT / "src" / "worldgen" / "web" / "static" / "vendor"
FILES = {
    "maplibre-gl/dist/maplibre-gl.mjs": "maplibre-gl/maplibre-gl.mjs",
    "maplibre-gl/dist/maplibre-gl-worker.mjs": "maplibre-gl/maplibre-gl-worker.mjs",
    "maplibre-gl/dist/maplibre-gl-shared.mjs": "maplibre-gl/maplibre-gl-shared.mjs",
    "maplibre-gl/dist/maplibre-gl.css": "maplibre-gl/maplibre-gl.css",
    "maplibre-gl/LICENSE.txt": "maplibre-gl/LICENSE.txt",
    "three/build/three.module.js": "three/three.module.js",
    "three/build/three.core.js": "three/three.core.js",
    "three/examples/jsm/controls/OrbitControls.js": "three/OrbitControls.js",
    "three/LICENSE": "three/LICENSE",
}


def vendor_browser_libraries() -> None:
    lock = ROOT / "package-lock.json"
    if not lock.exists():  # an sdist or wheel build with the copies already made
        return
    digest = hashlib.sha256(lock.read_bytes()).hexdigest()
    stamp = VENDOR / "package-lock.sha256"
    if (
        stamp.exists()
        and stamp.read_text() == digest
        and all((VENDOR / v).exists() for v in FILES.values())
    ):
        return
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit(
            "worldgen's explorer page needs npm (Node.js) at install time to fetch its "
            "pinned browser libraries: install it (e.g. apt-get install npm) and reinstall"
        )
    subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"],
        cwd=ROOT,
        check=True,
    )
    for source, target in FILES.items():
        (VENDOR / target).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / "node_modules" / source, VENDOR / target)
    stamp.write_text(digest)


class BuildPy(build_py):
    def run(self):
        vendor_browser_libraries()
        super().run()


setup(cmdclass={"build_py": BuildPy})
