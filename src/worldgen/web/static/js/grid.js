// The tile pyramid over world cells (worldgen/web/_tiles.py): at zoom
// NATIVE_ZOOM one pixel is one cell; the pyramid's centre is cell (0, 0).

export const NATIVE_ZOOM = 16;
export const TILE = 256;
const SIZE = TILE * 2 ** NATIVE_ZOOM;
// The world's cells are -HALF .. HALF - 1 on both axes (_tiles.py's HALF).
export const HALF = SIZE / 2;

export function cellToLngLat(x, z) {
  const mx = (x + HALF) / SIZE;
  const my = (z + HALF) / SIZE;
  const lng = mx * 360 - 180;
  const lat = (Math.atan(Math.sinh(Math.PI * (1 - 2 * my))) * 180) / Math.PI;
  return [lng, lat];
}

export function lngLatToCell(lng, lat) {
  const mx = (lng + 180) / 360;
  const s = Math.sin((lat * Math.PI) / 180);
  const my = 0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI);
  return [mx * SIZE - HALF, my * SIZE - HALF];
}
