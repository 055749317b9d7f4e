// src/cli.js, JSR's ./cli export: the loadtest command. Importing it runs the command with
// the process's arguments; it exports nothing.
export {};
