// The side panel: world parameters, layer switcher, 3D toggle.
import { WORLD_PARAMS } from './state.js';

export function fillPanel(form, params) {
  for (const name of WORLD_PARAMS) {
    if (params[name] !== undefined) form.elements[name].value = params[name];
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

export function onPanelChange(form, callback, delay = 350) {
  let timer = null;
  const fire = () => {
    clearTimeout(timer);
    timer = setTimeout(() => callback(readPanel(form)), delay);
  };
  form.addEventListener('input', fire);
  form.addEventListener('change', fire);
  form.addEventListener('submit', (event) => event.preventDefault());
}

export function setLayer(fieldset, layer) {
  for (const input of fieldset.querySelectorAll('input[name=layer]')) input.checked = input.value === layer;
}
