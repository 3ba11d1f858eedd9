/**
 * A Nanbeige4.2-style tokenizer and template for tests: our builder's Metaspace/byte-fallback
 * tokenizer (nanbeige-style-tokenizer.ts) trained on the test corpus, with
 * assets/templates/nanbeige-style.jinja as its chat template. Memoised per test file.
 */
import { readFile } from 'node:fs/promises';
import { ChatTemplate, NANBEIGE_STYLE_TEMPLATE_PATH } from '../chat-template.ts';
import { buildNanbeigeStyleTokenizer } from '../nanbeige-style-tokenizer.ts';
import { ModelTokenizer } from '../tokenizer.ts';
import { TEST_CORPUS } from './fixture.ts';

let loaded: Promise<{ tokenizer: ModelTokenizer; template: ChatTemplate }> | undefined;

export function loadNanbeigeStyleFixture(): Promise<{ tokenizer: ModelTokenizer; template: ChatTemplate }> {
  loaded ??= readFile(NANBEIGE_STYLE_TEMPLATE_PATH, 'utf8').then((chatTemplate) => {
    const tokenizer = ModelTokenizer.fromContents(buildNanbeigeStyleTokenizer({ corpus: TEST_CORPUS.repeat(3), chatTemplate, vocabSize: 500 }));
    return { tokenizer, template: ChatTemplate.fromTokenizer(tokenizer) };
  });
  return loaded;
}
