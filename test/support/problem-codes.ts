/**
 * Every error code the API's problem+json routes can answer with, read from the source
 * by the TypeScript checker: each `new HttpError(status, code, …)` and each call of a
 * function that passes one of its parameters on as the code (`notFound(message, code =
 * 'not_found')`, an area's own wrapper), followed to a fixed point. A code argument is a
 * string literal, a constant, or a union of literals (`'not-found' | 'no-revision'`);
 * anything the checker cannot narrow to literals is reported as unresolved, so a new
 * kind of call site fails the test that uses this instead of slipping past it.
 *
 * The administration area and the config routes answer in their own dialects (no
 * `type` URI below 500), so their files are left out; their 5xx codes come from the
 * shared factories, which are scanned.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(__dirname, '../..');

export interface ProblemCodes {
  codes: Set<string>;
  /** `file:line: text` of code arguments that are not literals. */
  unresolved: string[];
}

/** The files whose errors render as problem details: the API minus administration, operations and config entries. */
function problemSourceFiles(program: ts.Program): ts.SourceFile[] {
  return program.getSourceFiles().filter((file) => {
    const relative = path.relative(root, file.fileName);
    return (
      relative.startsWith('api/') &&
      !relative.startsWith('api/admin/') &&
      !relative.startsWith('api/ops/') &&
      !relative.startsWith('api/workflows/config-')
    );
  });
}

export function problemCodes(): ProblemCodes {
  const sources = readdirSync(path.join(root, 'api'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => path.join(root, 'api', name));
  const program = ts.createProgram(sources, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    strict: true,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    skipLibCheck: true,
    noEmit: true,
  });
  const checker = program.getTypeChecker();
  const files = problemSourceFiles(program);
  const httpError = files.find((file) => file.fileName.endsWith('api/http/errors.ts'));
  if (!httpError) throw new Error('api/http/errors.ts not found');
  const httpErrorClass = httpError.statements.find(
    (s): s is ts.ClassDeclaration => ts.isClassDeclaration(s) && s.name?.text === 'HttpError',
  );
  if (!httpErrorClass?.name) throw new Error('class HttpError not found');

  // A function (by its declaration) → the index of the parameter that becomes the error's code.
  const factories = new Map<ts.Node, number>([[httpErrorClass, 1]]);
  const codes = new Set<string>();
  const unresolved = new Map<string, string>();

  const declarationOf = (callee: ts.Expression): ts.Node | undefined => {
    let symbol = checker.getSymbolAtLocation(callee);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const declaration = symbol?.valueDeclaration ?? symbol?.declarations?.[0];
    if (!declaration) return undefined;
    if (ts.isVariableDeclaration(declaration) && declaration.initializer) return declaration.initializer;
    return declaration;
  };
  const literalsOf = (type: ts.Type): string[] | undefined => {
    const parts = type.isUnion() ? type.types : [type];
    return parts.every((part) => part.isStringLiteral()) ? parts.map((part) => part.value) : undefined;
  };
  /** The function whose parameter `expression` names, and that parameter's index, if it does. */
  const parameterOf = (expression: ts.Expression): [ts.Node, number] | undefined => {
    if (!ts.isIdentifier(expression)) return undefined;
    const declaration = checker.getSymbolAtLocation(expression)?.valueDeclaration;
    if (!declaration || !ts.isParameter(declaration)) return undefined;
    const owner = declaration.parent;
    return [owner, owner.parameters.indexOf(declaration)];
  };

  let grew = true;
  while (grew) {
    grew = false;
    for (const file of files) {
      const visit = (node: ts.Node): void => {
        if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && node.arguments !== undefined) {
          const factory = declarationOf(node.expression);
          const index = factory === undefined ? undefined : factories.get(factory);
          if (factory !== undefined && index !== undefined) {
            const argument = node.arguments[index];
            let values: string[] | undefined;
            if (argument === undefined) {
              const parameter = (factory as ts.SignatureDeclaration).parameters?.[index];
              values = parameter?.initializer ? literalsOf(checker.getTypeAtLocation(parameter.initializer)) : undefined;
            } else {
              values = literalsOf(checker.getTypeAtLocation(argument));
            }
            const where = `${path.relative(root, file.fileName)}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
            if (values) {
              for (const value of values) codes.add(value);
              unresolved.delete(where);
            } else {
              const forwarded = argument === undefined ? undefined : parameterOf(argument);
              if (forwarded && !factories.has(forwarded[0])) {
                factories.set(forwarded[0], forwarded[1]);
                grew = true;
              } else if (!forwarded) {
                unresolved.set(where, node.getText(file).split('\n')[0]);
              }
            }
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(file);
    }
  }
  // Koa's own client errors (413, 415, …) become `bad_request` in the error handler: a literal it constructs, scanned above.
  return { codes, unresolved: [...unresolved].map(([where, text]) => `${where}: ${text}`) };
}
