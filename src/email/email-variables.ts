import { Injectable } from '@nestjs/common';
import Ajv, { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { FieldError, ValidationProblem } from '../common/errors/problems';
import type { EmailTemplateType } from './template-types';

/**
 * Checks a send's `data` against its template type's JSON Schema (ajv): a missing or mistyped
 * variable is a 400 naming it (`data.code`), before anything is recorded or sent.
 */
@Injectable()
export class EmailVariables {
  private readonly ajv = new Ajv({ allErrors: true, strict: false });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor() {
    addFormats(this.ajv);
  }

  check(type: EmailTemplateType, data: Record<string, unknown>): Record<string, unknown> {
    let validate = this.compiled.get(type.type);
    if (!validate) {
      validate = this.ajv.compile(type.variables);
      this.compiled.set(type.type, validate);
    }
    if (!validate(data)) throw new ValidationProblem((validate.errors ?? []).map(toFieldError));
    return data;
  }
}

function toFieldError(e: ErrorObject): FieldError {
  const base = ['data', ...e.instancePath.split('/').filter(Boolean)].join('.');
  switch (e.keyword) {
    case 'required':
      return { path: `${base}.${String(e.params.missingProperty)}`, message: 'is required by the template type' };
    case 'additionalProperties':
      return {
        path: `${base}.${String(e.params.additionalProperty)}`,
        message: 'is not a variable of the template type',
      };
    default:
      return { path: base, message: e.message ?? 'is invalid' };
  }
}
