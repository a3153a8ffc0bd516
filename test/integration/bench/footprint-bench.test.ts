import { describe, expect, it } from 'vitest';
import { formatFootprintReport } from '../../../bench/footprint/format-footprint-report.ts';
import { measureFootprint } from '../../../bench/footprint/measure-footprint.ts';
import { machineInfo } from '../../../bench/lib/machine.ts';
import { hasRedisServer } from '../../support/throwaway-redis.ts';

// A real run of `npm run bench -- footprint` at a small scale: its own redis-server, the
// emulator and replyflow in their own processes, real HTTP. It checks that the figures are
// sane, not what they are (that is what the bench reports).
describe.skipIf(!hasRedisServer)('the footprint bench', () => {
  it('measures 200 idle (the slope after the first 10) and 20 ended conversations and the baseline', {
    timeout: 60_000,
  }, async () => {
    const lines: string[] = [];
    const report = await measureFootprint({
      conversations: 200,
      ended: 20,
      baseline: 200,
      concurrency: 16,
      backlog: 100,
      idleSeconds: 1,
      // The loop guard's one-minute keys are left in place: waiting them out takes a minute.
      expiryWaitSeconds: 0,
      samplePerType: 100,
      log: (line) => lines.push(line),
    });

    const { replyflow, baseline } = report;
    expect(replyflow.idleLoad).toMatchObject({ conversations: 200, failed: 0, sms: 200 });
    // The emulator posted the statuses back to the webhook (sent, then delivered).
    expect(replyflow.idleLoad.statusNotifications).toBeGreaterThanOrEqual(200);
    expect(replyflow.endedLoad).toMatchObject({ conversations: 20, failed: 0, sms: 20 });
    expect(replyflow.conversations).toEqual({ 'bench-echo active': 200, 'bench-once done': 20 });

    // The bytes per conversation are the slope from the first tranche (a twentieth: 10) to all.
    expect(replyflow.firstLoad).toMatchObject({ conversations: 10, failed: 0, sms: 10 });
    expect(replyflow.first.usedMemory).toBeGreaterThan(replyflow.before.usedMemory);
    expect(replyflow.idle.usedMemory).toBeGreaterThan(replyflow.first.usedMemory);
    expect(replyflow.idleBytesPerConversation).toBeCloseTo(
      (replyflow.idle.usedMemory - replyflow.first.usedMemory) / 190,
      6,
    );
    expect(replyflow.idleBytesFromEmpty).toBeGreaterThan(0);
    expect(replyflow.idleBytesPerConversation).toBeGreaterThan(0);
    expect(replyflow.endedBytesPerConversation).toBeGreaterThan(0);
    expect(baseline.bytesPerConversation).toBeGreaterThan(0);
    expect(replyflow.idleBytesPerConversation).toBeGreaterThan(baseline.bytesPerConversation);

    const conv = replyflow.idle.census.types.find((type) => type.type === 'conv');
    expect(conv).toMatchObject({ count: 200, noTtl: 200 });
    expect(conv!.meanBytes).toBeGreaterThan(0);
    const endedConv = replyflow.ended.census.types.find((type) => type.type === 'conv');
    expect(endedConv?.count).toBe(220);
    expect(baseline.after.census.types.map((type) => type.type)).toEqual(['conv']);
    expect(replyflow.idleCommands.windowMs).toBeGreaterThanOrEqual(1000);

    const printed = formatFootprintReport(report, machineInfo());
    expect(printed).toMatch(/B per idle conversation\*\* \(from the first 10 to all/);
    expect(printed).toMatch(/ended matches the 20 loaded/);
    expect(printed).toMatch(/\| conv \| (string|hash) \| 200 \|/);
    // Phone numbers never appear in the progress lines or the report.
    expect([...lines, printed].join('\n')).not.toMatch(/33612\d{6}/);
  });
});
