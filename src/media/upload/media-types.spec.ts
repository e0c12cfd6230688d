import { fileTypeFromBuffer } from 'file-type';
import { acceptedTypes, classify, looksLikeSvg } from './media-types';

const sniff = async (bytes: Buffer, name?: string) => classify((await fileTypeFromBuffer(bytes))?.mime, bytes, name);

describe('media type allow-list', () => {
  it('accepts types by their bytes, whatever the name says', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108020000009077', 'hex');
    expect(await sniff(png, 'photo.jpg')).toEqual({ contentType: 'image/png', ext: 'png', kind: 'image' });
    expect(await sniff(Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj', 'latin1'), 'x.png')).toEqual({
      contentType: 'application/pdf',
      ext: 'pdf',
      kind: 'document',
    });
    expect(await sniff(Buffer.concat([Buffer.from('fffb9064', 'hex'), Buffer.alloc(400)]))).toEqual({
      contentType: 'audio/mpeg',
      ext: 'mp3',
      kind: 'audio',
    });
  });

  it('refuses text, HTML, scripts, executables and archives', async () => {
    for (const bytes of [
      Buffer.from('just text'),
      Buffer.from('<!DOCTYPE html><html><script>alert(1)</script>'),
      Buffer.from('#!/bin/sh\nrm -rf /'),
      Buffer.from('4d5a90000300000004000000ffff0000', 'hex'),
      Buffer.from('504b0304140000000800', 'hex'),
      Buffer.from('<?xml version="1.0"?><root/>'),
    ]) {
      expect(await sniff(bytes, 'innocent.png')).toBeNull();
    }
  });

  it('maps normalised names (wav, flac) and legacy Office by extension only when the bytes are CFB', () => {
    expect(classify('audio/vnd.wave', Buffer.alloc(0), 'a.wav')?.contentType).toBe('audio/wav');
    expect(classify('application/x-cfb', Buffer.alloc(0), 'Report.DOC')).toEqual({
      contentType: 'application/msword',
      ext: 'doc',
      kind: 'document',
    });
    expect(classify('application/x-cfb', Buffer.alloc(0), 'setup.msi')).toBeNull();
    expect(classify('application/x-msdownload', Buffer.alloc(0), 'a.doc')).toBeNull();
  });

  it.each([
    ['<svg xmlns="http://www.w3.org/2000/svg"/>', true],
    [
      '\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<!-- made by hand -->\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x.dtd">\n<svg width="1">',
      true,
    ],
    ['<!DOCTYPE svg [ <!ENTITY a "b"> ]><svg>', true],
    ['<html><svg></svg></html>', false],
    ['<svgfoo>', false],
    ['text <svg>', false],
  ])('looksLikeSvg(%j) is %s', (text, yes) => {
    expect(looksLikeSvg(Buffer.from(text))).toBe(yes);
    expect(classify(undefined, Buffer.from(text), 'x')?.contentType ?? null).toBe(yes ? 'image/svg+xml' : null);
  });

  it('lists what it accepts', () => {
    expect(acceptedTypes()).toEqual(
      expect.arrayContaining(['image/jpeg', 'image/svg+xml', 'application/pdf', 'video/mp4', 'audio/mpeg']),
    );
    expect(acceptedTypes()).not.toContain('text/html');
  });
});
