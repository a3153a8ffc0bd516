/**
 * True for a host only this machine can reach: `localhost` (and `*.localhost`), 127.0.0.0/8 and
 * `::1`. Dev servers bind to such a host by default, and the emulator calls only such webhook
 * URLs unless told otherwise (a URL to any other host could reach a private network).
 */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    bare === 'localhost' ||
    bare.endsWith('.localhost') ||
    bare === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare) ||
    /^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare)
  );
}
