/**
 * The shared KeywordIndex contract suite against a real Elasticsearch. The
 * mock cannot index or rank, so this only runs when ES_URL points at a
 * server (e.g. ES_URL=http://localhost:9200); each store gets its own index,
 * deleted afterwards.
 */
import { test } from 'node:test';
import { runKeywordIndexContract } from '@codesift/stores/contract';
import { Client } from '@elastic/elasticsearch';
import { ElasticsearchKeywordIndex } from './keyword-index.js';

const url = process.env.ES_URL;
const runId = `${process.pid}-${Date.now().toString(36)}`;
let seq = 0;

if (url) {
  runKeywordIndexContract(`Elasticsearch at ${url}`, async () => {
    const client = new Client({ node: url });
    const store = new ElasticsearchKeywordIndex({
      client,
      index: `codesift-contract-${runId}-${seq++}`,
      refresh: 'wait_for',
    });
    try {
      await store.ensureIndex();
    } catch (err) {
      await client.close();
      throw err;
    }
    return {
      store,
      close: async () => {
        try {
          await store.drop();
        } finally {
          await client.close();
        }
      },
    };
  });
} else {
  test('KeywordIndex contract: Elasticsearch', {
    skip: 'no server: set ES_URL (e.g. ES_URL=http://localhost:9200) to run the contract suite against Elasticsearch',
  }, () => {});
}
