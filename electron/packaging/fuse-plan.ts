/**
 * Electron fuses: switches compiled into the Electron binary, flipped once when the app is
 * packaged (apply-fuses.ts), that no environment variable or command-line flag can turn back.
 * Names are @electron/fuses' FuseV1Options keys. Fuses not named keep Electron's default.
 *
 *   RunAsNode off                      ELECTRON_RUN_AS_NODE=1 would make the shipped binary a
 *                                      plain Node with the app's privileges
 *   EnableNodeOptionsEnvironmentVariable off   NODE_OPTIONS could preload code (--require)
 *   EnableNodeCliInspectArguments off  --inspect/--inspect-brk would open a debugger port
 *   GrantFileProtocolExtraPrivileges off   the app is served from crane://, never file://
 *   EnableCookieEncryption on          cookies at rest are encrypted with the OS keystore
 *   EnableEmbeddedAsarIntegrityValidation, OnlyLoadAppFromAsar
 *                                      on only when the app is packed into an asar archive:
 *                                      today Electron runs the app folder (package.json `main`
 *                                      → dist/electron/main.mjs), which OnlyLoadAppFromAsar
 *                                      would refuse to start
 */
export type FuseName =
  | 'RunAsNode'
  | 'EnableCookieEncryption'
  | 'EnableNodeOptionsEnvironmentVariable'
  | 'EnableNodeCliInspectArguments'
  | 'EnableEmbeddedAsarIntegrityValidation'
  | 'OnlyLoadAppFromAsar'
  | 'GrantFileProtocolExtraPrivileges';

export type FusePlan = Readonly<Record<FuseName, boolean>>;

export interface PackagingOptions {
  /** The app is packed into an asar archive (with its integrity hash in the app's metadata). */
  readonly asar: boolean;
}

export function fusePlan({ asar }: PackagingOptions): FusePlan {
  return {
    RunAsNode: false,
    EnableNodeOptionsEnvironmentVariable: false,
    EnableNodeCliInspectArguments: false,
    GrantFileProtocolExtraPrivileges: false,
    EnableCookieEncryption: true,
    EnableEmbeddedAsarIntegrityValidation: asar,
    OnlyLoadAppFromAsar: asar,
  };
}
