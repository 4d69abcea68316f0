import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/built-renderer.ts'],
    // argon2 hashing is deliberately slow; real listeners start in milliseconds.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // A listener on the local network announces its .local name by multicast: only on the test's
    // own interfaces (test/tls/second-host.test.ts's veth), never on this machine's network.
    env: { POI_MDNS_INTERFACES: 'vpmd*' },
  },
});
