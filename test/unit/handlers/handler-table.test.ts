import { describe, expect, it } from 'vitest';
import { actionKey, actions } from '../../../src/actions/index.js';
import { handlerOf, handlers, handlerTable } from '../../../src/handlers/index.js';
import type { Handler } from '../../../src/handlers/index.js';

const answer: Handler = async () => ({ status: 204 });
const declared = [
  { resource: 'products', name: 'read' },
  { resource: 'products', name: 'create' },
] as const;

describe('handlers: one per declared action, looked up by its key', () => {
  it('every declared action has exactly one handler, and every handler a declared action', () => {
    expect([...handlers.keys()].sort()).toEqual(actions.map(actionKey).sort());
    for (const action of actions) expect(handlerOf(action), actionKey(action)).toBeTypeOf('function');
  });

  it('refuses a declared action without a handler, a handler without a declaration and a key handled twice', () => {
    expect(handlerTable(declared, [{ 'products.read': answer }, { 'products.create': answer }]).size).toBe(2);
    expect(() => handlerTable(declared, [{ 'products.read': answer }])).toThrow('the action products.create has no handler');
    expect(() => handlerTable(declared, [{ 'products.read': answer, 'products.create': answer, 'products.launch': answer }])).toThrow('the handler products.launch has no declared action');
    expect(() => handlerTable(declared, [{ 'products.read': answer, 'products.create': answer }, { 'products.read': answer }])).toThrow('two handlers for the action products.read');
  });

  it('has no handler for an undeclared action', () => {
    expect(() => handlerOf({ resource: 'products', name: 'launch' })).toThrow('the action products.launch has no handler');
  });
});
