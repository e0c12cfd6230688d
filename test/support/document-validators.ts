import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { createHash } from 'node:crypto';

/**
 * Response schemas of one OpenAPI document compiled with ajv (formats on, undocumented fields
 * refused), each once: the contract client and the response check of the same document share
 * them, found by the document's content.
 */
export class DocumentValidators {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(doc: object) {
    addFormats(this.ajv);
    this.ajv.addSchema(closed(structuredClone(doc)) as object, 'openapi.json');
  }

  /** The validator of one documented response body (`paths.<path>.<method>.responses.<status>.content.<type>.schema`). */
  response(path: string, method: string, status: string, type: string): ValidateFunction {
    const key = `${method} ${path} ${status} ${type}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      const pointer = ['paths', path, method, 'responses', status, 'content', type, 'schema']
        .map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1'))
        .join('/');
      validate = this.ajv.compile({ $ref: `openapi.json#/${pointer}` });
      this.compiled.set(key, validate);
    }
    return validate;
  }

  errorsText(errors: ErrorObject[] | null | undefined): string {
    return this.ajv.errorsText(errors);
  }
}

const byContent = new Map<string, DocumentValidators>();

/** The validators of `doc`, made once per document content (`text`: its JSON when already at hand). */
export function validatorsOf(doc: object, text = JSON.stringify(doc)): DocumentValidators {
  const key = createHash('sha1').update(text).digest('hex');
  let validators = byContent.get(key);
  if (!validators) {
    validators = new DocumentValidators(doc);
    byContent.set(key, validators);
  }
  return validators;
}

/**
 * The document with every object schema that lists its properties closed to others: a field
 * the server sends and the document leaves out fails the check, like a field it omits.
 */
function closed(node: unknown): unknown {
  if (Array.isArray(node)) node.forEach(closed);
  else if (node && typeof node === 'object') {
    const schema = node as Record<string, unknown>;
    if (schema.properties && schema.additionalProperties === undefined && !schema.allOf) {
      schema.additionalProperties = false;
    }
    Object.values(schema).forEach(closed);
  }
  return node;
}
