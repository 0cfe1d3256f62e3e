/**
 * Renames the test fixtures to the one naming every folder uses (test/support's
 * header says it): `env` for the environment a file runs against (the app, the
 * database, Temporal) and `org` for the organization a test acts as (its id, its
 * caller's token and request helpers). Re-runnable on any test file still written
 * the old way, before or after the support files changed:
 *
 *   const { x, c } = useExecEnv(...)   ->  const { env, org } = useExecEnv(...)
 *   x.env.client / x.t / c.org / c.auth ->  env.temporal.client / env.t / org.id / org.auth
 *   const { ctx, org } = useAdminApp()  ->  const { env, org } = useAdminApp()
 *   ui.x.t / ui.c.org (useConsole)      ->  ui.env.t / ui.org.id
 *   env.x.db (useAuditEnv)              ->  env.db
 *   let c: WfContext; c = await wfContext(...); c.t / c.org / c.auth
 *                                       ->  let env: WfEnv; let org: WfOrg; ({ env, org } = await wfContext(...)); env.t / org.id / org.auth
 *   c: EngineAuthz (c.t, c.db, c.org, c.as) -> env.t, env.db, org.id, org.as
 *
 * References are found through the type checker (a shadowing `c` in a callback is
 * left alone). A file that already declares its own `env` or `org` is reported and
 * left for a hand edit. Usage: npx tsx scripts/dev/rename-test-fixtures.ts [files...]
 * (default: every .ts file under test/). Prints what it changed; run typecheck after.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

interface Spec {
  /** The new name of the variable (or of the property, when nested). '' drops the level (`env.x.db` -> `env.db`). */
  rename?: string;
  /** Replaces the whole chain up to here (for a fixture split in two: `c.t` -> `env.t`). */
  text?: string;
  props?: Record<string, Spec>;
  /** The fixture is split: a bare use has no one replacement and is reported. */
  split?: boolean;
}

const EXEC_ENV: Spec = { rename: 'env', props: { env: { rename: 'temporal' } } };
const ORG_CONTEXT: Spec = { rename: 'org', props: { org: { rename: 'id' } } };
const ADMIN_ENV: Spec = { rename: 'env' };
const CONSOLE_ENV: Spec = { props: { x: EXEC_ENV, c: ORG_CONTEXT } };
const AUDIT_ENV: Spec = { props: { x: { rename: '', props: { env: { rename: 'temporal' } } } } };
const splitOf = (envProps: string[], orgProps: Record<string, string>): Spec => ({
  split: true,
  props: Object.fromEntries<Spec>([
    ...envProps.map((p): [string, Spec] => [p, { text: `env.${p}` }]),
    ...Object.entries(orgProps).map(([p, to]): [string, Spec] => [p, { text: `org.${to}` }]),
  ]),
});
const WF_CONTEXT = splitOf(['t', 'db'], { org: 'id', userId: 'userId', token: 'token', auth: 'auth', other: 'other' });
const ENGINE_AUTHZ = splitOf(['t', 'db'], { org: 'id', as: 'as' });

/** `const { <name> } = <call>(...)`: the spec of each destructured name. */
const DESTRUCTURED: Record<string, Record<string, Spec>> = {
  useExecEnv: { x: EXEC_ENV, c: ORG_CONTEXT },
  useAdminApp: { ctx: ADMIN_ENV },
  useAuditEnv: { env: AUDIT_ENV },
  /** `const { x, c } = ui` after `const ui = useConsole()`. */
  ui: { x: EXEC_ENV, c: ORG_CONTEXT },
};
/** `const <name> = [await] <call>(...)`. */
const ASSIGNED: Record<string, Record<string, Spec>> = {
  useConsole: { ui: CONSOLE_ENV },
  adminTestApp: { ctx: ADMIN_ENV },
  startExecEnv: { x: EXEC_ENV },
  orgContext: { c: ORG_CONTEXT },
  wfContext: { c: WF_CONTEXT },
  engineAuthz: { c: ENGINE_AUTHZ },
};
/** `<name>: <Type>` (parameters, `let` declarations). */
const TYPED: Record<string, Record<string, Spec>> = {
  ExecEnv: { x: EXEC_ENV },
  OrgContext: { c: ORG_CONTEXT },
  AdminTestContext: { ctx: ADMIN_ENV },
  AdminEnv: { ctx: ADMIN_ENV },
  ConsoleEnv: { ui: CONSOLE_ENV },
  AuditEnv: { env: AUDIT_ENV },
  WfContext: { c: WF_CONTEXT },
  EngineAuthz: { c: ENGINE_AUTHZ },
};
/** The type names a split fixture's declarations take. */
const SPLIT_TYPES: Record<string, [string, string]> = { WfContext: ['WfEnv', 'WfOrg'], EngineAuthz: ['EngineEnv', 'EngineOrg'] };

/** Renamed fields, by the type they are read on: `org.org` -> `org.id`, `env.env` -> `env.temporal`. */
const FIELDS: Record<string, Record<string, string>> = {
  org: { OrgContext: 'id', AuditOrg: 'id' },
  env: { ExecEnv: 'temporal', AuditEnv: 'temporal' },
};

/** The fixture types' new names, in imports and type positions. */
const TYPE_NAMES: Array<[RegExp, string]> = [
  [/\btype WfContext\b/g, 'type WfEnv, type WfOrg'],
  [/\btype EngineAuthz\b/g, 'type EngineEnv, type EngineOrg'],
  [/\bEngineAuthz\['as'\]/g, "EngineOrg['as']"],
  [/\bAdminTestContext\b/g, 'AdminEnv'],
];

interface Edit {
  start: number;
  end: number;
  text: string;
}

const root = process.cwd();
const config = ts.getParsedCommandLineOfConfigFile(
  path.join(root, 'tsconfig.json'),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  },
)!;
const args = process.argv.slice(2).map((f) => path.resolve(f));
const targets = new Set(args.length > 0 ? args : config.fileNames.filter((f) => path.relative(root, f).startsWith(`test${path.sep}`)));
const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
const checker = program.getTypeChecker();

/** The name of the function an initializer calls (`await f(...)`), or of the variable it reads (`= ui`). */
const calleeName = (expr: ts.Expression | undefined): string | undefined => {
  let e = expr;
  while (e && (ts.isAwaitExpression(e) || ts.isParenthesizedExpression(e))) e = e.expression;
  if (e && ts.isIdentifier(e)) return e.text;
  return e && ts.isCallExpression(e) && ts.isIdentifier(e.expression) ? e.expression.text : undefined;
};
const typeName = (node: ts.TypeNode | undefined): string | undefined => {
  if (!node) return undefined;
  if (ts.isUnionTypeNode(node)) return node.types.map(typeName).find(Boolean);
  return ts.isTypeReferenceNode(node) && ts.isIdentifier(node.typeName) ? node.typeName.text : undefined;
};

/** The block a declaration is visible in. */
function scopeOf(declaration: ts.Node): ts.Node {
  let node = declaration.parent;
  if (ts.isParameter(declaration)) return node;
  while (!ts.isBlock(node) && !ts.isSourceFile(node) && !ts.isForStatement(node) && !ts.isForOfStatement(node) && !ts.isFunctionLike(node))
    node = node.parent;
  return node;
}
const within = (node: ts.Node, scope: ts.Node): boolean => node.pos >= scope.pos && node.end <= scope.end;

let changed = 0;
for (const sf of program.getSourceFiles()) {
  if (!targets.has(path.resolve(sf.fileName))) continue;
  const edits: Edit[] = [];
  const problems: string[] = [];
  const tracked = new Map<ts.Symbol, Spec>();
  const declNames = new Set<ts.Node>();
  const where = (node: ts.Node) => `${path.relative(root, sf.fileName)}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`;
  const track = (name: ts.Identifier, spec: Spec) => {
    const symbol = checker.getSymbolAtLocation(name);
    if (!symbol) return problems.push(`${where(name)}: no symbol for ${name.text}`);
    tracked.set(symbol, spec);
    declNames.add(name);
  };

  // 1. Declarations of the fixtures.
  const declare = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isObjectBindingPattern(node.name)) {
      const specs = DESTRUCTURED[calleeName(node.initializer) ?? ''];
      for (const element of specs ? node.name.elements : []) {
        if (!specs) break;
        const key = (element.propertyName ?? element.name).getText(sf);
        const spec = specs[key];
        if (ts.isIdentifier(element.name)) declNames.add(element.name);
        if (!spec || !ts.isIdentifier(element.name)) continue;
        track(element.name, spec);
        if (spec.rename !== undefined && spec.rename !== key && !element.propertyName)
          edits.push({ start: element.name.getStart(sf), end: element.name.end, text: spec.rename });
      }
    }
    if ((ts.isVariableDeclaration(node) || ts.isParameter(node)) && ts.isIdentifier(node.name)) {
      const name = node.name.text;
      const byType = TYPED[typeName(node.type) ?? '']?.[name];
      const byCall = ts.isVariableDeclaration(node) ? ASSIGNED[calleeName(node.initializer) ?? '']?.[name] : undefined;
      const spec = byType ?? byCall;
      if (spec) {
        track(node.name, spec);
        if (spec.split) {
          const splitTypes = SPLIT_TYPES[typeName(node.type) ?? ''];
          if (ts.isVariableDeclaration(node) && !node.type && node.initializer)
            edits.push({ start: node.name.getStart(sf), end: node.name.end, text: '{ env, org }' });
          else if (
            ts.isVariableDeclaration(node) &&
            splitTypes &&
            !node.initializer &&
            ts.isVariableDeclarationList(node.parent) &&
            node.parent.declarations.length === 1
          ) {
            const statement = node.parent.parent;
            edits.push({
              start: statement.getStart(sf),
              end: statement.end,
              text: `let env: ${splitTypes[0]};\n  let org: ${splitTypes[1]};`,
            });
          } else if (ts.isParameter(node) && splitTypes)
            edits.push({ start: node.getStart(sf), end: node.end, text: `env: ${splitTypes[0]}, org: ${splitTypes[1]}` });
          else problems.push(`${where(node)}: split fixture ${name} declared in a shape the script does not know`);
        } else if (spec.rename !== undefined && spec.rename !== name) {
          edits.push({ start: node.name.getStart(sf), end: node.name.end, text: spec.rename });
        }
      }
    }
    ts.forEachChild(node, declare);
  };
  declare(sf);

  // 2. Their uses: `c = await wfContext()` assignments, property chains, bare uses.
  const renamedTo = new Map<ts.Identifier, string>();
  const fieldEdits: Edit[] = [];
  const use = (node: ts.Node): void => {
    // A renamed field read through any path (`s.org.org`, `scenario.env.x.env`): by the type it is read on.
    if (ts.isPropertyAccessExpression(node) && FIELDS[node.name.text]) {
      const on = checker.getTypeAtLocation(node.expression);
      const typeName = (on.aliasSymbol ?? on.getSymbol())?.name;
      const to = typeName && FIELDS[node.name.text][typeName];
      if (to && !edits.some((e) => e.start <= node.name.getStart(sf) && e.end >= node.name.end))
        fieldEdits.push({ start: node.name.getStart(sf), end: node.name.end, text: to });
    }
    if (ts.isIdentifier(node) && !declNames.has(node)) {
      const parent = node.parent;
      const symbol = ts.isShorthandPropertyAssignment(parent)
        ? checker.getShorthandAssignmentValueSymbol(parent)
        : checker.getSymbolAtLocation(node);
      const spec = symbol && tracked.get(symbol);
      if (spec) rewriteUse(node, spec);
    }
    ts.forEachChild(node, use);
  };
  const rewriteUse = (id: ts.Identifier, spec: Spec) => {
    const parent = id.parent;
    // `c = await wfContext(...)` where c is split: destructure into both.
    if (spec.split && ts.isBinaryExpression(parent) && parent.left === id && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      if (ts.isExpressionStatement(parent.parent))
        edits.push({ start: parent.getStart(sf), end: parent.end, text: `({ env, org } = ${parent.right.getText(sf)})` });
      else problems.push(`${where(id)}: assignment to split fixture ${id.text} inside an expression`);
      return;
    }
    let text = spec.rename ?? id.text;
    let end = id.end;
    let current: ts.Node = id;
    let level = spec;
    let mapped = false;
    while (ts.isPropertyAccessExpression(current.parent) && current.parent.expression === current) {
      const access: ts.PropertyAccessExpression = current.parent;
      const child = level.props?.[access.name.text];
      if (!child) break;
      if (child.text !== undefined) text = child.text;
      else if (child.rename !== '') text = `${text}.${child.rename ?? access.name.text}`;
      end = access.name.end;
      current = access;
      level = child;
      mapped = true;
    }
    // A split fixture passed whole becomes both halves (the callee's parameter is split the same way).
    if (spec.split && !mapped && ts.isCallExpression(parent) && parent.arguments.includes(id)) text = 'env, org';
    else if (spec.split && !mapped) return void problems.push(`${where(id)}: bare use of split fixture ${id.text}`);
    renamedTo.set(id, /^\w+/.exec(text)![0]);
    if (ts.isShorthandPropertyAssignment(parent)) text = `${id.text}: ${text}`;
    if (text !== sf.text.slice(id.getStart(sf), end)) edits.push({ start: id.getStart(sf), end, text });
  };
  use(sf);
  // Field edits the chain rewrites did not already cover.
  for (const edit of fieldEdits) if (!edits.some((e) => e.start <= edit.start && e.end >= edit.end)) edits.push(edit);

  // 3. Collisions. (a) A renamed use where another `env`/`org` is in scope (an inner one would win).
  for (const [id, name] of renamedTo) {
    if (checker.getSymbolsInScope(id, ts.SymbolFlags.Value).some((s) => s.name === name && !tracked.has(s)))
      problems.push(`${where(id)}: another \`${name}\` is in scope here; rename it by hand first`);
  }
  // (b) A use of an outer `env`/`org` that a renamed declaration would now shadow.
  const newNames = [...tracked.entries()].flatMap(([symbol, spec]) =>
    (symbol.declarations ?? []).flatMap((d) => {
      const names = spec.split ? ['env', 'org'] : spec.rename ? [spec.rename] : [];
      return names.map((name) => ({ name, scope: scopeOf(d) }));
    }),
  );
  const captured = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && (node.text === 'env' || node.text === 'org')) {
      const declaration = checker.getSymbolAtLocation(node)?.valueDeclaration;
      const variable =
        declaration && (ts.isVariableDeclaration(declaration) || ts.isParameter(declaration) || ts.isBindingElement(declaration));
      if (variable && newNames.some(({ name, scope }) => name === node.text && within(node, scope) && !within(declaration, scope)))
        problems.push(`${where(node)}: this \`${node.text}\` would be shadowed by the renamed fixture; rename it by hand first`);
    }
    ts.forEachChild(node, captured);
  };
  captured(sf);
  if (problems.length > 0) {
    console.log(`SKIPPED ${path.relative(root, sf.fileName)}:\n  ${problems.join('\n  ')}`);
    continue;
  }
  edits.sort((a, b) => b.start - a.start);
  let out = sf.text;
  for (const edit of edits) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  for (const [pattern, to] of TYPE_NAMES) out = out.replace(pattern, to);
  if (out === sf.text) continue;
  writeFileSync(sf.fileName, out);
  changed++;
  console.log(`renamed ${path.relative(root, sf.fileName)} (${edits.length} edits)`);
}
console.log(`${changed} files changed`);
