// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "tools/*/target/", "coverage/", ".neardup/", ".scratch/", "bench/quality/.venv/", "bench/out/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: "readonly", console: "readonly" } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: "Only entry points (src/**/main.ts, test setup, bench) read process.env; pass a typed config instead.",
        },
      ],
    },
  },
  {
    files: ["src/**/main.ts", "test/**", "bench/**", "vitest.config.ts", "src/config/env.ts"],
    rules: { "no-restricted-syntax": "off" },
  },
  {
    files: ["src/core/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["**/engine/**", "**/server/**", "**/cli/**", "**/service/**", "**/index/**", "node:fs", "node:http", "express"], message: "core is pure: no I/O, no outer layers." }] },
      ],
    },
  },
);
