import { describe, expect, it } from 'vitest';
import { applyFuses, loadFuses, type FusesModule } from './apply-fuses.ts';
import { fusePlan } from './fuse-plan.ts';

/**
 * @electron/fuses' enums as it defines them (FuseV1Options is a TypeScript numeric enum, so it
 * maps both ways), over a fuse wire held in memory: flipFuses writes '0'/'1' states into it,
 * getCurrentFuseWire reads them back. `stuck` fuses ignore flips, like a wire too short for them.
 */
function fakeFuses(stuck: readonly number[] = []) {
  const names = ['RunAsNode', 'EnableCookieEncryption', 'EnableNodeOptionsEnvironmentVariable', 'EnableNodeCliInspectArguments', 'EnableEmbeddedAsarIntegrityValidation', 'OnlyLoadAppFromAsar', 'LoadBrowserProcessSpecificV8Snapshot', 'GrantFileProtocolExtraPrivileges'];
  const options: Record<string, string | number> = {};
  names.forEach((name, index) => Object.assign(options, { [name]: index, [index]: name }));
  const INHERIT = 144;
  const wire = names.map(() => INHERIT);
  const flips: Array<Readonly<Record<string, unknown>>> = [];
  const fuses: FusesModule = {
    FuseVersion: { V1: '1' },
    FuseV1Options: options,
    FuseState: { ENABLE: 49, DISABLE: 48 },
    flipFuses: async (_path, config) => {
      flips.push(config);
      for (const [key, on] of Object.entries(config)) {
        const index = Number(key);
        if (Number.isInteger(index) && !stuck.includes(index)) wire[index] = on === true ? 49 : 48;
      }
      return 1;
    },
    getCurrentFuseWire: async () => ({ version: '1', ...Object.fromEntries(wire.map((state, index) => [String(index), state])) }),
  };
  return { fuses, flips, wire };
}

describe('fuse plan', () => {
  it('turns off running as Node, NODE_OPTIONS and inspect flags, and file:// privileges, whatever the packaging', () => {
    for (const asar of [false, true]) {
      expect(fusePlan({ asar })).toMatchObject({
        RunAsNode: false,
        EnableNodeOptionsEnvironmentVariable: false,
        EnableNodeCliInspectArguments: false,
        GrantFileProtocolExtraPrivileges: false,
        EnableCookieEncryption: true,
      });
    }
  });

  it('validates and requires the asar archive only when the app is packed into one', () => {
    expect(fusePlan({ asar: false })).toMatchObject({ EnableEmbeddedAsarIntegrityValidation: false, OnlyLoadAppFromAsar: false });
    expect(fusePlan({ asar: true })).toMatchObject({ EnableEmbeddedAsarIntegrityValidation: true, OnlyLoadAppFromAsar: true });
  });
});

describe('applying the fuses', () => {
  it('flips each planned fuse at its wire index and checks the wire afterwards', async () => {
    const { fuses, flips, wire } = fakeFuses();
    const lines = await applyFuses('/app/crane-studio', fusePlan({ asar: false }), fuses, { platform: 'linux', arch: 'x64' });
    expect(flips).toEqual([
      { version: '1', resetAdHocDarwinSignature: false, 0: false, 1: true, 2: false, 3: false, 4: false, 5: false, 7: false },
    ]);
    // LoadBrowserProcessSpecificV8Snapshot is not in the plan: it keeps Electron's default.
    expect(wire).toEqual([48, 49, 48, 48, 48, 48, 144, 48]);
    expect(lines).toContain('RunAsNode: off');
    expect(lines).toContain('EnableCookieEncryption: on');
  });

  it('resets the ad-hoc signature on Apple silicon, where a rewritten binary would not run', async () => {
    const { fuses, flips } = fakeFuses();
    await applyFuses('/Applications/CRANE Studio.app', fusePlan({ asar: true }), fuses, { platform: 'darwin', arch: 'arm64' });
    expect(flips[0]).toMatchObject({ resetAdHocDarwinSignature: true, 4: true, 5: true });
  });

  it('fails naming the fuses that did not take', async () => {
    const { fuses } = fakeFuses([0, 3]);
    await expect(applyFuses('/app/crane-studio', fusePlan({ asar: false }), fuses)).rejects.toThrow(
      '/app/crane-studio: these fuses did not take: RunAsNode, EnableNodeCliInspectArguments',
    );
  });

  it('fails when the installed @electron/fuses does not know a planned fuse', async () => {
    const { fuses } = fakeFuses();
    const old: FusesModule = { ...fuses, FuseV1Options: { RunAsNode: 0, 0: 'RunAsNode' } };
    await expect(applyFuses('/app/crane-studio', fusePlan({ asar: false }), old)).rejects.toThrow('knows no fuse EnableNodeOptionsEnvironmentVariable');
  });

  it('reports a missing @electron/fuses as undefined, not as a crash', async () => {
    expect(await loadFuses('@electron/fuses-that-does-not-exist')).toBeUndefined();
  });
});
