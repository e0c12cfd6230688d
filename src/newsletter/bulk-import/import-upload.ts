import busboy from 'busboy';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  BadRequestProblem,
  PayloadTooLargeProblem,
  Problem,
  UnsupportedMediaTypeProblem,
  ValidationProblem,
} from '../../common/errors/problems';

/** An import's upload, spooled to a temporary file (the caller removes it). */
export interface SpooledImport {
  path: string;
  size: number;
  mimeType: string;
  fileName: string;
  fields: Record<string, string>;
}

const MAX_FIELDS = 10;
const MAX_FIELD_BYTES = 16 * 1024;
const malformed = () => new BadRequestProblem('malformed_multipart', 'The multipart/form-data body could not be read');

/**
 * Streams an import's multipart form to disk (never the whole file in memory): one `file` part
 * and a few text fields, with the size limit enforced while reading. The file is parsed from
 * disk once every field is known, whatever their order in the form.
 */
export function spoolImport(req: IncomingMessage, maxBytes: number): Promise<SpooledImport> {
  if (!/^multipart\/form-data\s*;/i.test(req.headers['content-type'] ?? ''))
    return Promise.reject(new UnsupportedMediaTypeProblem('Imports take multipart/form-data with a "file" part'));
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      defParamCharset: 'utf8',
      limits: { fileSize: maxBytes, files: 1, fields: MAX_FIELDS, fieldSize: MAX_FIELD_BYTES, parts: MAX_FIELDS + 1 },
    });
  } catch {
    return Promise.reject(malformed());
  }
  const fields: Record<string, string> = {};
  const path = join(tmpdir(), `sitebase-import-${randomUUID()}`);
  let file: { mimeType: string; fileName: string; written: Promise<number> } | undefined;
  let problem: Problem | undefined;
  const fail = (p: Problem) => (problem ??= p);

  return new Promise<SpooledImport>((resolve, reject) => {
    let finished = false;
    const finish = async () => {
      if (finished) return;
      finished = true;
      req.unpipe(parser);
      const size = await file?.written.catch(() => 0);
      if (!problem && !file) fail(new ValidationProblem([{ path: 'file', message: 'is required' }]));
      if (problem) {
        await rm(path, { force: true });
        req.resume();
        return reject(problem);
      }
      resolve({ path, size: size ?? 0, mimeType: file!.mimeType, fileName: file!.fileName, fields });
    };
    parser.on('file', (rawName, stream, info) => {
      const name = rawName ?? '';
      if (name !== 'file' || file) {
        fail(
          new ValidationProblem([
            { path: name, message: name === 'file' ? 'is given more than once' : 'is not a file field' },
          ]),
        );
        stream.resume();
        return;
      }
      const out = createWriteStream(path, { flags: 'wx', mode: 0o600 });
      stream.on('limit', () => fail(new PayloadTooLargeProblem(`An import file may be at most ${maxBytes} bytes`)));
      file = {
        mimeType: info.mimeType,
        fileName: info.filename ?? '',
        written: pipeline(stream, out).then(
          () => out.bytesWritten,
          (err: unknown) => {
            fail(malformed());
            throw err;
          },
        ),
      };
    });
    parser.on('field', (rawName, value, info) => {
      // busboy gives a part with `name=""` an undefined name: its error item's path is `""`.
      const name = rawName ?? '';
      if (name === '') fail(new ValidationProblem([{ path: name, message: 'is a form field without a name' }]));
      else if (name === 'file') fail(new ValidationProblem([{ path: name, message: 'must be a file' }]));
      else if (info.valueTruncated) fail(new ValidationProblem([{ path: name, message: 'is too long' }]));
      else if (Object.hasOwn(fields, name))
        fail(new ValidationProblem([{ path: name, message: 'is given more than once' }]));
      else fields[name] = value;
    });
    parser.on('fieldsLimit', () => fail(new BadRequestProblem('too_many_parts', 'The form has too many fields')));
    parser.on('partsLimit', () => fail(new BadRequestProblem('too_many_parts', 'The form has too many parts')));
    parser.on('filesLimit', () => fail(new ValidationProblem([{ path: 'file', message: 'only one file per import' }])));
    parser.on('error', () => {
      fail(malformed());
      void finish();
    });
    parser.on('close', () => void finish());
    req.on('close', () => {
      if (!req.complete) {
        fail(malformed());
        void finish();
      }
    });
    req.pipe(parser);
  });
}
