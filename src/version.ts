/** The package's version (package.json), for `neardup --version` and the OpenAPI document. */
import pkg from "../package.json" with { type: "json" };

export const PACKAGE_VERSION: string = pkg.version;
