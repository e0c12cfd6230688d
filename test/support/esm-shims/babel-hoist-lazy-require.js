// Jest only: pg-boss requires `node:timers/promises` inside its delay(), on every call. A
// worker loop it lets go after the app closed can call it once the test file's environment is
// torn down, and jest then refuses the require (a failure reported in whichever file runs
// next). Hoisted to the top of the module, the require happens while the file is alive.
module.exports = function hoistLazyRequire({ types: t }) {
  const MODULES = new Set(['node:timers/promises']);
  return {
    name: 'hoist-lazy-require',
    visitor: {
      Program(program) {
        const hoisted = new Map();
        program.traverse({
          CallExpression(path) {
            const [arg] = path.node.arguments;
            if (!t.isIdentifier(path.node.callee, { name: 'require' }) || !t.isStringLiteral(arg)) return;
            if (!MODULES.has(arg.value) || path.getFunctionParent() === null) return;
            let id = hoisted.get(arg.value);
            if (!id) {
              id = program.scope.generateUidIdentifier('hoisted');
              hoisted.set(arg.value, id);
            }
            path.replaceWith(t.identifier(id.name));
          },
        });
        for (const [name, id] of hoisted) {
          program.unshiftContainer(
            'body',
            t.variableDeclaration('const', [
              t.variableDeclarator(id, t.callExpression(t.identifier('require'), [t.stringLiteral(name)])),
            ]),
          );
        }
      },
    },
  };
};
