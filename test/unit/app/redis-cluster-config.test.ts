import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/app/config.ts';
import { parseClusterNode } from '../../../src/store/redis/connect-redis-cluster.ts';

describe('REDIS_CLUSTER_NODES', () => {
  it('lists the cluster nodes, trimmed, and keeps REDIS_URL unset', async () => {
    const config = await loadConfig({
      REDIS_CLUSTER_NODES: ' 10.0.0.1:6379, redis-2:7000,[::1]:6380',
    });
    expect(config.redisClusterNodes).toEqual(['10.0.0.1:6379', 'redis-2:7000', '[::1]:6380']);
    expect(config.redisUrl).toBeUndefined();
    expect(config.redisClusterNodes?.map(parseClusterNode)).toEqual([
      { host: '10.0.0.1', port: 6379 },
      { host: 'redis-2', port: 7000 },
      { host: '::1', port: 6380 },
    ]);
    expect(parseClusterNode('redis-3')).toEqual({ host: 'redis-3', port: 6379 });
  });

  it('is absent when unset or empty', async () => {
    expect((await loadConfig({})).redisClusterNodes).toBeUndefined();
    expect((await loadConfig({ REDIS_CLUSTER_NODES: '' })).redisClusterNodes).toBeUndefined();
  });

  it('refuses REDIS_URL and REDIS_CLUSTER_NODES together, naming both', async () => {
    await expect(
      loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: '127.0.0.1:7000' }),
    ).rejects.toThrow(/REDIS_URL and REDIS_CLUSTER_NODES are both set/);
  });

  it('refuses an entry that is not host:port, naming the variable', async () => {
    await expect(loadConfig({ REDIS_CLUSTER_NODES: 'redis://a:1,b:2' })).rejects.toThrow(
      /REDIS_CLUSTER_NODES must list host:port entries/,
    );
  });

  it('reads the partition count (16 by default) and refuses one out of range', async () => {
    expect((await loadConfig({})).redisPartitions).toBe(16);
    expect((await loadConfig({ REPLYFLOW_REDIS_PARTITIONS: '64' })).redisPartitions).toBe(64);
    await expect(loadConfig({ REPLYFLOW_REDIS_PARTITIONS: '0' })).rejects.toThrow(
      /REPLYFLOW_REDIS_PARTITIONS/,
    );
  });
});
