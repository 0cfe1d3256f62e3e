/**
 * CodeMirror's styles under the console's policy (`style-src 'self'`, no inline
 * styles). CodeMirror mounts its themes through `style-mod`, which writes a
 * `<style>` element into a document (the policy blocks it, leaving the editor
 * unstyled) and uses a constructed style sheet (adoptedStyleSheets, which the
 * policy allows) only for shadow roots. Mounting into a stand-in for the
 * document that has no `head` makes it take the constructed sheet and adopt it
 * on the document. Import this before any editor is created.
 */
import { StyleModule } from 'style-mod';

if (typeof CSSStyleSheet !== 'undefined' && Array.isArray(document.adoptedStyleSheets)) {
  const adopter = {
    ownerDocument: document,
    get adoptedStyleSheets(): CSSStyleSheet[] {
      return document.adoptedStyleSheets;
    },
    set adoptedStyleSheets(sheets: CSSStyleSheet[]) {
      document.adoptedStyleSheets = sheets;
    },
  };
  const mount = StyleModule.mount.bind(StyleModule);
  StyleModule.mount = (root, modules, options) => mount(root === document ? (adopter as unknown as ShadowRoot) : root, modules, options);
}
