import { describe, expect, it } from 'vitest';
import { completionQuery, completions } from './path-completion.ts';

describe('path completion', () => {
  it('lists the folder being typed in, with the start of the name as the prefix', () => {
    expect(completionQuery('/data/proj')).toEqual({ dir: '/data', prefix: 'proj' });
    expect(completionQuery('/data/')).toEqual({ dir: '/data', prefix: '' });
    expect(completionQuery('/da')).toEqual({ dir: '/', prefix: 'da' });
    expect(completionQuery('relative/path')).toBeNull();
    expect(completionQuery('')).toBeNull();
    expect(completionQuery('/data//x')).toBeNull();
    expect(completionQuery('/data/../x')).toBeNull();
  });

  it('offers the full paths of the folders whose names start with the prefix', () => {
    expect(completions({ dir: '/data', prefix: 'pr' }, ['projects', 'Prior', 'pr', 'models'])).toEqual(['/data/projects']);
    expect(completions({ dir: '/', prefix: '' }, ['data', 'home'])).toEqual(['/data', '/home']);
  });
});
