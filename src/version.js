// The version sent in user-agent and shown by -V; kept equal to package.json's by a test.
export const VERSION = '9.0.0-alpha.0';
