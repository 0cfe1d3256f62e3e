/** The editor's pages, loaded together as one chunk (main.ts imports this lazily). */
export { diffView } from './diff-page';
export { editView } from './edit-page';
