import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * Every regular expression of the server's source, found with the TypeScript compiler API
 * (docs/security.md, "Regular expressions"): regex literals, and `new RegExp(...)` / `RegExp(...)`
 * whose pattern is a string literal, a template without substitutions, or a template whose
 * substitutions are `const`s of the same file holding string literals (media-keys.ts builds one
 * so). Any other pattern is `dynamic`: built at run time, it cannot be checked here.
 */
export interface FoundRegex {
  /** Path from the repository's root, `/`-separated. */
  file: string;
  line: number;
  /** The pattern (regex source), or the constructor's argument as written when dynamic. */
  source: string;
  flags: string;
  dynamic: boolean;
}

/** `src/**\/*.ts` without unit specs (test code: it never runs on a request). */
export function serverSourceFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) out.push(path);
    }
  };
  walk(join(root, 'src'));
  return out.sort();
}

export function regexesOfFile(file: string, text: string): FoundRegex[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const constants = new Map<string, string>();
  const found: FoundRegex[] = [];
  const lineOf = (node: ts.Node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;

  const collectConstants = (node: ts.Node) => {
    if (
      ts.isVariableDeclarationList(node) &&
      node.flags & ts.NodeFlags.Const &&
      node.declarations.every((d) => ts.isIdentifier(d.name))
    ) {
      for (const d of node.declarations) {
        if (d.initializer && ts.isStringLiteralLike(d.initializer))
          constants.set((d.name as ts.Identifier).text, d.initializer.text);
      }
    }
    ts.forEachChild(node, collectConstants);
  };
  collectConstants(sf);

  const staticString = (node: ts.Expression): string | null => {
    if (ts.isStringLiteralLike(node)) return node.text;
    if (ts.isIdentifier(node)) return constants.get(node.text) ?? null;
    if (ts.isTemplateExpression(node)) {
      let out = node.head.text;
      for (const span of node.templateSpans) {
        const value = staticString(span.expression);
        if (value === null) return null;
        out += value + span.literal.text;
      }
      return out;
    }
    return null;
  };

  const visit = (node: ts.Node) => {
    if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
      const literal = node.getText(sf);
      const end = literal.lastIndexOf('/');
      found.push({
        file,
        line: lineOf(node),
        source: literal.slice(1, end),
        flags: literal.slice(end + 1),
        dynamic: false,
      });
    } else if (
      (ts.isNewExpression(node) || ts.isCallExpression(node)) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'RegExp' &&
      node.arguments?.length
    ) {
      const [pattern, flags] = node.arguments;
      const source = staticString(pattern);
      const flagText = flags === undefined ? '' : staticString(flags);
      if (source !== null && flagText !== null)
        found.push({ file, line: lineOf(node), source, flags: flagText, dynamic: false });
      else
        found.push({
          file,
          line: lineOf(node),
          source: pattern.getText(sf).replace(/\s+/g, ' '),
          flags: '',
          dynamic: true,
        });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

export function serverRegexes(root: string): FoundRegex[] {
  return serverSourceFiles(root).flatMap((path) =>
    regexesOfFile(relative(root, path).split('\\').join('/'), readFileSync(path, 'utf8')),
  );
}
