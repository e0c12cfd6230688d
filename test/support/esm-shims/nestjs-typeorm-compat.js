// Jest only (docs/upgrades.md): @nestjs/typeorm 12 is an ES module whose typeorm-compat.js
// calls createRequire(import.meta.url), which cannot be compiled to CommonJS. This is the same
// lookup in CommonJS: TypeORM 1 no longer exports these, so both are undefined there.
const typeorm = require('typeorm');
exports.Connection = typeorm.Connection;
exports.AbstractRepository = typeorm.AbstractRepository;
