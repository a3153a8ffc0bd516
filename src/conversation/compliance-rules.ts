/** A compliance keyword found in a person's message. */
export interface ComplianceMatch {
  kind: 'opt-out' | 'opt-in' | 'help';
  /** The keyword as matched (normalised). */
  keyword: string;
  /** The keyword's language: the confirmation or help text goes out in it. */
  language: string;
}

/**
 * What the engine needs of a location's compliance settings (DESIGN §2.6). `app/` builds it
 * from the location's `compliance` configuration (`src/compliance/`); the engine only calls it.
 */
export interface ComplianceRules {
  /**
   * The compliance keyword the whole message is, if any. `claimed`: words the phone's active
   * bot claims while it runs (never STOP or ARRET); they reach the bot instead.
   */
  match(body: string, claimed?: ReadonlySet<string>): ComplianceMatch | undefined;
  /** The opt-out confirmation, opt-in confirmation or help text, in `language`. */
  text(kind: ComplianceMatch['kind'], language?: string): string;
  /** At most `max` messages to one phone per `windowMs`; past it, bot messages are dropped. */
  readonly loopGuard: { max: number; windowMs: number };
  /** When `now` falls in the location's quiet hours, the time they end; otherwise undefined. */
  quietUntil(now: number): number | undefined;
  /** The contacts group to update with `contactSubscribed: false` on opt-out, if any. */
  readonly group: number | undefined;
}
