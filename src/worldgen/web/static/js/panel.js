// The side panel: world parameters, layer switcher, 3D toggle.
import { WORLD_PARAMS } from './state.js';

// The world's own parameters fill the panel; the others (a classic map's
// for a world preset, and the other way round) are hidden and emptied.
export function fillPanel(form, params) {
  for (const name of WORLD_PARAMS) {
    const input = form.elements[name];
    const shown = params[name] !== undefined;
    input.closest('label').style.display = shown ? '' : 'none';
    input.value = shown ? params[name] : '';
  }
}

export function readPanel(form) {
  const out = {};
  for (const name of WORLD_PARAMS) {
    const value = form.elements[name].value.trim();
    if (value !== '') out[name] = value;
  }
  return out;
}

// Calls back with the panel's parameters; a new preset sends only itself
// and the seed, so that it comes with its own parameters.
// A field's change (when it loses focus) after its input events sends
// nothing again: the values went with the input, and a refused one would
// come back after its error was cleared.
// A shown field left empty, or holding what is not yet a number ('-',
// '1e'), sends nothing: it is being retyped, and without it the server's
// default would replace the world (and the field) a moment later.
function unfinished(form) {
  return WORLD_PARAMS.some((name) => {
    const input = form.elements[name];
    if (input.closest('label').style.display === 'none') return false;
    return input.value.trim() === '' || Boolean(input.validity && input.validity.badInput);
  });
}

export function onPanelChange(form, callback, delay = 350) {
  let timer = null;
  let sent = null;
  const fire = (event) => {
    const preset = Boolean(event && event.target && event.target.name === 'preset');
    if (!preset && unfinished(form)) {
      clearTimeout(timer);
      return;
    }
    const params = readPanel(form);
    const chosen = preset ? { preset: params.preset, seed: params.seed } : params;
    for (const key of Object.keys(chosen)) if (chosen[key] === undefined) delete chosen[key];
    const key = JSON.stringify(chosen);
    if (event && event.type === 'change' && key === sent) return;
    sent = key;
    clearTimeout(timer);
    timer = setTimeout(() => callback(chosen), delay);
  };
  form.addEventListener('input', fire);
  form.addEventListener('change', fire);
  form.addEventListener('submit', (event) => event.preventDefault());
}

export function setLayer(fieldset, layer) {
  for (const input of fieldset.querySelectorAll('input[name=layer]')) input.checked = input.value === layer;
}
