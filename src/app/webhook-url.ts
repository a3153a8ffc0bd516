/**
 * A location's webhook URL, `<publicUrl>/webhooks/<location>/<secret>`, each segment encoded:
 * the route decodes them (`create-webhook-router.ts`, the fast path), so the URL registered with
 * the service is exactly the one it then accepts, whatever characters the name and the secret
 * hold.
 *
 * @example
 * webhookUrl('https://bots.example.com', 'paris', '3f9c2a7e41d0b8a6'); // https://bots.example.com/webhooks/paris/3f9c2a7e41d0b8a6
 */
export function webhookUrl(publicUrl: string, location: string, secret: string): string {
  const base = publicUrl.replace(/\/+$/, '');
  return `${base}/webhooks/${encodeURIComponent(location)}/${encodeURIComponent(secret)}`;
}
