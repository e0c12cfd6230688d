// Jest only (docs/upgrades.md): ES modules compiled to CommonJS for the tests keep
// `const require = createRequire(import.meta.url)`, which would shadow CommonJS's own `require`
// (and fail before it is initialised). In CommonJS that line is what `require` already is.
module.exports = function dropCreateRequire({ types: t }) {
  return {
    name: 'drop-create-require',
    visitor: {
      VariableDeclarator(path) {
        const { id, init } = path.node;
        if (
          t.isIdentifier(id, { name: 'require' }) &&
          t.isCallExpression(init) &&
          t.isIdentifier(init.callee, { name: 'createRequire' })
        ) {
          if (path.parent.declarations.length === 1) path.parentPath.remove();
          else path.remove();
        }
      },
    },
  };
};
