import { describe, expect, it } from 'vitest';
import { normalizeSource } from '../../../src/bot/normalize-source.ts';

// The same functions as tsx (esbuild, minified whitespace) and vitest print them.
const pairs: Array<[tsx: string, vitest: string]> = [
  [
    '({event})=>event.type==="a"&&event.trigger!==void 0',
    '({ event }) => event.type === "a" && event.trigger !== undefined',
  ],
  ['()=>{throw new Error("boom")}', '() => {\n\t\tthrow new Error("boom");\n\t}'],
  [
    'event=>{const n=1e3;const list=[1,2,3];if(n>10)return yes(event.body)?true:false;return list.includes(1)&&typeof reply==="function"&&event.body?.trim()!==`t`}',
    '(event) => {\n\t\t// a comment\n\t\tconst n = 1e3; /* block */\n\t\tconst list = [\n\t\t\t1,\n\t\t\t2,\n\t\t\t3,\n\t\t];\n\t\tif (n > 10) return yes(event.body) ? true : false;\n\t\treturn list.includes(1) && typeof __vite_ssr_import_0__.reply === "function" && event.body?.trim() !== `t`;\n\t}',
  ],
  [
    'async x=>{await Promise.resolve(x);return x**2}',
    'async (x) => {\n\tawait Promise.resolve(x);\n\treturn x ** 2;\n}',
  ],
  ['({context})=>`Merci, \\xE0 demain.`', '({ context }) => `Merci, à demain.`'],
  ['s=>s==="l\'heure"', '(s) => s === "l\'heure"'],
  ['x=>(0,__vi_import_0__.matchYes)(x)', 'x => matchYes(x)'],
];

describe('normalizeSource', () => {
  it.each(pairs)('gives one text for %s and its readable twin', (tsx, vitest) => {
    expect(normalizeSource(tsx)).toBe(normalizeSource(vitest));
  });

  it('keeps what a change of logic or text changes', () => {
    expect(normalizeSource('x => x.body === "yes"')).not.toBe(
      normalizeSource('x => x.body === "yep"'),
    );
    expect(normalizeSource('x => x > 1')).not.toBe(normalizeSource('x => x >= 1'));
    expect(normalizeSource('() => "http://a.b"')).toBe('()=>"http://a.b"');
  });
});
