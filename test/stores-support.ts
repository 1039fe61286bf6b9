import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** The throwaway PostgreSQL server of the test run (see scripts/test-postgres.sh), if any. */
export const TEST_PG = process.env.LANGGRAPH_A2A_TEST_PG;
export const PG_SKIP_REASON = 'no PostgreSQL server: set LANGGRAPH_A2A_TEST_PG (bash .ci/run starts one)';

/** A new, empty database on the test server; returns its URL. */
export async function freshPostgresUrl(): Promise<string> {
  if (!TEST_PG) throw new Error(PG_SKIP_REASON);
  const name = `t_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const admin = new pg.Client({ connectionString: TEST_PG });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_PG);
  url.pathname = `/${name}`;
  return url.toString();
}

/** A store setting in a fresh place, for each backend. */
export const backends: Array<{ name: 'sqlite' | 'postgres'; available: boolean; fresh: () => Promise<string> }> = [
  {
    name: 'sqlite',
    available: true,
    fresh: async () => `sqlite:${join(mkdtempSync(join(tmpdir(), 'lga2a-')), 'store.sqlite')}`,
  },
  { name: 'postgres', available: TEST_PG !== undefined, fresh: freshPostgresUrl },
];
