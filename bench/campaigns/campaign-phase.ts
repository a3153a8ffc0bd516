import type { GeneratedFile } from './generate-recipients.ts';

/** What every phase of the campaigns bench gets: the settings and the file made for them. */
export interface PhaseContext {
  rows: number;
  runs: number;
  /** A recipient CSV of `rows` rows (see `generateRecipients`), in a temp dir removed afterwards. */
  file: GeneratedFile;
  /** The same without its quotes left open, which derail csv-parse: what the baseline can read. */
  cleanFile: GeneratedFile;
  /** The temp dir, for what a phase writes. */
  dir: string;
  /** The instant the campaign is imported at: every appointment is ahead of it. */
  now: number;
  /** Run the hand-written baselines too (`--no-baseline`: replyflow only, for a before/after). */
  baselines: boolean;
}

/**
 * One phase of `npm run bench -- campaigns`: `import` (reading the file), `store` (into Redis:
 * bytes per scheduled recipient), `cli` (the real `replyflow campaigns create`), `upload`
 * (`POST /admin/campaigns`). Each returns its report, in markdown, and its raw figures for the
 * results file.
 */
export interface CampaignPhase {
  name: string;
  description: string;
  run(context: PhaseContext): Promise<{ report: string; results: unknown }>;
}
