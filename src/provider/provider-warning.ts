import type { ProviderLogger } from './provider-transport.ts';

/** Something accepted but worth telling the caller about; the request still goes out. */
export interface ProviderWarning {
  /**
   * `DOUBLE_ROUNDED_IN_CAMPAIGNS`: a DOUBLE custom-column value has more than 2 decimals, and
   * campaigns round it to 2 (spec §2.5). `SENDER_SANITIZED`: `from` had characters the
   * service removes (spec §7), so the message goes out with the cleaned value.
   */
  code: 'DOUBLE_ROUNDED_IN_CAMPAIGNS' | 'SENDER_SANITIZED';
  location: string;
  /** The field concerned: `from`, or a custom column id such as `12`. */
  field: string;
  message: string;
}

export type WarningSink = (warning: ProviderWarning) => void;

/** Sends a warning to both the logger (level warn) and the caller's `onWarning`, when given. */
export function createWarningSink(
  logger: ProviderLogger | undefined,
  onWarning: WarningSink | undefined,
): WarningSink {
  return (warning) => {
    logger?.warn(
      { location: warning.location, code: warning.code, field: warning.field },
      warning.message,
    );
    onWarning?.(warning);
  };
}
