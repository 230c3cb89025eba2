// A tool plugin written in Node.js, run by `pulumi plugin run` through the language host's
// RunPlugin: reports what it was given, on stdout, and fails on request.
process.stdout.write(
  `${JSON.stringify({ args: process.argv.slice(2), cwd: process.cwd(), probe: process.env.TOOL_PLUGIN_PROBE ?? null })}\n`,
);
process.stderr.write("tool plugin: on stderr\n");
if (process.argv.includes("fail")) process.exitCode = 3;
