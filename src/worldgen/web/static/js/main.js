// The explorer page: wires the panel, the map, the readout, the stats line,
// the export and the voxel view together, keeping the state in the URL.
import { answerJson, failure } from './answers.js';
import { HALF, cellToLngLat, lngLatToCell } from './grid.js';
import { EXAGGERATION, createMap, mapStyle, popup, viewOf } from './map.js';
import { fillPanel, onPanelChange, setLayer } from './panel.js';
import { VIEW_LAYERS, WORLD_PARAMS, readState, writeState } from './state.js';
import { closeVoxels, openVoxels } from './voxels.js';

const $ = (id) => document.getElementById(id);
const form = $('world');
const state = readState();
const explorer = { state, world: null, map: null, tiles: 0, tileErrors: 0, ready: false };
window.explorer = explorer;

// Whether the panel holds a value the server refused (its error shown).
let refused = false;

function showError(message) {
  $('error').hidden = !message;
  $('error').textContent = message || '';
  $('panel-toggle').classList.toggle('alert', Boolean(message));
  // With its error gone, a refused value gives way to the one in use.
  if (!message && refused) fillPanel(form, explorer.world.params);
  if (!message) refused = false;
}

// The world's parameters, its seed as the server's string: a seed may pass
// 2**53, past which a JSON number is rounded.
async function register(params) {
  const response = await fetch('/worlds?' + new URLSearchParams(params));
  const body = await answerJson(response);
  body.params = { ...body.params, seed: body.seed };
  return body;
}

function save() {
  state.view = viewOf(explorer.map, state.view);
  writeState(state);
}

// place(world), if given, says where the new world's view goes (jumpTo's
// options); without it the view stays. Only the last world asked for is
// shown: an earlier one's answer that comes later is dropped.
let asked = 0;
async function changeWorld(params, place = null) {
  const mine = ++asked;
  try {
    const world = await register(params);
    if (mine !== asked) return;
    showError('');
    explorer.world = world;
    state.world = { ...world.params };
    fillPanel(form, world.params);
    explorer.map.setStyle(mapStyle(world.layers, state.view));
    if (place) explorer.map.jumpTo(place(world));
    save();
    updateLayerNote();
  } catch (error) {
    if (mine !== asked) return;
    showError(error.message);
    refused = true;
  }
}

// The map's zoom from which a layer's tiles show. They are 256 px and the
// map's zoom counts 512-px tiles: tiles of zoom z are drawn from the map's
// zoom z - 1, rounded (MapLibre rounds a raster source's zoom), so from z - 1.5.
const shownFrom = (doc) => doc.minzoom - 1.5;

// A new preset or seed from the panel opens on the new world's spawn (the
// old position is often open sea there); other parameters keep the view.
function fromPanel(params) {
  const elsewhere = params.preset !== state.world.preset || params.seed !== state.world.seed;
  changeWorld(params, elsewhere ? (world) => ({ center: cellToLngLat(...world.spawn) }) : null);
}

const layerDoc = (name) => explorer.world && explorer.world.layers.find((l) => l.name === name);

// The server's note on a layer of this world (a classic map's voxel layer
// shows another world), or null.
function layerNote(name) {
  const doc = layerDoc(name);
  return (doc && doc.worldgen.note) || null;
}

// Below the layer switcher: the layer's note, and whether it starts at a
// deeper zoom (the voxel layer) than the view's.
function updateLayerNote() {
  const map = explorer.map;
  const doc = layerDoc(state.view.layer);
  const below = Boolean(map && doc && map.getZoom() < shownFrom(doc));
  const lines = [layerNote(state.view.layer)];
  if (below) lines.push(`The ${doc.name} layer shows from zoom ${shownFrom(doc)}: zoom in.`);
  const note = $('layer-note');
  note.textContent = lines.filter(Boolean).join(' ');
  note.hidden = !note.textContent;
}

function showLayer(layer) {
  for (const name of VIEW_LAYERS) {
    explorer.map.setLayoutProperty(name, 'visibility', name === layer ? 'visible' : 'none');
  }
  state.view.layer = layer;
  setLayer($('layers'), layer);
  save();
  showError('');
  updateLayerNote();
}

function setTerrain(on) {
  state.view.terrain = on ? 1 : 0;
  const map = explorer.map;
  map.setTerrain(on ? { source: 'dem', exaggeration: EXAGGERATION } : null);
  if (on && map.getPitch() < 30) map.easeTo({ pitch: 60, duration: 0 });
  save();
}

// A cell of the world, not past its edge (a tilted view's sky is).
const inWorld = (x, z) => x >= -HALF && x < HALF && z >= -HALF && z < HALF;

// Copies text to the clipboard and says so for a moment. Without a
// clipboard (a page that is not a secure context) or allowed none, the
// read-out's text is selected for Ctrl+C instead.
let copiedTimer = null;
function copy(text) {
  explorer.copied = text;
  const say = (message) => {
    $('copied').textContent = message;
    $('copied').hidden = false;
    clearTimeout(copiedTimer);
    copiedTimer = setTimeout(() => { $('copied').hidden = true; }, 1500);
  };
  const select = () => {
    const selection = window.getSelection();
    if (selection) selection.selectAllChildren($('readout'));
    say('selected: Ctrl+C copies it');
  };
  try {
    navigator.clipboard.writeText(text).then(() => say(`copied ${text}`), select);
  } catch {
    select();
  }
}

function setupReadout(map) {
  const readout = $('readout');
  let cell = null;
  let pending = false;
  let want = null;
  const ask = async () => {
    if (pending || !want) return;
    const [x, z] = want;
    want = null;
    pending = true;
    try {
      const response = await fetch(`/w/${explorer.world.key}/point?x=${x}&z=${z}`);
      const p = await answerJson(response);
      if (cell && cell[0] === p.x && cell[1] === p.z) {
        readout.textContent = `X ${p.x}  Z ${p.z}  ${Math.round(p.metres)} m  ${p.biome}  ${p.temperature.toFixed(1)} °C  ${Math.round(p.rainfall)} mm`;
      }
    } catch (error) {
      // The cell stays, with why there is no more (a server stopped, a 504).
      if (cell && cell[0] === x && cell[1] === z) {
        readout.textContent = `X ${x}  Z ${z}  (no read-out: ${error.message})`;
      }
    } finally {
      pending = false;
      ask();
    }
  };
  map.on('mousemove', (event) => {
    const [x, z] = lngLatToCell(event.lngLat.lng, event.lngLat.lat).map(Math.floor);
    if (cell && cell[0] === x && cell[1] === z) return;
    cell = [x, z];
    if (!inWorld(x, z)) {
      readout.textContent = 'past the edge of the world';
      want = null;
      return;
    }
    readout.textContent = `X ${x}  Z ${z}`;
    want = cell;
    ask();
  });
  readout.addEventListener('click', () => {
    if (cell && inWorld(...cell)) copy(`${cell[0]} ${cell[1]}`);
  });
  map.on('click', (event) => {
    const [x, z] = lngLatToCell(event.lngLat.lng, event.lngLat.lat).map(Math.floor);
    copy(`${x} ${z}`);
    if (map.getZoom() >= 14 && inWorld(x, z)) {
      const button = document.createElement('button');
      button.textContent = `Voxel chunks at ${x}, ${z}`;
      button.addEventListener('click', () => showVoxels(x, z));
      popup().setLngLat(event.lngLat).setDOMContent(button).addTo(map);
    }
  });
}

// The last voxel view asked for: an earlier one that loads later, or one
// closed while loading, says nothing.
let voxelsAsked = 0;
async function showVoxels(x, z) {
  const mine = ++voxelsAsked;
  const section = $('voxels');
  section.hidden = false;
  $('voxels-title').textContent = `voxel chunks around ${x}, ${z} (loading)`;
  try {
    const info = await openVoxels($('voxels-view'), `/w/${explorer.world.key}/chunks?x=${x}&z=${z}&radius=32`, [x, z]);
    if (mine !== voxelsAsked || !info) return;
    const note = layerNote('voxel');
    $('voxels-title').textContent = `voxel chunks around ${x}, ${z}: 64 x 64 columns, ${info.triangles} triangles${note ? '. ' + note : ''}`;
    explorer.voxels = info;
  } catch (error) {
    if (mine !== voxelsAsked) return;
    $('voxels-title').textContent = `voxel chunks: ${error.message}`;
  }
}

function setupStats() {
  const times = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (!/\/w\/[0-9a-f]+\/\w+\/\d+\/\d+\/\d+\.png/.test(entry.name)) continue;
      explorer.tiles += 1;
      times.push([entry.responseEnd, entry.duration]);
    }
  });
  observer.observe({ type: 'resource', buffered: true });
  setInterval(() => {
    const now = performance.now();
    const recent = times.filter(([end]) => now - end < 5000);
    const last = times.slice(-50);
    const ms = last.length ? last.reduce((sum, [, d]) => sum + d, 0) / last.length : 0;
    $('stats').textContent = `tiles: ${explorer.tiles}  ${(recent.length / 5).toFixed(1)} tiles/s  ${ms.toFixed(0)} ms per tile`;
  }, 500);
}

async function exportView() {
  const map = explorer.map;
  const bounds = map.getBounds();
  const [x0, z0] = lngLatToCell(bounds.getWest(), bounds.getNorth()).map(Math.floor);
  const [x1, z1] = lngLatToCell(bounds.getEast(), bounds.getSouth()).map(Math.ceil);
  const query = new URLSearchParams({ x: x0, z: z0, width: x1 - x0, height: z1 - z0 });
  const box = $('export-progress');
  const bar = box.querySelector('progress');
  const label = box.querySelector('span');
  box.hidden = false;
  bar.removeAttribute('value');
  label.textContent = 'making the map set';
  try {
    const response = await fetch(`/w/${explorer.world.key}/export?${query}`);
    if (!response.ok) throw await failure(response);
    const total = Number(response.headers.get('content-length')) || 0;
    const reader = response.body.getReader();
    const parts = [];
    let done = 0;
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      parts.push(chunk.value);
      done += chunk.value.length;
      if (total) {
        bar.max = total;
        bar.value = done;
        label.textContent = `${Math.round((100 * done) / total)} %`;
      }
    }
    const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') || '');
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob(parts, { type: 'application/zip' }));
    link.download = name ? name[1] : 'worldgen-view.zip';
    link.click();
    // What the zip holds: the whole view, or (past the export's size) its centre.
    label.textContent = `done: ${response.headers.get('x-worldgen-note') || response.headers.get('x-worldgen-window') || ''}`;
    explorer.exported = done;
  } catch (error) {
    label.textContent = '';
    showError(`export: ${error.message}`);
  }
}

// Two worlds' parameters as the URL writes them.
function sameWorld(a, b) {
  return WORLD_PARAMS.every((name) => String(a[name] ?? '') === String(b[name] ?? ''));
}

// A hash the page did not write (typed in the address bar, a link, Back or
// Forward) is applied in place. The page's own writes replace the history
// entry and fire no hashchange, so they do not come back here.
function applyHash() {
  const next = readState();
  const view = next.view;
  if (view.layer !== state.view.layer) showLayer(view.layer);
  if (Boolean(view.terrain) !== Boolean(state.view.terrain)) {
    $('terrain3d').checked = Boolean(view.terrain);
    setTerrain(view.terrain);
  }
  // Where the hash puts the view; a hash with no position, the world's spawn.
  const place = (world) => ({
    center: cellToLngLat(...(view.x === null || view.z === null ? world.spawn : [view.x, view.z])),
    zoom: view.zoom,
    pitch: view.pitch,
    bearing: view.bearing,
  });
  if (sameWorld(next.world, state.world)) {
    explorer.map.jumpTo(place(explorer.world));
  } else {
    changeWorld(next.world, place);
  }
}

async function start() {
  let world;
  try {
    world = await register(state.world);
  } catch (error) {
    showError(error.message);
    world = await register({});
  }
  explorer.world = world;
  state.world = { ...world.params };
  if (state.view.x === null || state.view.z === null) [state.view.x, state.view.z] = world.spawn;
  fillPanel(form, world.params);
  setLayer($('layers'), state.view.layer);
  $('terrain3d').checked = Boolean(state.view.terrain);
  const map = createMap($('map'), world.layers, state.view);
  explorer.map = map;
  map.on('moveend', () => {
    save();
    showError('');  // a tile error belongs to the view it happened in
    updateLayerNote();
  });
  map.on('zoom', updateLayerNote);
  map.on('error', (event) => {
    explorer.tileErrors += 1;
    showError(`map: ${event.error && event.error.message}`);
  });
  map.on('load', () => {
    if (state.view.terrain) map.setTerrain({ source: 'dem', exaggeration: EXAGGERATION });
    explorer.ready = true;
    save();
    updateLayerNote();
  });
  onPanelChange(form, fromPanel);
  form.addEventListener('input', () => { refused = false; });  // a new value, under way
  $('layers').addEventListener('change', (event) => showLayer(event.target.value));
  $('terrain3d').addEventListener('change', (event) => setTerrain(event.target.checked));
  $('export').addEventListener('click', exportView);
  $('panel-toggle').addEventListener('click', () => {
    const open = document.body.classList.toggle('panel-open');
    $('panel-toggle').setAttribute('aria-expanded', String(open));
    $('panel-toggle').textContent = open ? 'Close panel' : 'Panel';
  });
  $('voxels-close').addEventListener('click', () => {
    voxelsAsked += 1;
    closeVoxels();
    $('voxels').hidden = true;
  });
  window.addEventListener('hashchange', applyHash);
  setupReadout(map);
  setupStats();
}

start();
