// @ts-check
// ESLint finds likely bugs; Prettier (.prettierrc.json) owns the form, so no formatting or
// stylistic rule is enabled here: @eslint/js and typescript-eslint's recommended sets have none.
import eslint from "@eslint/js";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

// Node's CommonJS globals, for the few plain JavaScript files (TypeScript files leave undefined
// names to the compiler). Listed by hand: the `globals` package would be a dependency for ten names.
const nodeCommonJsGlobals = /** @type {const} */ ({
  require: "readonly",
  module: "writable",
  exports: "writable",
  __dirname: "readonly",
  __filename: "readonly",
  process: "readonly",
  console: "readonly",
  Buffer: "readonly",
  setTimeout: "readonly",
  clearTimeout: "readonly",
});

// Every eslint-disable comment says why, after ` -- `. ESLint has no core rule for that, and the
// plugin that has one (@eslint-community/eslint-plugin-eslint-comments) would be a dependency for
// one check: this local rule reads the directive comments ESLint already parses.
/** @type {import("eslint").ESLint.Plugin} */
const local = {
  rules: {
    "disable-needs-reason": {
      meta: {
        type: "problem",
        messages: { missing: "Say why after `--`: `{{directive}} <rule> -- <reason>`." },
        schema: [],
      },
      create(context) {
        return {
          Program() {
            for (const comment of context.sourceCode.getAllComments()) {
              const match = /^\s*(eslint-disable(?:-next-line|-line)?)(?:\s|$)/.exec(comment.value);
              if (match && !/\s--\s*\S/.test(comment.value)) {
                context.report({
                  loc: comment.loc ?? { line: 1, column: 0 },
                  messageId: "missing",
                  data: { directive: match[1] },
                });
              }
            }
          },
        };
      },
    },
  },
};

/** The rules about `any`, off together where values are untyped by nature (the reasons are at each use). */
const untyped = Object.fromEntries(
  [
    "no-explicit-any",
    "no-unsafe-argument",
    "no-unsafe-assignment",
    "no-unsafe-call",
    "no-unsafe-member-access",
    "no-unsafe-return",
  ].map((rule) => [`@typescript-eslint/${rule}`, "off"]),
);

export default defineConfig(
  {
    // Generated or installed output, and other languages' trees. The programs under
    // test/programs/ and bench/programs/ are installed into temporary directories by the tests
    // and the benchmark; their node_modules (and examples') are covered by ESLint's default
    // **/node_modules/ ignore.
    ignores: ["dist/", "sdk/", "bench/work/", ".pulumi/", ".trial-state/", "**/*.d.ts"],
  },
  {
    // A disable comment that no longer suppresses anything fails the lint, so none outlives its reason.
    linterOptions: { reportUnusedDisableDirectives: "error" },
    plugins: { local },
    rules: { "local/disable-needs-reason": "error" },
  },
  eslint.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    // One program for everything type-checked: tsconfig.json (the build) plus test/ and the
    // vitest config, which the build does not compile (tsconfig.eslint.json).
    languageOptions: { parserOptions: { project: "./tsconfig.eslint.json", tsconfigRootDir: import.meta.dirname } },
  },
  {
    rules: {
      // A leading `_` marks a name unused on purpose: a key taken out of an object by destructuring
      // (`const { __provider: _p, ...outs } = olds`), or a parameter an interface requires.
      "@typescript-eslint/no-unused-vars": [
        "error",
        {
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          caughtErrorsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
        },
      ],
      // `async` without `await` is deliberate where an interface wants a promise (a dynamic
      // provider's check, diff and create, a fake clock's sleep): a throw becomes the rejection the
      // caller handles, instead of escaping synchronously.
      "@typescript-eslint/require-await": "off",
    },
  },
  {
    // Plain JavaScript is not in the TypeScript program (no allowJs): the rules that need types are off.
    files: ["**/*.js", "**/*.cjs", "**/*.mjs"],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    files: ["**/*.js", "**/*.cjs"],
    languageOptions: { sourceType: "commonjs", globals: nodeCommonJsGlobals },
    // CommonJS is what these files are (a pack hook, plugins and programs run by Node as they are).
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    // Programs that users copy (examples/) or that the tests and the benchmark install and run
    // against the packed package (test/programs/, bench/programs/). Each has its own package.json
    // and tsconfig, and imports pulumi-storage-user from a node_modules that exists only in the
    // temporary directory they run in, so their types cannot be resolved here: they get the rules
    // that need no types.
    files: ["examples/**", "test/programs/**", "bench/programs/**"],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // Test and benchmark programs require() on purpose: a module loaded only in the mode that needs
    // it, or inside a dynamic provider's functions, where the closure serializer writes the
    // require into state as a released version did.
    files: ["test/programs/**", "bench/programs/**"],
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    // The stand-in language host speaks the engine's gRPC through @pulumi/pulumi's generated
    // protobuf modules and the SDK's own @grpc/grpc-js, required by paths resolved at run time so
    // that one grpc-js instance serves both. TypeScript cannot follow such a require: the messages
    // and requests are `any` throughout, and the require is the point.
    files: ["tools/language-host/**"],
    rules: {
      "@typescript-eslint/no-require-imports": "off",
      "@typescript-eslint/no-redundant-type-constituents": "off",
      ...untyped,
    },
  },
  {
    // The providers handed to Pulumi's closure serializer: each function require()s the runtime
    // module by package name when it runs in the plugin, so state carries a one-line require
    // instead of the module's code; what that require returns is untyped by construction.
    files: ["provider/serializable.ts"],
    rules: {
      "@typescript-eslint/no-require-imports": "off",
      ...untyped,
    },
  },
  {
    // Tests read JSON that the CLI, the engine and the API write (stack exports, event logs,
    // preview --json, response bodies) and assert on its shape: `any` is that JSON's honest type,
    // and a wrong shape fails the assertion. Hostile-input tests pass ill-typed values on purpose.
    files: ["test/**"],
    ignores: ["test/programs/**"],
    rules: {
      ...untyped,
    },
  },
);
