import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../support/process';

// The supported Node is named in four places: the version CI installs (scripts/install-node),
// the production image, package.json's engines and the lock file's copy of it. They drift apart
// silently (CI would test one Node while the image ships another), so this holds them together.
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

function pinnedNode(): { version: string; major: string; minor: string } {
  const match = /^VERSION="(\d+)\.(\d+)\.(\d+)"$/m.exec(read('scripts/install-node'));
  assert.ok(match, 'scripts/install-node pins VERSION="X.Y.Z"');
  return { version: `${match[1]}.${match[2]}.${match[3]}`, major: match[1], minor: match[2] };
}

describe('the supported Node runtime', () => {
  it('is the same release line in CI (scripts/install-node) and in the production image', () => {
    const { major, minor } = pinnedNode();
    // The image's base is a build argument (scripts/containers builds a local one): its default names the public image.
    const images = [...read('Dockerfile').matchAll(/^(?:FROM |ARG BASE=)node:(\S+)/gm)].map((m) => m[1]);
    assert.ok(images.length > 0, 'the Dockerfile builds on a node image');
    for (const image of images) assert.match(image, new RegExp(`^${major}\\.${minor}-`), `image node:${image}`);
  });

  it('is the lower bound of engines, in package.json and in the lock file alike', () => {
    const { major } = pinnedNode();
    const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node;
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { engines?: { node: string } }> };
    assert.equal(engines, `>=${major}`);
    // A lock whose root differs from package.json is rewritten by the next `npm install`.
    assert.equal(lock.packages['']?.engines?.node, engines);
  });
});
