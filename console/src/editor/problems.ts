/**
 * Problems as you type: the text is parsed locally shortly after each edit
 * (syntax errors underlined at once, and the parsed definition handed on, to
 * redraw the graph), then the API's validate endpoint (the same validator as
 * publishing) is asked once typing pauses; its errors and warnings, at JSON
 * pointers, are underlined where the pointers lead. An answer for text that
 * has changed since is dropped: a later edit supersedes it.
 */
import { setDiagnostics, type Diagnostic } from '@codemirror/lint';
import type { EditorView } from '@codemirror/view';
import { api, ApiError, type Json } from '../api';
import { parseDefinition, type Format, type Parsed, type TextRange } from './definition-text';

/** An error or warning of the validate (or publish) answer: `{path, message}`, or a config warning `{code, name, kind}`. */
export interface Problem {
  path?: string;
  message?: string;
  code?: string;
  name?: string;
  kind?: string;
}

const describe = (problem: Problem): string =>
  problem.message ??
  (problem.code === 'CONFIG_ENTRY_UNRESOLVED'
    ? `No ${problem.kind === 'secret' ? 'secret' : 'variable'} ${problem.name ?? ''} is visible to this workflow yet (it publishes; a run reading it fails).`
    : String(problem.code));

export interface ProblemsOptions {
  /** Where validation is posted: /workflows/definitions/validate, or …/{id}/validate for a new revision. */
  endpoint: string;
  format(): Format;
  /** Extra fields the validation sees (the workflow's key). */
  extra(): Json;
  /** A parse that succeeded (for the graph), after the local delay. */
  onParsed(value: Json): void;
  /** The state the editor is in: `pending` until an answer for the current text arrives. */
  onState(state: 'pending' | 'clean' | 'problems' | 'syntax' | 'unavailable', diagnostics: Diagnostic[], detail?: string): void;
}

/** Local parse after this pause (ms); the API's validation after a longer one. */
export const PARSE_DELAY_MS = 120;
export const VALIDATE_DELAY_MS = 300;

export interface ProblemChecker {
  changed(): void;
  /** Underlines problems from elsewhere (a refused publish), for the current text. */
  show(errors: Problem[], warnings?: Problem[]): void;
  dispose(): void;
}

export function problemChecker(view: () => EditorView, options: ProblemsOptions): ProblemChecker {
  let parseTimer: ReturnType<typeof setTimeout> | undefined;
  let validateTimer: ReturnType<typeof setTimeout> | undefined;
  let generation = 0;
  let lastParse: { doc: unknown; parsed: Parsed } | undefined;

  const parseCurrent = (): Parsed => {
    const doc = view().state.doc;
    if (lastParse?.doc !== doc) lastParse = { doc, parsed: parseDefinition(doc.toString(), options.format()) };
    return lastParse.parsed;
  };

  const publish = (diagnostics: Diagnostic[]) => view().dispatch(setDiagnostics(view().state, diagnostics));

  const toDiagnostics = (parsed: Parsed & { ok: true }, errors: Problem[], warnings: Problem[]): Diagnostic[] => {
    const text = view().state.doc.toString();
    const at = (problem: Problem): TextRange => {
      if (problem.path !== undefined) return parsed.locate(problem.path);
      // A config warning names an entry, not a path: mark where the text reads it.
      const name = problem.name?.replace(/[^A-Za-z0-9_]/g, '');
      const reference = name ? new RegExp(`\\b(?:secrets|vars)\\.${name}\\b`).exec(text) : null;
      return reference ? { from: reference.index, to: reference.index + reference[0].length } : parsed.locate('');
    };
    return [
      ...errors.map((e) => ({ ...at(e), severity: 'error' as const, message: describe(e), source: e.path })),
      ...warnings.map((w) => ({ ...at(w), severity: 'warning' as const, message: describe(w), source: w.path })),
    ];
  };

  const validate = async () => {
    const parsed = parseCurrent();
    if (!parsed.ok) return;
    const mine = ++generation;
    const doc = view().state.doc;
    try {
      const report = await api<{ valid: boolean; errors: Problem[]; warnings: Problem[] }>(options.endpoint, {
        method: 'POST',
        body: { ...parsed.value, ...options.extra() },
      });
      if (mine !== generation || view().state.doc !== doc) return; // a later edit supersedes this answer
      const diagnostics = toDiagnostics(parsed, report.errors ?? [], report.warnings ?? []);
      publish(diagnostics);
      options.onState(report.errors?.length ? 'problems' : 'clean', diagnostics);
    } catch (error) {
      if (mine !== generation || view().state.doc !== doc) return;
      // The endpoint answers 400 for a body it refuses outright (an envelope, a missing name): show those errors too.
      const errors = error instanceof ApiError && Array.isArray(error.body?.errors) ? (error.body.errors as Problem[]) : undefined;
      if (errors) {
        const diagnostics = toDiagnostics(parsed, errors, []);
        publish(diagnostics);
        options.onState('problems', diagnostics);
      } else options.onState('unavailable', [], (error as Error).message);
    }
  };

  return {
    changed() {
      generation += 1; // answers in flight are for older text
      options.onState('pending', []);
      clearTimeout(parseTimer);
      clearTimeout(validateTimer);
      parseTimer = setTimeout(() => {
        const parsed = parseCurrent();
        if (!parsed.ok) {
          const diagnostics = parsed.problems.map((p) => ({ ...p, severity: 'error' as const, message: p.message, source: 'syntax' }));
          publish(diagnostics);
          options.onState('syntax', diagnostics);
          return;
        }
        options.onParsed(parsed.value);
      }, PARSE_DELAY_MS);
      validateTimer = setTimeout(() => void validate(), VALIDATE_DELAY_MS);
    },
    show(errors, warnings = []) {
      const parsed = parseCurrent();
      if (!parsed.ok) return;
      const diagnostics = toDiagnostics(parsed, errors, warnings);
      publish(diagnostics);
      options.onState(errors.length > 0 ? 'problems' : 'clean', diagnostics);
    },
    dispose() {
      generation += 1;
      clearTimeout(parseTimer);
      clearTimeout(validateTimer);
    },
  };
}
