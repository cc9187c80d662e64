import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { OpenApiDocument } from '../../../src/routes/openapi-document.js';
import type { Harness } from '../../support/harness.js';

/** The document as the service serves it. */
export async function fetchDocument(h: Harness): Promise<OpenApiDocument> {
  const res = await h.request({ method: 'GET', url: '/v1/openapi.json' });
  if (res.statusCode !== 200) throw new Error(`openapi.json answered ${res.statusCode}`);
  return res.json() as OpenApiDocument;
}

/**
 * Validators of the document's component schemas, with standard formats checked. The
 * document's own extensions (`x-gdpr`, `x-sensitive`, ...) are annotations, not keywords.
 */
export function schemaValidators(doc: OpenApiDocument): (name: string) => ValidateFunction {
  const ajv = new Ajv2020({ allErrors: true, strict: false, logger: false });
  // ajv-formats is CommonJS: under NodeNext its default import is the module object.
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'https://booking.example/openapi.json', components: doc.components });
  return (name) => {
    const validate = ajv.getSchema(`https://booking.example/openapi.json#/components/schemas/${name}`);
    if (!validate) throw new Error(`no schema ${name}`);
    return validate;
  };
}

/** Asserts `value` matches the named schema, with ajv's errors as the message. */
export function expectSchema(validators: (name: string) => ValidateFunction, name: string, value: unknown): void {
  const validate = validators(name);
  if (!validate(value)) throw new Error(`${name}: ${JSON.stringify(validate.errors, null, 2)}\nvalue: ${JSON.stringify(value)}`);
}
