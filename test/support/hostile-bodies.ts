/**
 * Generates malformed and hostile webhook bodies, deterministically from a seed, so a failing
 * case can be replayed: bad JSON, wrong types at every level, huge strings, deep nesting,
 * unknown and prototype-polluting keys, odd Unicode, and valid-looking items with bad fields.
 */
export interface HostileBody {
  kind: string;
  body: string | Buffer;
  contentType?: string;
}

export function* hostileBodies(count: number, seed = 1): Generator<HostileBody> {
  const random = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const generators = [
    () => ({
      kind: 'bad-json',
      body: pick([
        '{',
        '[',
        '{"id":',
        'nul',
        '{"id":"x",}',
        '\uFEFF{}',
        "{'id':'x'}",
        '',
        ' ',
        '{"a":1}}',
        'NaN',
        // Short enough that the parser's message quotes it whole, number included.
        'from=33612345678',
        '+33612345678',
      ]),
    }),
    () => ({
      kind: 'random-bytes',
      body: Buffer.from(
        Array.from({ length: 1 + Math.floor(random() * 300) }, () => Math.floor(random() * 256)),
      ),
    }),
    () => ({
      kind: 'scalar',
      body: JSON.stringify(pick([null, 0, -1, 1e308, true, 'text', [], [1, 2], {}])),
    }),
    () => ({
      kind: 'envelope-types',
      body: JSON.stringify({ id: weird(), webhookId: weird(), type: weird(), data: weird() }),
    }),
    () => ({
      kind: 'item-types',
      body: JSON.stringify(
        envelope([{ originSms: weird(), body: weird(), from: weird(), to: weird() }]),
      ),
    }),
    () => ({
      kind: 'status-types',
      body: JSON.stringify(
        envelope([
          {
            id: weird(),
            to: weird(),
            status: weird(),
            statusReason: weird(),
            price: weird(),
            parts: weird(),
          },
        ]),
      ),
    }),
    () => ({
      kind: 'huge-string',
      body: JSON.stringify(
        envelope([
          {
            originSms: { id: 'x' },
            body: 'é'.repeat(60_000 + Math.floor(random() * 60_000)),
            from: '33612345678',
            to: '38200',
          },
        ]),
      ),
    }),
    () => ({ kind: 'over-limit', body: JSON.stringify(envelope([{ body: 'x'.repeat(300_000) }])) }),
    () => ({ kind: 'deep-array', body: `${'['.repeat(20_000)}${']'.repeat(20_000)}` }),
    () => ({
      kind: 'deep-data',
      body: `{"id":"d","webhookId":"w","type":"sms.status","data":[${'{"originSms":'.repeat(5_000)}{}${'}'.repeat(5_000)}]}`,
    }),
    () => ({
      kind: 'proto-keys',
      body: `{"id":"p","webhookId":"w","type":"sms.reply","__proto__":{"polluted":1},"constructor":{"prototype":{"x":1}},"data":[{"__proto__":{"originSms":1},"originSms":{"id":"o","__proto__":null},"body":"hi","from":"33612345678","to":"38200"}]}`,
    }),
    () => ({
      kind: 'unknown-fields',
      body: JSON.stringify({
        ...envelope([
          { originSms: { id: 'o', extra: [1, 2] }, body: 'x', from: '1', to: '2', more: { a: 1 } },
        ]),
        unknown: 'x',
        nested: { deep: [null] },
      }),
    }),
    () => ({
      kind: 'unicode',
      body: JSON.stringify(
        envelope([
          {
            originSms: { id: '\uD800' },
            body: '\u202E\u0000\uFFFF😀',
            from: '٣٣٦١٢٣٤٥٦٧٨',
            to: '\u0000',
          },
        ]),
      ),
    }),
    () => ({
      kind: 'bad-phone',
      body: JSON.stringify(
        envelope([
          {
            originSms: { id: 'o' },
            body: 'x',
            from: pick(['', 'abc', '+', '1'.repeat(40), '33 6 12', '-33612345678']),
            to: '38200',
          },
        ]),
      ),
    }),
    () => ({ kind: 'empty-data', body: JSON.stringify(envelope([])) }),
    () => ({
      kind: 'many-items',
      body: JSON.stringify(envelope(Array.from({ length: 2_000 }, () => weird()))),
    }),
    () => ({
      kind: 'content-type',
      body: 'id=1&data=2',
      contentType: pick([
        'application/x-www-form-urlencoded',
        'text/plain',
        'application/xml',
        'multipart/form-data; boundary=x',
      ]),
    }),
  ];
  function weird(): unknown {
    return pick([
      null,
      1,
      -0.5,
      'x',
      '',
      true,
      [],
      {},
      [null],
      { id: 1 },
      'a'.repeat(1_000),
      Number.MAX_SAFE_INTEGER,
    ]);
  }
  function envelope(data: unknown[]) {
    return {
      id: `fuzz-${Math.floor(random() * 1e9)}`,
      webhookId: 'w',
      type: pick(['sms.status', 'sms.reply', 'other']),
      data,
    };
  }
  for (let i = 0; i < count; i++) yield pick(generators)();
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
