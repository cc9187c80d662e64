/**
 * Writes the TypeScript types of the client library (`packages/client/src/generated/api.ts`)
 * from the service's OpenAPI document: one interface per component schema, and per resource
 * the operations it has, its sort keys, selectable fields and filterable fields, read from
 * the parameters of its list operation. A pure function of the document.
 */

type Json = { [key: string]: unknown };

const operationPattern = /^(list|create|read|update|delete)_([a-z_]+)$/;
const methodOf = { list: 'list', read: 'get', create: 'create', update: 'update', delete: 'delete' } as const;
type OperationName = keyof typeof methodOf;

interface ResourceInfo {
  readonly name: string;
  readonly description: string;
  readonly operations: OperationName[];
  sortKeys: string[];
  fields: string[];
  /** Filterable field → type of its value in a filter. */
  filters: Map<string, string>;
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

function pascal(name: string): string {
  return name
    .split(/[-_]/)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

function camel(name: string): string {
  const p = pascal(name);
  return p.charAt(0).toLowerCase() + p.slice(1);
}

function doc(text: unknown, indent: string): string {
  if (typeof text !== 'string' || text.trim() === '') return '';
  const lines = text.replaceAll('*/', '*\\/').split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((l) => `${indent} * ${l}`.trimEnd()).join('\n')}\n${indent} */\n`;
}

const identifier = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (name: string) => (identifier.test(name) ? name : JSON.stringify(name));

function refName(ref: string): string {
  const match = /^#\/components\/schemas\/(.+)$/.exec(ref);
  if (!match?.[1]) throw new Error(`unsupported $ref ${ref}`);
  return match[1];
}

/** The TypeScript type of a JSON Schema (the subset the service's document uses). */
function tsType(schema: unknown, indent: string): string {
  if (!isObject(schema)) return 'unknown';
  if (typeof schema.$ref === 'string') return refName(schema.$ref);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  if (types.length === 0) return 'unknown';
  const parts = types.map((type) => {
    switch (type) {
      case 'string':
        return 'string';
      case 'integer':
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'array': {
        const item = tsType(schema.items, indent);
        return /^[A-Za-z0-9_]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
      }
      case 'object':
        return isObject(schema.properties) ? objectLiteral(schema, indent) : 'Record<string, unknown>';
      default:
        throw new Error(`unsupported schema type ${String(type)}`);
    }
  });
  return parts.join(' | ');
}

function objectLiteral(schema: Json, indent: string): string {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const inner = `${indent}  `;
  const members = Object.entries(properties).map(([name, property]) => {
    const readOnly = isObject(property) && property.readOnly === true ? 'readonly ' : '';
    return `${doc(isObject(property) ? property.description : undefined, inner)}${inner}${readOnly}${key(name)}${required.has(name) ? '' : '?'}: ${tsType(property, inner)};\n`;
  });
  return `{\n${members.join('')}${indent}}`;
}

function schemaDeclaration(name: string, schema: unknown): string {
  const body =
    isObject(schema) && (schema.type === 'object' || isObject(schema.properties)) && isObject(schema.properties)
      ? `export interface ${name} ${objectLiteral(schema, '')}\n`
      : `export type ${name} = ${tsType(schema, '')};\n`;
  return `${doc(isObject(schema) ? schema.description : undefined, '')}${body}`;
}

function enumOf(parameter: Json): string[] {
  const schema = isObject(parameter.schema) ? parameter.schema : {};
  const items = isObject(schema.items) ? schema.items : {};
  return Array.isArray(items.enum) ? (items.enum as string[]) : [];
}

/** The value type of a field in a filter, from its equality parameter's schema. */
function filterValueType(parameter: Json): string {
  const schema = isObject(parameter.schema) ? parameter.schema : {};
  if (schema.type === 'string' && schema.format === 'date-time') return 'string | Date';
  return tsType({ type: schema.type }, '');
}

/** The resources of the document: tag, operations and list parameters. */
function resourcesOf(document: Json): ResourceInfo[] {
  const byName = new Map<string, ResourceInfo>();
  const tags = Array.isArray(document.tags) ? (document.tags as Json[]) : [];
  const paths = isObject(document.paths) ? document.paths : {};
  for (const item of Object.values(paths)) {
    if (!isObject(item)) continue;
    for (const operation of Object.values(item)) {
      if (!isObject(operation) || typeof operation.operationId !== 'string') continue;
      const match = operationPattern.exec(operation.operationId);
      const tag = Array.isArray(operation.tags) ? String(operation.tags[0]) : '';
      if (!match || tag.replaceAll('-', '_') !== match[2]) continue;
      const resource = byName.get(tag) ?? {
        name: tag,
        description: String(tags.find((t) => t.name === tag)?.description ?? ''),
        operations: [],
        sortKeys: [],
        fields: [],
        filters: new Map<string, string>(),
      };
      byName.set(tag, resource);
      const op = match[1] as OperationName;
      if (!resource.operations.includes(op)) resource.operations.push(op);
      if (op === 'list') readListParameters(resource, operation);
    }
  }
  const order = Object.keys(methodOf);
  return [...byName.values()].map((r) => ({ ...r, operations: r.operations.sort((a, b) => order.indexOf(a) - order.indexOf(b)) })).sort((a, b) => a.name.localeCompare(b.name));
}

/** Sort keys, selectable fields and filters of a collection, from its list operation's query parameters. */
function readListParameters(resource: ResourceInfo, operation: Json): void {
  for (const parameter of Array.isArray(operation.parameters) ? (operation.parameters as Json[]) : []) {
    if (typeof parameter.name !== 'string' || parameter.in !== 'query') continue;
    if (parameter.name === 'sort') resource.sortKeys = enumOf(parameter);
    else if (parameter.name === 'fields') resource.fields = enumOf(parameter);
    else if (!parameter.name.includes('__')) resource.filters.set(parameter.name, filterValueType(parameter));
  }
}

/** The JSON body schema of a request or a 200 answer, printed inline in the operation. */
function bodySchema(holder: unknown): Json | undefined {
  const content = isObject(holder) && isObject(holder.content) ? holder.content['application/json'] : undefined;
  return isObject(content) && isObject(content.schema) ? content.schema : undefined;
}

/**
 * The sub-collections of the document (`/v1/<collection>/{id}/<name>`, e.g. a product's rates
 * and calendar imports): the same types as a resource's, from the schemas their operations
 * print inline. Their clients are built by hand under their parent's; their types are not.
 */
function subCollectionsOf(document: Json): { resource: ResourceInfo; schemas: Json }[] {
  const paths = isObject(document.paths) ? document.paths : {};
  const found: { resource: ResourceInfo; schemas: Json }[] = [];
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item) || !/^\/v1\/[^/]+\/\{[^}]+\}\/[a-z-]+$/.test(path)) continue;
    const list = isObject(item.get) ? item.get : undefined;
    const match = typeof list?.operationId === 'string' ? /^list_([a-z_]+)$/.exec(list.operationId) : null;
    const one = Object.entries(paths).find(([other]) => other.startsWith(`${path}/{`) && /^\{[^}/]+\}$/.test(other.slice(path.length + 1)))?.[1];
    const member = isObject(one) ? one : {};
    // A sub-collection has records of its own to read (a webhook's deliveries are a log, read as a list only).
    if (!list || !match?.[1] || !isObject(member.get)) continue;
    const resource: ResourceInfo = { name: match[1], description: '', operations: [], sortKeys: [], fields: [], filters: new Map() };
    readListParameters(resource, list);
    const base = pascal(resource.name);
    const schemas: Json = {};
    const record = bodySchema(isObject(member.get) && isObject(member.get.responses) ? member.get.responses['200'] : undefined);
    const create = bodySchema(isObject(item.post) ? item.post.requestBody : undefined);
    const update = bodySchema(isObject(member.patch) ? member.patch.requestBody : undefined);
    if (record) schemas[`${base}Record`] = record;
    if (create) schemas[`${base}Create`] = create;
    if (update) schemas[`${base}Update`] = update;
    found.push({ resource, schemas });
  }
  return found.sort((a, b) => a.resource.name.localeCompare(b.resource.name));
}

function union(values: readonly string[]): string {
  return values.length ? values.map((v) => JSON.stringify(v)).join(' | ') : 'never';
}

function resourceTypes(resource: ResourceInfo, schemas: Json): string {
  const base = pascal(resource.name);
  const has = (kind: string) => isObject(schemas[`${base}${kind}`]);
  const filters = [...resource.filters].map(([field, type]) => `    readonly ${key(field)}: ${type};\n`).join('');
  return [
    `/** Types of \`${resource.name}\` for the resource client. */\n`,
    `export interface ${base}Types {\n`,
    `  readonly record: ${base}Record;\n`,
    `  readonly create: ${has('Create') ? `${base}Create` : 'never'};\n`,
    `  readonly update: ${has('Update') ? `${base}Update` : 'never'};\n`,
    `  /** Names \`fields\` may select. */\n`,
    `  readonly field: ${union(resource.fields)};\n`,
    `  /** Keys \`sort\` accepts (\`-\` for descending). */\n`,
    `  readonly sortKey: ${union(resource.sortKeys)};\n`,
    `  /** Fields \`where\` may filter on, with the type of their values. */\n`,
    `  readonly filter: {\n${filters}  };\n`,
    `}\n`,
  ].join('');
}

/** The source of `packages/client/src/generated/api.ts` for an OpenAPI document. */
export function clientTypes(document: unknown): string {
  if (!isObject(document) || !isObject(document.components) || !isObject(document.components.schemas)) throw new Error('not an OpenAPI document with component schemas');
  const schemas = document.components.schemas;
  const info = isObject(document.info) ? document.info : {};
  const resources = resourcesOf(document);
  const out: string[] = [
    `// Generated from the service's OpenAPI document (version ${String(info.version)}) by\n`,
    '// `npm run client:types` (scripts/write-client-types.ts). Do not edit by hand.\n\n',
    "import type { ResourceApi } from '../resource-api.js';\n\n",
    `/** Version of the API contract these types describe. */\nexport const apiVersion = ${JSON.stringify(String(info.version))};\n\n`,
  ];
  for (const [name, schema] of Object.entries(schemas)) out.push(schemaDeclaration(name, schema), '\n');
  for (const resource of resources) out.push(resourceTypes(resource, schemas), '\n');
  for (const { resource, schemas: inline } of subCollectionsOf(document)) {
    for (const [name, schema] of Object.entries(inline)) out.push(schemaDeclaration(name, schema), '\n');
    out.push(resourceTypes(resource, inline), '\n');
  }
  out.push('/** One client per resource, with the operations the resource has. */\nexport interface ResourceClients {\n');
  for (const resource of resources) {
    const methods = resource.operations.flatMap((op) => (op === 'update' ? ['update', 'updateWithRetry'] : [methodOf[op]]));
    out.push(doc(`\`/v1/${resource.name}\`: ${resource.description}`, '  '), `  readonly ${camel(resource.name)}: ResourceApi<${pascal(resource.name)}Types, ${union(methods)}>;\n`);
  }
  out.push('}\n\n');
  out.push('/** Property name, path segment and methods of every resource client. */\nexport const resourceCatalogue = [\n');
  for (const resource of resources) {
    const methods = resource.operations.flatMap((op) => (op === 'update' ? ['update', 'updateWithRetry'] : [methodOf[op]]));
    out.push(`  { property: ${JSON.stringify(camel(resource.name))}, path: ${JSON.stringify(resource.name)}, methods: [${methods.map((m) => JSON.stringify(m)).join(', ')}] },\n`);
  }
  out.push('] as const;\n');
  return out.join('');
}
