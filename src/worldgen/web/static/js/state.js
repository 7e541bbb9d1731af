// The whole view in the URL's hash, so a link reproduces it:
// world parameters, position (world cells), zoom, layer, pitch, bearing, 3D.

export const WORLD_PARAMS = [
  'preset', 'seed', 'continent_size', 'land_fraction', 'relief',
  'scale', 'octaves', 'persistence', 'lacunarity', 'sea',
];
export const VIEW_LAYERS = ['colour', 'biomes', 'hillshade', 'temperature', 'rainfall', 'voxel'];
// x and z default to the world's spawn (the server sends it).
export const VIEW_DEFAULTS = { x: null, z: null, zoom: 6, layer: 'colour', pitch: 0, bearing: 0, terrain: 0 };
const NUMBERS = ['x', 'z', 'zoom', 'pitch', 'bearing', 'terrain'];

export function readState(hash = window.location.hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const world = {};
  for (const name of WORLD_PARAMS) {
    if (params.has(name)) world[name] = params.get(name);
  }
  const view = { ...VIEW_DEFAULTS };
  for (const name of Object.keys(VIEW_DEFAULTS)) {
    if (!params.has(name)) continue;
    const value = params.get(name);
    if (NUMBERS.includes(name)) {
      const number = Number(value);
      if (Number.isFinite(number)) view[name] = number;
    } else if (name === 'layer') {
      // An unknown layer (a typo, an old link) is the default one.
      if (VIEW_LAYERS.includes(value)) view[name] = value;
    } else {
      view[name] = value;
    }
  }
  return { world, view };
}

// Decimals of a cell that put the view's centre within a fiftieth of a
// screen pixel: a cell is 2 ** (zoom - 15) px (one at the map's zoom 15),
// so whole cells below zoom 10.4 and four decimals at the deepest, 22.
export function positionDigits(zoom) {
  return Math.max(0, Math.ceil(Math.log10(25 * 2 ** (zoom - 15))));
}

export function stateHash({ world, view }) {
  const params = new URLSearchParams();
  for (const name of WORLD_PARAMS) {
    if (world[name] !== undefined && world[name] !== '') params.set(name, world[name]);
  }
  const digits = positionDigits(view.zoom);
  params.set('x', Number(view.x.toFixed(digits)));
  params.set('z', Number(view.z.toFixed(digits)));
  params.set('zoom', view.zoom.toFixed(2));
  params.set('layer', view.layer);
  params.set('pitch', Math.round(view.pitch));
  params.set('bearing', Math.round(view.bearing));
  params.set('terrain', view.terrain ? 1 : 0);
  return '#' + params.toString();
}

export function writeState(state) {
  const hash = stateHash(state);
  if (hash !== window.location.hash) window.history.replaceState(null, '', hash);
}
