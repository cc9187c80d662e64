import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { settings } from '../../../src/config/settings.js';

const configDir = join(import.meta.dirname, '../../../src/config');
const declared = Object.values(settings).map((setting) => setting.env);

/** Every variable `loadConfig` reads from `env`, in the order it reads them. */
function variablesRead(env: Record<string, string>): string[] {
  const read: string[] = [];
  const recording = new Proxy(env, {
    get(target, key, receiver) {
      if (typeof key === 'string') read.push(key);
      return Reflect.get(target, key, receiver) as unknown;
    },
  });
  loadConfig(recording);
  return read;
}

/**
 * Whether a string is the variable of a declaration: `env: '…'` in a declaration object, or
 * the first argument of a kind declared positionally (`integerSetting('PORT', …)`).
 */
function isVariableOfDeclaration(node: ts.Node, source: ts.SourceFile): boolean {
  const { parent } = node;
  if (ts.isPropertyAssignment(parent)) return parent.name.getText(source) === 'env';
  return isPositionalKind(parent, source) && parent.arguments[0] === node;
}

/** Whether a node is a declaration's description: `description: …`, or the last argument of a kind declared positionally. */
function isDescription(node: ts.Node, source: ts.SourceFile): boolean {
  if (ts.isPropertyAssignment(node)) return node.name.getText(source) === 'description';
  const { parent } = node;
  return isPositionalKind(parent, source) && parent.arguments.length > 1 && parent.arguments.at(-1) === node;
}

function isPositionalKind(node: ts.Node, source: ts.SourceFile): node is ts.CallExpression {
  return ts.isCallExpression(node) && /setting$/i.test(node.expression.getText(source));
}

const provider = JSON.stringify([{ id: 'idp', issuer: 'https://idp.example', client_id: 'id', client_secret: 'secret' }]);

describe('every variable the service reads is declared once, and every declaration is read', () => {
  it('loadConfig reads exactly the declared variables (and their `_FILE` forms), with the parsers that read another setting at work', () => {
    // Unset, and set so that every parser that consults another setting does: the TLS pair,
    // the OAuth providers (their http switch) and redirect URIs, the direct database URL.
    const environments: Record<string, string>[] = [
      {},
      { TLS_CERT_FILE: '/cert.pem', TLS_KEY_FILE: '/key.pem', OAUTH_PROVIDERS: provider, OAUTH_REDIRECT_URIS: 'https://app.example/cb', DATABASE_URL: 'postgres://db' },
    ];
    for (const env of environments) {
      const read = new Set(variablesRead(env));
      const allowed = new Set(declared.flatMap((name) => [name, `${name}_FILE`]));
      expect(
        [...read].filter((name) => !allowed.has(name)),
        'read without a declaration',
      ).toEqual([]);
      expect(
        declared.filter((name) => !read.has(name)),
        'declared but never read',
      ).toEqual([]);
    }
  });

  it('each variable is declared once', () => {
    expect(declared.filter((name, index) => declared.indexOf(name) !== index)).toEqual([]);
  });

  it('src/config writes each variable name in one string, its declaration: parsers and messages take it from there', () => {
    const found = new Map<string, string[]>(declared.map((name) => [name, []]));
    const stray: string[] = [];
    for (const file of readdirSync(configDir).filter((name) => name.endsWith('.ts'))) {
      const source = ts.createSourceFile(file, readFileSync(join(configDir, file), 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        // Descriptions are prose for docs/configuration.md: they may mention other settings.
        if (isDescription(node, source)) return;
        if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node)) {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
          const where = `${file}:${line + 1}`;
          const isDeclaration = isVariableOfDeclaration(node, source);
          if (isDeclaration && !found.has(node.text)) stray.push(`${where}: ${node.text} is declared but not in the settings list`);
          for (const name of declared) if (new RegExp(`(?<![A-Za-z0-9_])${name}(?![A-Za-z0-9_])`).test(node.text)) found.get(name)?.push(isDeclaration ? 'declaration' : where);
        }
        ts.forEachChild(node, visit);
      };
      ts.forEachChild(source, visit);
    }
    expect(stray).toEqual([]);
    const elsewhere = [...found].filter(([, places]) => places.length !== 1 || places[0] !== 'declaration');
    expect(Object.fromEntries(elsewhere)).toEqual({});
  });
});
