/**
 * `npm run bench`: runs every benchmark in this list, in order. Each module
 * exports `run(): Promise<void>` and prints a Markdown section.
 */
const BENCHES: readonly string[] = ["./core.js", "./index.js", "./service.js"];

for (const path of BENCHES) {
  const mod = (await import(path)) as { run: () => Promise<void> };
  await mod.run();
  console.log();
}
