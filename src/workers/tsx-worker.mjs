// Worker bootstrap for development and tests only (tsx, vitest): a worker
// thread does not inherit the parent's module hooks, so it registers tsx's
// loader itself and then imports the TypeScript worker module named in
// workerData. Built code (dist/) loads worker.js directly and never this file.
import { register } from "tsx/esm/api";
import { workerData } from "piscina";

register();
const { default: analyzeTask } = await import(workerData.module);
export default analyzeTask;
