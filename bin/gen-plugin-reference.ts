/** `npm run docs:plugins`: writes docs/plugin-reference.md and docs/template-roots.md from the descriptors (./plugin-reference.ts). */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderPluginReference, renderTemplateRoots } from './plugin-reference';

const docs = path.join(__dirname, '..', 'docs');
writeFileSync(path.join(docs, 'plugin-reference.md'), renderPluginReference());
writeFileSync(path.join(docs, 'template-roots.md'), renderTemplateRoots());
console.log('wrote docs/plugin-reference.md and docs/template-roots.md');
