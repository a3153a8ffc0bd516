/**
 * Masks a phone number for logs: the country prefix and the last three digits stay, so a person
 * can still tell two numbers apart (`33612345678` → `336•••••678`).
 */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  if (digits.length <= 6) return '•'.repeat(digits.length);
  return digits.slice(0, 3) + '•'.repeat(digits.length - 6) + digits.slice(-3);
}

/** A written phone number as an error message may quote it: masked, or `(no digits)`. */
export function quotedPhone(written: string): string {
  const masked = maskPhone(written);
  return masked ? `'${masked}'` : '(no digits)';
}
