/**
 * A tokenizer for tests: built from a short corpus by our own builder with the built-in template,
 * so tests need no checkpoint on disk. `testTokenizer()` memoises the build per test file.
 */
import { buildTokenizer, type BuiltTokenizer } from '../build-tokenizer.ts';
import { readBuiltinChatTemplate } from '../chat-template.ts';
import { ModelTokenizer } from '../tokenizer.ts';

export const TEST_CORPUS = [
  'You are a helpful assistant. The user asks about the weather in Paris and Rome.',
  'Call get_weather with {"city": "Paris"} and then answer the question.',
  'The weather is sunny. It is raining in Rome. What is 12 + 30? It is 42.',
  'Think step by step: first add the tens, then the ones, then check the answer.',
  '{"name": "get_weather", "arguments": {"city": "Rome"}}',
].join('\n');

let built: Promise<BuiltTokenizer> | undefined;

export function testTokenizer(): Promise<BuiltTokenizer> {
  built ??= readBuiltinChatTemplate().then((chatTemplate) =>
    buildTokenizer({ corpus: TEST_CORPUS.repeat(3), chatTemplate, vocabSize: 400 }),
  );
  return built;
}

export async function loadTestTokenizer(): Promise<ModelTokenizer> {
  const { tokenizerJson, tokenizerConfig } = await testTokenizer();
  return ModelTokenizer.fromContents({ tokenizerJson, tokenizerConfig });
}
