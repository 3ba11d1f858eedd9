// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineApi } from '../../engine-link/engine-api.ts';
import { ProtocolError, type Params, type RequestName, type Result } from '../../protocol.ts';
import { renderWithStore } from '../../testing/render-with-store.tsx';
import { PathField } from './PathField.tsx';

afterEach(cleanup);

/** An engine that lists two folders and refuses everything else, as listDirectories does outside its roots. */
function listingEngine(asked: string[]): EngineApi {
  const folders: Record<string, string[]> = { '/data': ['models', 'projects', 'prior'], '/data/projects': ['demo'] };
  return {
    async call<K extends RequestName>(method: K, params: Params<K>): Promise<Result<K>> {
      const { dir } = params as Params<'listDirectories'>;
      asked.push(dir);
      const names = folders[dir];
      if (method !== 'listDirectories' || names === undefined) throw new ProtocolError('invalid-path', `${dir}: outside the roots`);
      return { dir, directories: names, truncated: false } as Result<K>;
    },
    on: () => () => undefined,
    onClose: () => () => undefined,
  };
}

function Field() {
  const [value, setValue] = useState('');
  return <PathField label="Instruct checkpoint" purpose="instruct" value={value} onChange={setValue} />;
}

const offered = () => Array.from(screen.getByTestId('folder-completions').querySelectorAll('option'), (o) => o.value);

describe('<PathField> completion', () => {
  it('offers the folders inside the one being typed in, filtered by the name typed so far', async () => {
    const asked: string[] = [];
    renderWithStore(<Field />, listingEngine(asked));
    const input = screen.getByLabelText('Instruct checkpoint');
    expect(input.getAttribute('list')).toBe(screen.getByTestId('folder-completions').id);
    fireEvent.change(input, { target: { value: '/data/pr' } });
    await waitFor(() => expect(offered()).toEqual(['/data/projects', '/data/prior']));
    fireEvent.change(input, { target: { value: '/data/m' } });
    expect(offered()).toEqual(['/data/models']);
    fireEvent.change(input, { target: { value: '/data/projects/' } });
    await waitFor(() => expect(offered()).toEqual(['/data/projects/demo']));
    // Each folder was listed once, whatever was typed in it.
    expect(asked).toEqual(['/data', '/data/projects']);
  });

  it('offers nothing where the engine refuses to list', async () => {
    const asked: string[] = [];
    renderWithStore(<Field />, listingEngine(asked));
    fireEvent.change(screen.getByLabelText('Instruct checkpoint'), { target: { value: '/etc/' } });
    await waitFor(() => expect(asked).toEqual(['/etc']));
    expect(offered()).toEqual([]);
  });
});
