// Types of engine-build-state.mjs (plain JavaScript: bin/crane.mjs loads it before any TypeScript loader).

export declare const ENGINE_BUILD_MANIFEST: string;

/** dist/engine/build.json. Paths are relative to the repository (sources) or to the output folder (cli, workers). */
export interface EngineBuildManifest {
  readonly root: string;
  readonly cli: string;
  /** Worker source path → its built file. */
  readonly workers: Readonly<Record<string, string>>;
  /** Source path → hashSource of its contents at build time. */
  readonly sources: Readonly<Record<string, string>>;
}

export type BuiltEngineState = { readonly fresh: true; readonly cli: string } | { readonly fresh: false; readonly reason: string };

export declare function engineOutDir(root: string): string;
export declare function hashSource(bytes: Uint8Array): string;
export declare function builtEngineState(root: string, outDir?: string): BuiltEngineState;
