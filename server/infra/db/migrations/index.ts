import { Migration0001Accounts } from './0001-accounts.ts';
import { Migration0002Forms } from './0002-forms.ts';
import { Migration0003Exports } from './0003-exports.ts';
import { Migration0004TokenExpiry } from './0004-token-expiry.ts';
import { Migration0005Re2Rules } from './0005-re2-rules.ts';
import { Migration0006FieldCap } from './0006-field-cap.ts';
import { Migration0007Webhooks } from './0007-webhooks.ts';
import { Migration0008Insights } from './0008-insights.ts';
import { Migration0009FormFeatures } from './0009-form-features.ts';
import { Migration0010DataLifecycle } from './0010-data-lifecycle.ts';
import { Migration0011NotificationDigests } from './0011-notification-digests.ts';
import { Migration0012SubmissionStream } from './0012-submission-stream.ts';
import { Migration0013FolderCountDays } from './0013-folder-count-days.ts';
import { Migration0014ExportLeases } from './0014-export-leases.ts';
import { Migration0015WebhookEvents } from './0015-webhook-events.ts';
import { Migration0016LeanPostWal } from './0016-lean-post-wal.ts';
import { Migration0017SubmissionTeamOfForm } from './0017-submission-team-of-form.ts';
import { Migration0018WebhookPacing } from './0018-webhook-pacing.ts';
import { Migration0019LeanAnalyze } from './0019-lean-analyze.ts';
import { Migration0020FormAdmission } from './0020-form-admission.ts';
import { Migration0021Triage } from './0021-triage.ts';
import { Migration0022WebhookTemplates } from './0022-webhook-templates.ts';
import { Migration0023Rules } from './0023-rules.ts';
import { Migration0024TriageFilterIndexes } from './0024-triage-filter-indexes.ts';
import { Migration0025TeamKeyedFormTables } from './0025-team-keyed-form-tables.ts';
import { Migration0026TeamKeyedIds } from './0026-team-keyed-ids.ts';
import { Migration0027TokenTeams } from './0027-token-teams.ts';
import { Migration0028FormTeams } from './0028-form-teams.ts';
import { Migration0029DistributeOnCitus } from './0029-distribute-on-citus.ts';
import { Migration0030CountedDeletes } from './0030-counted-deletes.ts';
import { Migration0031StreamPositions } from './0031-stream-positions.ts';
import { Migration0032CountedChanges } from './0032-counted-changes.ts';
import { Migration0033ListIndexesCarryTeam } from './0033-list-indexes-carry-team.ts';

/** Committed migrations, in order. `intake migrate` (and every `serve`) applies the pending ones. */
export const migrations = [
  Migration0001Accounts,
  Migration0002Forms,
  Migration0003Exports,
  Migration0004TokenExpiry,
  Migration0005Re2Rules,
  Migration0006FieldCap,
  Migration0007Webhooks,
  Migration0008Insights,
  Migration0009FormFeatures,
  Migration0010DataLifecycle,
  Migration0011NotificationDigests,
  Migration0012SubmissionStream,
  Migration0013FolderCountDays,
  Migration0014ExportLeases,
  Migration0015WebhookEvents,
  Migration0016LeanPostWal,
  Migration0017SubmissionTeamOfForm,
  Migration0018WebhookPacing,
  Migration0019LeanAnalyze,
  Migration0020FormAdmission,
  Migration0021Triage,
  Migration0022WebhookTemplates,
  Migration0023Rules,
  Migration0024TriageFilterIndexes,
  Migration0025TeamKeyedFormTables,
  Migration0026TeamKeyedIds,
  Migration0027TokenTeams,
  Migration0028FormTeams,
  Migration0029DistributeOnCitus,
  Migration0030CountedDeletes,
  Migration0031StreamPositions,
  Migration0032CountedChanges,
  Migration0033ListIndexesCarryTeam,
];
