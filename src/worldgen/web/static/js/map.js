// The slippy map: one raster source per tile layer, a raster-dem source for
// 3D terrain, all from the server's TileJSON documents.
import * as maplibregl from '/static/vendor/maplibre-gl/maplibre-gl.mjs';
import { cellToLngLat, lngLatToCell } from './grid.js';
import { VIEW_LAYERS } from './state.js';

// Heights are metres and a cell is a metre, shown at a web-map zoom-16
// pixel of about 2.39 m: this exaggeration keeps the true proportions
// (times 1.5, to read the relief at a glance).
export const EXAGGERATION = 2.39 * 1.5;

export function mapStyle(layers, view) {
  const byName = Object.fromEntries(layers.map((doc) => [doc.name, doc]));
  const sources = {};
  const styleLayers = [{ id: 'sea', type: 'background', paint: { 'background-color': '#1d2a44' } }];
  for (const name of VIEW_LAYERS) {
    const doc = byName[name];
    sources[name] = {
      type: 'raster', tiles: doc.tiles, tileSize: 256, minzoom: doc.minzoom, maxzoom: doc.maxzoom,
    };
    styleLayers.push({
      id: name, type: 'raster', source: name,
      layout: { visibility: name === view.layer ? 'visible' : 'none' },
      paint: { 'raster-resampling': 'nearest', 'raster-fade-duration': 0 },
    });
  }
  const dem = byName.height;
  sources.dem = {
    type: 'raster-dem', tiles: dem.tiles, tileSize: 256, encoding: dem.encoding,
    minzoom: dem.minzoom, maxzoom: dem.maxzoom,
  };
  const style = { version: 8, sources, layers: styleLayers };
  if (view.terrain) style.terrain = { source: 'dem', exaggeration: EXAGGERATION };
  return style;
}

export function createMap(container, layers, view) {
  const map = new maplibregl.Map({
    container,
    style: mapStyle(layers, view),
    center: cellToLngLat(view.x, view.z),
    zoom: view.zoom,
    pitch: view.pitch,
    bearing: view.bearing,
    maxZoom: 22,
    maxPitch: 80,
    renderWorldCopies: false,
    attributionControl: false,
    canvasContextAttributes: { preserveDrawingBuffer: true },
  });
  map.addControl(new maplibregl.NavigationControl({ visualizePitch: true }), 'top-right');
  return map;
}

export function viewOf(map, view) {
  const centre = map.getCenter();
  const [x, z] = lngLatToCell(centre.lng, centre.lat);
  return { ...view, x, z, zoom: map.getZoom(), pitch: map.getPitch(), bearing: map.getBearing() };
}

export function popup() {
  return new maplibregl.Popup({ closeOnClick: true });
}
