/** What every `bench/<name>/index.ts` exports as its default: the runner imports and runs it. */
export interface Benchmark {
  /** The folder name; `npm run bench -- <name>` runs only this one. */
  name: string;
  /** One line for the runner's listing. */
  description: string;
  /** Runs the benchmark, prints its report, and resolves when everything it started is stopped. */
  run(args: readonly string[]): Promise<void>;
}
