export type { BulkItemResult, BulkResult, Engine, EngineConnection, EngineInfo, EngineKind, SearchHit, SearchRequest, SearchResponse } from "./types.js";
export { connectEngine, detectEngine, normaliseConnection, parseNodes, parseRoot } from "./connect.js";
export { bulkItemError, classifyEngineFailure, engineFailureOf, redactUrl, toEngineError, type EngineFailure } from "./errors.js";
export { totalHits } from "./responses.js";
export { createIndexWithFields, fieldsMapping, fieldsSettings, indexSettings, installTemplates, templates, COMPONENT_TEMPLATE, DOCUMENTS_TEMPLATE, CONTRACT_VERSION } from "./templates.js";
