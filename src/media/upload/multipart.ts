import busboy from 'busboy';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  BadRequestProblem,
  FieldError,
  PayloadTooLargeProblem,
  Problem,
  UnsupportedMediaTypeProblem,
  ValidationProblem,
} from '../../common/errors/problems';

export interface SpooledFile {
  /** The form field it came in. */
  field: string;
  /** The file name the client sent (untrusted; see media-keys.ts). */
  clientName: string;
  /** Where it was spooled. */
  path: string;
  size: number;
}

export interface MultipartForm {
  files: SpooledFile[];
  fields: Record<string, string>;
}

export interface MultipartOptions {
  tmpDir: string;
  maxBytes: number;
  maxFiles: number;
  /** Form fields that may carry files. */
  fileFields: string[];
}

const MAX_FIELDS = 20;
const MAX_FIELD_BYTES = 64 * 1024;
/** Multipart framing around the files: boundaries, part headers and text fields. */
const FRAMING_ALLOWANCE = MAX_FIELDS * MAX_FIELD_BYTES + 64 * 1024;

const malformed = () => new BadRequestProblem('malformed_multipart', 'The multipart/form-data body could not be read');

/**
 * Streams a multipart/form-data request to temp files (never the whole body in memory), with
 * the size limit enforced while reading. Resolves once every part is on disk; on any problem the
 * spooled files are removed and the problem is thrown. The caller removes the files it gets.
 */
export async function readMultipart(req: IncomingMessage, options: MultipartOptions): Promise<MultipartForm> {
  const type = req.headers['content-type'] ?? '';
  if (!/^multipart\/form-data\s*;/i.test(type)) {
    throw new UnsupportedMediaTypeProblem('Uploads take multipart/form-data with a "file" part');
  }
  // A declared length far past the limit is refused before reading it.
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > options.maxBytes * options.maxFiles + FRAMING_ALLOWANCE) {
    // Closing the connection spares reading a body that is refused anyway.
    throw new Problem({
      status: 413,
      code: 'payload_too_large',
      title: 'Payload too large',
      detail: `A file may be at most ${options.maxBytes} bytes`,
      headers: { Connection: 'close' },
    });
  }
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      defParamCharset: 'utf8',
      limits: {
        fileSize: options.maxBytes,
        files: options.maxFiles,
        fields: MAX_FIELDS,
        fieldSize: MAX_FIELD_BYTES,
        parts: options.maxFiles + MAX_FIELDS,
        fieldNameSize: 100,
        headerPairs: 50,
      },
    });
  } catch {
    throw malformed(); // e.g. no boundary
  }

  const files: SpooledFile[] = [];
  const fields = new Map<string, string>();
  const writes: Promise<unknown>[] = [];
  const open = new Set<Readable>();
  let problem: Problem | undefined;
  const fail = (p: Problem) => (problem ??= p);
  const invalid = (errors: FieldError[]) => fail(new ValidationProblem(errors));

  return new Promise<MultipartForm>((resolve, reject) => {
    let finished = false;
    const finish = async () => {
      if (finished) return;
      finished = true;
      req.unpipe(parser);
      if (problem) for (const s of open) s.destroy();
      await Promise.allSettled(writes);
      if (!problem) return resolve({ files, fields: Object.fromEntries(fields) });
      await removeSpooled(files);
      // Drain what the client still sends, so the problem reaches it instead of a reset.
      req.resume();
      reject(problem);
    };

    parser.on('file', (rawName, stream, info) => {
      const name = rawName ?? '';
      if (!options.fileFields.includes(name)) invalid([{ path: name, message: 'is not a file field' }]);
      if (problem) {
        stream.resume();
        return;
      }
      const entry: SpooledFile = {
        field: name,
        clientName: info.filename ?? '',
        path: join(options.tmpDir, randomUUID()),
        size: 0,
      };
      files.push(entry);
      open.add(stream);
      stream.on('limit', () => fail(tooLarge(options.maxBytes)));
      const out = createWriteStream(entry.path, { flags: 'wx', mode: 0o600 });
      writes.push(
        pipeline(stream, out)
          .then(
            () => (entry.size = out.bytesWritten),
            () => fail(malformed()),
          )
          .finally(() => open.delete(stream)),
      );
    });
    parser.on('field', (rawName, value, info) => {
      // busboy gives a part with `name=""` an undefined name: its error item's path is `""`.
      const name = rawName ?? '';
      if (name === '') invalid([{ path: name, message: 'is a form field without a name' }]);
      else if (options.fileFields.includes(name)) invalid([{ path: name, message: 'must be a file' }]);
      else if (info.valueTruncated) invalid([{ path: name, message: `must be at most ${MAX_FIELD_BYTES} bytes` }]);
      else if (fields.has(name)) invalid([{ path: name, message: 'is given more than once' }]);
      else fields.set(name, value);
    });
    parser.on('filesLimit', () =>
      invalid([{ path: options.fileFields[0], message: `at most ${options.maxFiles} file(s) per request` }]),
    );
    parser.on('fieldsLimit', () => fail(new BadRequestProblem('too_many_parts', 'The form has too many fields')));
    parser.on('partsLimit', () => fail(new BadRequestProblem('too_many_parts', 'The form has too many parts')));
    parser.on('error', () => {
      fail(malformed());
      void finish();
    });
    parser.on('close', () => void finish());
    // A client that goes away mid-upload: nothing is kept.
    req.on('close', () => {
      if (!req.complete) {
        fail(malformed());
        void finish();
      }
    });
    req.pipe(parser);
  });
}

export async function removeSpooled(files: SpooledFile[]): Promise<void> {
  await Promise.all(files.map((f) => rm(f.path, { force: true }).catch(() => undefined)));
}

function tooLarge(maxBytes: number): Problem {
  return new PayloadTooLargeProblem(`A file may be at most ${maxBytes} bytes`);
}
