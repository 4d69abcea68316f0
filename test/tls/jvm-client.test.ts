import { execFile, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpsListener, type HttpsListener } from './listener.js';

/**
 * An Android app's HTTP stack is Java's: a small program using HttpsURLConnection, with a
 * truststore made by keytool from the listener's /ca.pem, calls the API over HTTPS.
 */
const run = promisify(execFile);
const COMPILE_TIMEOUT_MS = 60_000;
const RUN_TIMEOUT_MS = 30_000;
const STORE_PASSWORD = 'poi-test';

const missing = ['javac', 'java', 'keytool'].find((tool) => spawnSync(tool, ['-version'], { timeout: 10_000 }).error !== undefined);
if (missing) {
  if (process.env.POI_REQUIRE_JAVA === '1') throw new Error(`the JVM client test must run here: ${missing} is missing`);
  console.warn(`skipped: the JVM client test needs a JDK (${missing} is missing)`);
}

const CLIENT = `
import java.io.InputStream;
import java.net.URL;
import javax.net.ssl.HttpsURLConnection;

public class Client {
  public static void main(String[] args) throws Exception {
    HttpsURLConnection connection = (HttpsURLConnection) new URL(args[0]).openConnection();
    connection.setConnectTimeout(10000);
    connection.setReadTimeout(10000);
    try {
      int status = connection.getResponseCode();
      try (InputStream in = connection.getInputStream()) {
        System.out.println(status);
        System.out.println(new String(in.readAllBytes(), "UTF-8"));
      }
    } catch (javax.net.ssl.SSLException e) {
      System.out.println("SSL " + e.getClass().getSimpleName());
    }
  }
}
`;

describe.skipIf(missing !== undefined)('a JVM client over HTTPS', () => {
  let listener: HttpsListener | undefined;
  let store: string;

  beforeAll(async () => {
    listener = await startHttpsListener();
    const ca = join(listener.dir, 'downloaded-ca.pem');
    writeFileSync(ca, await (await fetch(`http://127.0.0.1:${listener.port}/ca.pem`)).text());
    store = join(listener.dir, 'trust.p12');
    await run('keytool', ['-importcert', '-noprompt', '-alias', 'poi-local-ca', '-file', ca, '-keystore', store, '-storetype', 'PKCS12', '-storepass', STORE_PASSWORD], {
      timeout: RUN_TIMEOUT_MS,
    });
    writeFileSync(join(listener.dir, 'Client.java'), CLIENT);
    await run('javac', ['-d', listener.dir, join(listener.dir, 'Client.java')], { timeout: COMPILE_TIMEOUT_MS });
  }, COMPILE_TIMEOUT_MS + 2 * RUN_TIMEOUT_MS);

  afterAll(async () => {
    await listener?.close();
  });

  const java = async (url: string, trust: boolean): Promise<string> => {
    if (!listener) throw new Error('no listener');
    const trustStore = trust ? [`-Djavax.net.ssl.trustStore=${store}`, `-Djavax.net.ssl.trustStorePassword=${STORE_PASSWORD}`, '-Djavax.net.ssl.trustStoreType=PKCS12'] : [];
    const { stdout } = await run('java', [...trustStore, '-cp', listener.dir, 'Client', url], { timeout: RUN_TIMEOUT_MS });
    return stdout;
  };

  it('gets 200 from the API trusting the certificate from /ca.pem, and a handshake failure without it', async () => {
    if (!listener) throw new Error('no listener');
    for (const host of ['127.0.0.1', 'localhost']) {
      const [status, body] = (await java(`https://${host}:${listener.httpsPort}${listener.poiPath}`, true)).split('\n');
      expect(status).toBe('200');
      expect(JSON.parse(body ?? '{}')).toMatchObject({ name: 'Sol' });
    }
    expect((await java(`https://127.0.0.1:${listener.httpsPort}${listener.poiPath}`, false)).trim()).toBe('SSL SSLHandshakeException');
  }, 2 * 3 * RUN_TIMEOUT_MS);
});
