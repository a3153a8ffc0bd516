import { createCompliancePolicy } from '../compliance/create-compliance-policy.ts';
import { quietHoursEnd } from '../compliance/quiet-hours-end.ts';
import type { ComplianceRules } from '../conversation/compliance-rules.ts';
import type { LocationConfig } from './config.ts';

/**
 * Every location's compliance rules for the engine, made once at start from its `compliance`
 * section (the defaults when it has none): a bad section stops the start with a `ConfigError`
 * naming the field. A location the config does not name (none in practice) gets the defaults.
 */
export function createComplianceRules(
  locations: readonly Pick<LocationConfig, 'name' | 'compliance'>[],
): (location: string) => ComplianceRules {
  const byLocation = new Map(locations.map((l) => [l.name, rulesOf(l.compliance)]));
  const defaults = rulesOf(undefined);
  return (location) => byLocation.get(location) ?? defaults;
}

function rulesOf(config: LocationConfig['compliance']): ComplianceRules {
  const policy = createCompliancePolicy(config);
  const quiet = policy.quietHours;
  return {
    match: (body, claimed) => policy.match(body, claimed),
    text: (kind, language) => policy.text(kind, language),
    loopGuard: policy.loopGuard,
    group: policy.group,
    quietUntil: (now) => (quiet ? quietHoursEnd(now, quiet) : undefined),
  };
}
