/**
 * Mutations of a checkpoint's JSON files for the checkpoint fuzz test: syntax (cuts, byte edits,
 * invalid UTF-8, a BOM, the wrong top-level type) for any of them, and field edits for
 * config.json, model.safetensors.index.json, tokenizer.json and tokenizer_config.json. Field
 * edits are chosen so that the result is either refusable garbage or exactly the same checkpoint;
 * a valid but different model (another rms_norm_eps, two tokens swapped) is no test of input
 * checking and is left out.
 */
import type { SeededRandom } from '../../protocol/seeded-random.ts';
import { INVALID_UTF8, mutationsOf, spliceBytes, type FileMutation } from './file-mutation.ts';

type Json = Record<string, unknown>;
const text = (value: unknown) => Buffer.from(JSON.stringify(value, null, 2));

export function jsonSyntaxMutations(file: string, bytes: Buffer, random: SeededRandom, edits = 6): FileMutation[] {
  const make = mutationsOf(file);
  const structural = structuralPositions(bytes);
  const structuralEdits = Array.from({ length: edits }, () => {
    const at = random.pick(structural);
    return make(`structural byte ${at} (${String.fromCharCode(bytes[at] as number)}) deleted`, () => spliceBytes(bytes, at, 1));
  });
  return [
    ...[0.1, 0.5, 0.99].map((f) => make(`cut at ${Math.floor(bytes.length * f)} of ${bytes.length} bytes`, () => bytes.subarray(0, Math.floor(bytes.length * f)))),
    ...structuralEdits,
    ...INVALID_UTF8.slice(0, 3).map((seq) => make(`invalid UTF-8 ${seq.map((b) => b.toString(16)).join(' ')} inside a string`, () => spliceBytes(bytes, bytes.indexOf('"') + 1, 0, seq))),
    make('byte-order mark', () => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes])),
    ...['', '[]', 'null', '"text"', '42'].map((v) => make(`replaced by ${JSON.stringify(v)}`, () => Buffer.from(v))),
  ];
}

/**
 * Offsets of JSON's own punctuation (quotes included, string contents excluded): deleting one
 * breaks the document instead of making a new value (a ':' inside a chat template is text).
 */
function structuralPositions(bytes: Buffer): number[] {
  const positions: number[] = [];
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const c = String.fromCharCode(bytes[i] as number);
    if (inString && c === '\\') i++;
    else if (c === '"') {
      inString = !inString;
      positions.push(i);
    } else if (!inString && '{}[]:,'.includes(c)) positions.push(i);
  }
  return positions;
}

export function configMutations(file: string, config: Json): FileMutation[] {
  const make = mutationsOf(file, 'folder');
  const set = (key: string, value: unknown) => make(`"${key}" = ${JSON.stringify(value)}`, () => text({ ...config, [key]: value }));
  const int = (key: string) => config[key] as number;
  return [
    ...[int('hidden_size') + 1, -int('hidden_size'), 0, String(int('hidden_size')), 1e300, null, 96.5].map((v) => set('hidden_size', v)),
    set('num_hidden_layers', int('num_hidden_layers') + 1), set('num_hidden_layers', 0), set('num_hidden_layers', 2 ** 31),
    set('num_attention_heads', int('num_attention_heads') + 1), set('num_key_value_heads', int('num_key_value_heads') + 1),
    set('vocab_size', int('vocab_size') + 1), set('vocab_size', int('vocab_size') - 1), set('intermediate_size', int('intermediate_size') - 1),
    set('head_dim', int('head_dim') - 1), set('head_dim', int('head_dim') * 2),
    ...[['FooForCausalLM'], [], 'Qwen3ForCausalLM', null, [42]].map((v) => set('architectures', v)),
    set('hidden_act', 'gelu'), set('tie_word_embeddings', false), set('use_sliding_window', true),
    set('rms_norm_eps', -1), set('rope_theta', 'x'), set('rope_scaling', { rope_type: 'yarn', factor: 4 }),
    make('an unknown field added', () => text({ ...config, crane_fuzz_note: 'ignored' })),
    make('fields reordered, compact', () => Buffer.from(JSON.stringify(Object.fromEntries(Object.entries(config).reverse())))),
  ];
}

export function indexMutations(file: string, index: { weight_map: Record<string, string> }, random: SeededRandom): FileMutation[] {
  const make = mutationsOf(file);
  const names = Object.keys(index.weight_map);
  const shards = [...new Set(Object.values(index.weight_map))];
  const name = random.pick(names);
  const withMap = (what: string, map: Record<string, unknown>) => make(what, () => text({ ...index, weight_map: map }));
  const other = shards.find((s) => s !== index.weight_map[name]) as string;
  return [
    withMap(`"${name}" removed`, Object.fromEntries(Object.entries(index.weight_map).filter(([n]) => n !== name))),
    withMap('a ghost tensor added', { ...index.weight_map, 'model.ghost.weight': shards[0] }),
    make('a "__proto__" tensor added', () => Buffer.from(JSON.stringify(index).replace('"weight_map":{', `"weight_map":{"__proto__":${JSON.stringify(shards[0])},`))),
    withMap(`"${name}" moved to ${other}`, { ...index.weight_map, [name]: other }),
    ...['../escape.safetensors', '/etc/passwd', 'model.safetensors', '.hidden.safetensors', 'model-00001-of-00001.safetensors', 5, null, ''].map((to) =>
      withMap(`"${name}" mapped to ${JSON.stringify(to)}`, { ...index.weight_map, [name]: to })),
    ...[[], 'x', {}, null].map((map) => make(`weight_map ${JSON.stringify(map)}`, () => text({ ...index, weight_map: map }))),
    make('no weight_map', () => text({ metadata: { total_size: 1 } })),
    make('total_size wrong (transformers ignores it)', () => text({ ...index, metadata: { total_size: -1 } })),
    make(`"${name}" listed twice, the last one right`, () => Buffer.from(JSON.stringify(index).replace('"weight_map":{', `"weight_map":{${JSON.stringify(name)}:${JSON.stringify(other)},`))),
  ];
}

export function tokenizerMutations(file: string, tokenizer: Json, embeddingRows: number, random: SeededRandom): FileMutation[] {
  const make = mutationsOf(file);
  const model = tokenizer['model'] as Json & { vocab: Record<string, number> };
  const token = random.pick(Object.keys(model.vocab));
  const added = tokenizer['added_tokens'] as Json[];
  const withVocabId = (id: unknown) => make(`vocab id of ${JSON.stringify(token)} = ${JSON.stringify(id)}`, () => text({ ...tokenizer, model: { ...model, vocab: { ...model.vocab, [token]: id } } }));
  const withAddedId = (id: unknown) => make(`added token ${JSON.stringify(added[0]?.['content'])} id = ${JSON.stringify(id)}`, () => text({ ...tokenizer, added_tokens: added.map((t, i) => (i === 0 ? { ...t, id } : t)) }));
  return [
    ...[2 ** 31, 2 ** 53, -1, 1.5, '7', null, embeddingRows, embeddingRows + 1000].map(withVocabId),
    ...[2 ** 31, -1, embeddingRows, 'x'].map(withAddedId),
    ...Object.entries({ 'null': null, '"x"': 'x', '{}': {}, 'with type "Nope"': { ...model, type: 'Nope' }, 'with merges 5': { ...model, merges: 5 }, 'with vocab []': { ...model, vocab: [] } })
      .map(([what, m]) => make(`model = ${what}`, () => text({ ...tokenizer, model: m }))),
    make('added_tokens = "x"', () => text({ ...tokenizer, added_tokens: 'x' })),
    make('pre_tokenizer of an unknown type', () => text({ ...tokenizer, pre_tokenizer: { type: 'Nope' } })),
  ];
}

export function tokenizerConfigMutations(file: string, config: Json): FileMutation[] {
  const make = mutationsOf(file);
  const template = (t: unknown, what = JSON.stringify(t).slice(0, 50)) => make(`chat_template = ${what}`, () => text({ ...config, chat_template: t }));
  return [
    template('{% for i in range(100000000) %}x{% endfor %}'),
    template("{{ 'x' * 1000000000 }}"),
    template('{% for %}'), template('{{ unclosed'), template(42), template([]),
    template('{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}', 'a macro recursing forever'),
    make('added_tokens_decoder = "x"', () => text({ ...config, added_tokens_decoder: 'x' })),
  ];
}
