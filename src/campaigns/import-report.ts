import { maskPhone } from '../observability/mask-phone.ts';
import type { CampaignMeta } from '../store/campaign-records.ts';
import type { CreateCampaignResult } from './create-campaign.ts';
import type { ExclusionReason, PreviewRow } from './import-summary.ts';

/** What `POST /admin/campaigns` answers and `replyflow campaigns create` prints, as JSON. */
export interface ImportReport {
  dryRun: boolean;
  /** Absent for a dry run: nothing was stored. */
  campaign?: CampaignView;
  rows: number;
  accepted: number;
  excluded: number;
  byReason: Record<ExclusionReason, number>;
  /** The first rows with their send times (ISO 8601 on the recipient's wall clock), phones masked. */
  preview: PreviewRow[];
  firstSendAt?: string;
  lastSendAt?: string;
  /** What the store made of the rows (absent for a dry run). */
  imported?: {
    added: number;
    rescheduled: number;
    unchanged: number;
    optedOut: number;
    /** Recipients an earlier import named and this one does not. */
    cancelled: number;
  };
}

/** A campaign's definition with readable times. */
export type CampaignView = Omit<CampaignMeta, 'v' | 'createdAt' | 'updatedAt'> & {
  createdAt: string;
  updatedAt: string;
};

/** A campaign's definition as the admin API and the CLI show it. */
export function campaignView(meta: CampaignMeta): CampaignView {
  const { v: _, createdAt, updatedAt, ...rest } = meta;
  return {
    ...rest,
    createdAt: new Date(createdAt).toISOString(),
    updatedAt: new Date(updatedAt).toISOString(),
  };
}

/**
 * A create's (or a dry run's) outcome as JSON. The phones of the preview are masked: the
 * answer ends up in terminals and CI logs, and the line number finds the row in the file.
 *
 * @example
 * res.status(201).json(importReport(await createCampaign(deps, request, req)));
 */
export function importReport(result: CreateCampaignResult): ImportReport {
  const { summary, imported } = result;
  const iso = (ms: number | undefined) =>
    ms === undefined ? undefined : new Date(ms).toISOString();
  return {
    dryRun: result.dryRun,
    ...(imported && { campaign: campaignView(imported.meta) }),
    rows: summary.rows,
    accepted: summary.accepted,
    excluded: summary.excluded,
    byReason: summary.byReason,
    preview: summary.preview.map((row) =>
      'phone' in row ? { ...row, phone: maskPhone(row.phone) } : row,
    ),
    ...(summary.firstSendAt !== undefined && { firstSendAt: iso(summary.firstSendAt) }),
    ...(summary.lastSendAt !== undefined && { lastSendAt: iso(summary.lastSendAt) }),
    ...(imported && {
      imported: {
        added: imported.added,
        rescheduled: imported.rescheduled,
        unchanged: imported.unchanged,
        optedOut: imported.optedOut,
        cancelled: imported.cancelled,
      },
    }),
  };
}
