export { startProxy, MAX_BULK_BYTES, type ProxyOptions, type RunningProxy } from "./server.js";
export { parseIndexRules, ruleFor, type IndexRule } from "./rules.js";
