// How bundle.js was built (webpack 5.113.0, `npx webpack -c webpack.config.cjs` from this folder):
// mode 'development', whose default devtool is 'eval', as grafana/k6-template-typescript
// had it, with its output and externals.
const path = require('path');

module.exports = {
  mode: 'development',
  context: __dirname,
  entry: './src/main.js',
  output: { path: __dirname, libraryTarget: 'commonjs', filename: 'bundle.js' },
  target: 'web',
  externals: /^(k6|https?:\/\/)(\/.*)?/,
};
