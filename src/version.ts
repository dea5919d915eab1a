import packageJson from "../package.json" with { type: "json" };

/** The program's version, from package.json so there is one place to bump it. */
export const VERSION: string = packageJson.version;
