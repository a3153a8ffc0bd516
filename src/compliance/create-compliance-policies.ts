import { ConfigError } from '../errors.ts';
import type { ComplianceConfig } from './compliance-config.ts';
import { type CompliancePolicy, createCompliancePolicy } from './create-compliance-policy.ts';

/**
 * The policy of every location, by location name; a location without a `compliance` section
 * gets the defaults. Throws `ConfigError` naming the location on bad config.
 *
 * @example
 * const policies = createCompliancePolicies(config.locations);
 * policies.get('paris')?.match('STOP'); // { kind: 'opt-out', keyword: 'stop', language: 'fr' }
 */
export function createCompliancePolicies(
  locations: ReadonlyArray<{ name: string; compliance?: ComplianceConfig }>,
): ReadonlyMap<string, CompliancePolicy> {
  const policies = new Map<string, CompliancePolicy>();
  for (const location of locations) {
    try {
      policies.set(location.name, createCompliancePolicy(location.compliance));
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      throw new ConfigError(`location '${location.name}': ${error.message}`, { cause: error });
    }
  }
  return policies;
}
