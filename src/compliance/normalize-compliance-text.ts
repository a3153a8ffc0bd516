/**
 * Normalises a message, or a keyword, for compliance matching: the whole message must then be
 * the keyword. Accents and case are folded (`Arrêt` → `arret`), invisible format characters
 * dropped, surrounding punctuation, symbols and emoji removed (`«STOP»`, `stop 🛑`, `STOP!`),
 * and punctuation between words counts as a space, so `Opt-Out` reads `opt out` and `non-stop`
 * reads `non stop` (which is no keyword). Spaces are collapsed.
 *
 * @example
 * normalizeComplianceText(' «Arrêt» 🛑 '); // 'arret'
 * normalizeComplianceText('Opt-Out!'); // 'opt out'
 * normalizeComplianceText("don't stop"); // 'don t stop'
 */
export function normalizeComplianceText(text: string): string {
  return (
    text
      // Full-width letters and ligatures to plain ones, then accents split off and dropped.
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      // Zero-width spaces and joiners, soft hyphens, direction marks: pasted text carries them.
      .replace(/\p{Cf}/gu, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim()
  );
}
