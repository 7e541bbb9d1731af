// The voxel chunks around a point in 3D: greedy-meshed by the server,
// solid faces opaque, the water surface translucent.
import * as THREE from 'three';
import { OrbitControls } from '/static/vendor/three/OrbitControls.js';
import { answerJson } from './answers.js';

let current = null;
// Counts the views opened and closed: a view whose chunks come after
// another was opened, or the panel closed, is not drawn.
let asked = 0;

function geometry(part, origin) {
  const positions = new Float32Array(part.positions.length);
  for (let i = 0; i < part.positions.length; i += 3) {
    positions[i] = part.positions[i] - origin[0];
    positions[i + 1] = part.positions[i + 1];
    positions[i + 2] = part.positions[i + 2] - origin[1];
  }
  const colours = new Float32Array(part.colours.length);
  for (let i = 0; i < colours.length; i += 1) colours[i] = part.colours[i] / 255;
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.BufferAttribute(positions, 3));
  g.setAttribute('color', new THREE.BufferAttribute(colours, 3));
  g.computeVertexNormals();
  return g;
}

export function closeVoxels() {
  asked += 1;
  if (!current) return;
  current.stop();
  current = null;
}

// Draws the chunks of url into container; null (and nothing drawn) if
// another view was opened or the panel closed while they came.
export async function openVoxels(container, url, centre) {
  closeVoxels();
  const mine = asked;
  const response = await fetch(url);
  const data = await answerJson(response);
  if (mine !== asked) return null;
  const origin = [centre[0], centre[1]];
  const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(window.devicePixelRatio);
  renderer.setSize(container.clientWidth, container.clientHeight);
  renderer.setClearColor(0x9cc3e6);
  container.replaceChildren(renderer.domElement);
  const scene = new THREE.Scene();
  scene.add(new THREE.HemisphereLight(0xffffff, 0x445566, 1.6));
  const sun = new THREE.DirectionalLight(0xffffff, 1.4);
  sun.position.set(-1, 2, -0.5);
  scene.add(sun);
  const solid = new THREE.Mesh(
    geometry(data.solid, origin),
    new THREE.MeshLambertMaterial({ vertexColors: true }),
  );
  const water = new THREE.Mesh(
    geometry(data.water, origin),
    new THREE.MeshLambertMaterial({
      vertexColors: true, transparent: true, opacity: 0.55, depthWrite: false, side: THREE.DoubleSide,
    }),
  );
  water.renderOrder = 1;
  scene.add(solid, water);
  solid.geometry.computeBoundingBox();
  const top = solid.geometry.boundingBox ? solid.geometry.boundingBox.max.y : data.sea_level;
  const camera = new THREE.PerspectiveCamera(55, container.clientWidth / container.clientHeight, 0.5, 2000);
  const r = data.size;
  camera.position.set(-0.9 * r, top + 0.7 * r, 0.9 * r);
  const controls = new OrbitControls(camera, renderer.domElement);
  controls.target.set(0, Math.max(data.sea_level, top - 0.35 * r), 0);
  controls.update();
  // The canvas follows its box (the window's size).
  const resize = new ResizeObserver(() => {
    const width = container.clientWidth;
    const height = container.clientHeight;
    if (!width || !height) return;
    renderer.setSize(width, height);
    camera.aspect = width / height;
    camera.updateProjectionMatrix();
  });
  resize.observe(container);
  let running = true;
  renderer.setAnimationLoop(() => {
    if (!running) return;
    controls.update();
    renderer.render(scene, camera);
  });
  current = {
    stop() {
      running = false;
      resize.disconnect();
      renderer.setAnimationLoop(null);
      controls.dispose();
      solid.geometry.dispose();
      water.geometry.dispose();
      renderer.dispose();
      container.replaceChildren();
    },
  };
  return { triangles: (data.solid.positions.length + data.water.positions.length) / 9 };
}
