/**
 * The CodeMirror 6 set-up the editor and the diff share: line numbers, history,
 * bracket matching, syntax highlighting for YAML or JSON, and (when editing)
 * completion, lint underlines and a save key. CodeMirror adds its styles as
 * constructed style sheets (adoptedStyleSheets), which the console's policy
 * (`style-src 'self'`) allows; nothing is inlined.
 */
import './adopted-styles';
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap, type CompletionSource } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { json } from '@codemirror/lang-json';
import { yaml } from '@codemirror/lang-yaml';
import { bracketMatching, defaultHighlightStyle, indentOnInput, indentUnit, syntaxHighlighting } from '@codemirror/language';
import { lintGutter } from '@codemirror/lint';
import { Compartment, EditorState, type Extension } from '@codemirror/state';
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import type { Format } from './definition-text';

export const languageOf = (format: Format): Extension => (format === 'json' ? json() : yaml());

/** Read-only highlighting (the diff). */
export function readOnlyExtensions(format: Format): Extension[] {
  return [
    lineNumbers(),
    highlightSpecialChars(),
    syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
    languageOf(format),
    EditorState.readOnly.of(true),
    EditorView.editable.of(false),
  ];
}

export interface EditingOptions {
  format: Format;
  completion: CompletionSource;
  onChange(): void;
  onSave(): void;
}

export interface CodeEditor {
  view: EditorView;
  setFormat(format: Format, text: string): void;
}

export function codeEditor(parent: HTMLElement, text: string, options: EditingOptions): CodeEditor {
  const language = new Compartment();
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: text,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightSpecialChars(),
        history(),
        drawSelection(),
        indentOnInput(),
        indentUnit.of('  '),
        EditorState.tabSize.of(2),
        bracketMatching(),
        closeBrackets(),
        highlightActiveLine(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        language.of(languageOf(options.format)),
        autocompletion({ override: [options.completion], activateOnTyping: true }),
        lintGutter(),
        keymap.of([
          { key: 'Mod-s', preventDefault: true, run: () => (options.onSave(), true) },
          ...closeBracketsKeymap,
          ...defaultKeymap,
          ...historyKeymap,
          ...completionKeymap,
          indentWithTab,
        ]),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) options.onChange();
        }),
        EditorView.contentAttributes.of({ 'aria-label': 'Workflow definition', 'data-editor': 'definition' }),
      ],
    }),
  });
  return {
    view,
    setFormat(format, next) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: next }, effects: language.reconfigure(languageOf(format)) });
    },
  };
}
