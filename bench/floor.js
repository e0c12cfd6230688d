'use strict';
// Baseline: the floor of a database read in Node: bare `http` and `pg`, one prepared SELECT of the
// same 20 published items of site `demo`, rows serialised as they come. For bench/run.js.
const http = require('node:http');
const { Pool } = require('pg');

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const query = {
  name: 'floor-list',
  text: `SELECT id, site_id, type, title, slug, content, excerpt, status, published_at, tags, categories, authors, created_at, updated_at
           FROM content_items WHERE site_id = $1 AND status = 'published' ORDER BY published_at DESC, id DESC LIMIT 20`,
  values: [process.env.SITE_ID],
};

http
  .createServer((req, res) => {
    pool.query(query).then(
      (r) => {
        const body = JSON.stringify(r.rows);
        res.writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(body),
        });
        res.end(body);
      },
      () => {
        res.writeHead(500);
        res.end();
      },
    );
  })
  .listen(Number(process.env.PORT), '127.0.0.1');
