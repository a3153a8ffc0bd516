/** What a compliance keyword asks for: stop all messages, receive them again, or help. */
export type ComplianceKind = 'opt-out' | 'opt-in' | 'help';

export const complianceKinds: readonly ComplianceKind[] = ['opt-out', 'opt-in', 'help'];
